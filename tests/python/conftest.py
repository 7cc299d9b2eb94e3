# pytest setup of the Python module's tests (docs/python.md, "Tests"). CTest (tests/CMakeLists.txt,
# Python.*) runs them with the module's build folder on PYTHONPATH and the CLI the bytes are
# compared with in MESHPORT_CLI; a missing module, CLI or pytest fails the test, never skips it.
import os
import pathlib
import subprocess

import warnings

import pytest

import meshport  # noqa: F401  (a missing module is an error at collection: the run fails)

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
EXAMPLES = ROOT / "examples"


def _cli_path():
    cli = os.environ.get("MESHPORT_CLI")
    if not cli or not os.access(cli, os.X_OK):
        raise RuntimeError("MESHPORT_CLI must name the built meshport executable (CTest sets it), got %r" % cli)
    return cli


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI: cli(args, cwd=...) -> CompletedProcess (stdout, stderr as text)."""
    exe = os.path.abspath(_cli_path())

    def run(args, cwd=None, check=True):
        r = subprocess.run([exe] + [str(a) for a in args], cwd=cwd, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError("meshport %s failed (%d): %s" % (" ".join(map(str, args)), r.returncode, r.stderr))
        return r

    return run


def warnings_text(record):
    """The messages of the MeshportWarning/MeshportNote warnings recorded, as the CLI prints them."""
    return [str(w.message) for w in record if issubclass(w.category, (meshport.MeshportWarning, meshport.MeshportNote))]


def same_outcome(cli_run, call):
    """`call` gives what the CLI run gave: the same warnings, and the same error when it failed."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        if cli_run.returncode == 0:
            result = call()
        else:
            with pytest.raises(meshport.Error) as e:
                call()
            result = None
    lines = cli_run.stderr.splitlines()
    if cli_run.returncode != 0:
        assert str(e.value) == lines.pop()
    assert warnings_text(record) == lines
    return result
