"""Builds the extension meshport._meshport with the repository's CMake build (docs/python.md).

The library is compiled with the flags of `make build` (Release, the project's warnings), so that
ccache, when installed, reuses that build's objects. The CMake build folder is ../build-python (kept between builds: a rebuild compiles only what
changed), or MESHPORT_BUILD_DIR: an existing build folder configured for this same Python (its
meshport_python target is built). CMAKE_BUILD_PARALLEL_LEVEL (or JOBS) sets the parallel jobs.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


def version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(meshport VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("MESHPORT_BUILD_DIR") or ROOT / "build-python").resolve()
        cache = build / "CMakeCache.txt"
        if cache.exists():
            configured = re.search(r"^Python_EXECUTABLE:FILEPATH=(.*)$", cache.read_text(), re.M)
            if configured and os.path.realpath(configured.group(1)) != os.path.realpath(sys.executable):
                raise SystemExit("meshport: %s was configured for %s, not %s: give another MESHPORT_BUILD_DIR"
                                 % (build, configured.group(1), sys.executable))
        else:
            launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                   "-DMESHPORT_PYTHON=ON", "-DMESHPORT_TESTS=OFF", "-DMESHPORT_BENCH=OFF",
                                   "-DMESHPORT_VIEWER=OFF",
                                   "-DPython_EXECUTABLE=" + sys.executable] + launcher)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or os.environ.get("JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "meshport_python", "-j", jobs])
        built = sorted((build / "python" / "meshport").glob("_meshport*.so"))
        if not built:
            raise SystemExit("meshport: the build made no _meshport module in %s" % (build / "python" / "meshport"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(version=version(), packages=["meshport"], package_data={"meshport": ["*.pyi", "py.typed"]},
      include_package_data=False, ext_modules=[Extension("meshport._meshport", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
