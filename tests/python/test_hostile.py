# Hostile files (tests/hostile, every case of every cases.tsv) raise meshport.Error with the
# message the C++ suite expects, or give its warnings, and never crash the interpreter: from
# their path, and, for the formats that need no side file, from their bytes (read(bytes)).
import os
import warnings

import pytest

import meshport
from conftest import ROOT, warnings_text

HOSTILE = ROOT / "tests" / "hostile"
FORMAT = {"glb": "glb", "gltf": "gltf", "iqe": "iqe", "iqm": "iqm", "model": "modedef-model", "obj": "obj",
          "path": "modedef-path", "pie": "pie", "prop": "modedef-prop", "qmsh": "qmsh", "qmsh_tmp": "qmsh-tmp",
          "state": "modedef-state"}
# Formats whose files name others (a .gltf's buffers, an .obj's .mtl, a .prop's .model, a .state's
# .prop and .path): from bytes those are not found, so only their paths are checked.
SIDE_FILES = {"gltf", "obj", "prop", "state"}


def cases():
    out = []
    for folder in sorted(FORMAT):
        with open(HOSTILE / folder / "cases.tsv", encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line and not line.startswith("#"):
                    name, expected = line.split("\t", 1)
                    out.append((folder, name, expected))
    return out


CASES = cases()


def outcome(read):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            read()
        except meshport.Error as e:
            assert e.message and e.severity == "error"
            return "error\t" + str(e).replace(str(HOSTILE) + "/", "")
    return "\t".join(["ok"] + ["warning\t" + w.replace(str(HOSTILE) + "/", "") for w in warnings_text(record)])


def test_every_folder_has_cases():
    assert len(CASES) > 400
    assert sum(1 for c in CASES if c[2].startswith("error")) > 350


@pytest.mark.parametrize("folder,name,expected", CASES, ids=["%s/%s" % (c[0], c[1]) for c in CASES])
def test_from_path(folder, name, expected):
    assert outcome(lambda: meshport.read(str(HOSTILE / folder / name))) == expected


BYTES_CASES = [c for c in CASES if c[0] not in SIDE_FILES]


@pytest.mark.parametrize("folder,name,expected", BYTES_CASES, ids=["%s/%s" % (c[0], c[1]) for c in BYTES_CASES])
def test_from_bytes(folder, name, expected):
    data = (HOSTILE / folder / name).read_bytes()
    got = outcome(lambda: meshport.read(data, FORMAT[folder], name="%s/%s" % (folder, name)))
    assert got == expected


def test_error_carries_its_location():
    with pytest.raises(meshport.Error) as e:
        meshport.read(b"PIE 3\nTYPE 200\nLEVELS x\n", "pie", name="bad.pie")
    err = e.value
    assert (err.file, err.line, err.column, err.offset) == ("bad.pie", 3, 8, -1)
    assert str(err) == "bad.pie:3:8: error: " + err.message
    assert isinstance(err, Exception) and not isinstance(err, meshport.MeshportWarning)


def test_binary_error_carries_its_offset():
    with pytest.raises(meshport.Error) as e:
        meshport.read(b"INTERQUAKEMODEL\0" + b"\0" * 8, "iqm", name="short.iqm")
    assert e.value.file == "short.iqm" and e.value.line == 0
    assert str(e.value).startswith("short.iqm")


def test_bytes_need_a_format_and_unknown_formats_are_named():
    with pytest.raises(ValueError, match="format="):
        meshport.read(b"PIE 3\n")
    with pytest.raises(ValueError, match="unknown format 'fbx'"):
        meshport.read(b"", "fbx")
    with pytest.raises(meshport.Error):
        meshport.read(os.path.join(str(HOSTILE), "no-such-file.pie"))


FUZZ = sorted(p for p in (HOSTILE / "fuzz").rglob("*") if p.is_file() and p.parent.name in FORMAT)


@pytest.mark.parametrize("path", FUZZ, ids=[p.relative_to(HOSTILE).as_posix() for p in FUZZ])
def test_fuzz_regressions_read_write_read(path):
    """The files the fuzzers found problems with: read or raise meshport.Error; what reads writes
    (as its own format, in memory) and reads again."""
    fmt = FORMAT[path.parent.name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scene = meshport.read(path.read_bytes(), fmt, name=path.name)
        except meshport.Error:
            return
        data = meshport.write(scene, format=fmt)
        again = meshport.read(data, fmt, name=path.name)
    assert isinstance(again, meshport.Scene)
