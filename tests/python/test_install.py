# `pip install --no-build-isolation` of python/ works offline (no index) into a virtual environment
# that sees Debian's numpy, and the installed package imports and reads a model from another
# folder. It reuses the module of this build (MESHPORT_BUILD_DIR: python/setup.py builds its
# meshport_python target, already up to date), so it takes seconds.
import os
import pathlib
import shutil
import subprocess
import sys

import meshport
from conftest import DATA, ROOT


def test_pip_install_offline(tmp_path):
    build = pathlib.Path(meshport.__file__).resolve().parents[2]
    assert (build / "CMakeCache.txt").exists(), "the module under test is not in a CMake build folder: %s" % build
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(tmp_path / "venv")], check=True)
    env = dict(os.environ, MESHPORT_BUILD_DIR=str(build), PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    python = str(tmp_path / "venv" / "bin" / "python")
    # pip builds in place: setuptools' build/ and meshport.egg-info/ in python/ (git ignores them),
    # removed again unless they were there before.
    leftovers = [p for p in (ROOT / "python" / "build", ROOT / "python" / "meshport.egg-info") if not p.exists()]
    try:
        r = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", str(ROOT / "python")],
                           env=env, capture_output=True, text=True, timeout=600)
    finally:
        for p in leftovers:
            shutil.rmtree(p, ignore_errors=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    check = ("import meshport, os; s = meshport.read(%r); "
             "print(os.path.dirname(meshport.__file__), len(s.pie.levels), sorted(os.listdir(os.path.dirname(meshport.__file__))))"
             % str(DATA / "cli" / "turret.pie"))
    r = subprocess.run([python, "-c", check], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    folder, levels, files = r.stdout.split(" ", 2)
    assert folder.startswith(str(tmp_path / "venv")) and levels == "2"
    for name in ("__init__.py", "__init__.pyi", "_meshport.pyi", "py.typed"):
        assert repr(name) in files
    assert "_meshport.cpython-" in files
