# Every format meshport writes, through Python and through the CLI, gives the same bytes (every
# file written: side files, textures, .prop/.model pairs) and the same warnings.
import json
import os
import warnings

import pytest

import meshport
from conftest import DATA, EXAMPLES, same_outcome

WRITTEN = ["iqe", "iqm", "gltf", "glb", "obj", "pie", "qmsh.tmp", "qmsh", "model", "prop", "path"]
SOURCES = {"tentacle": EXAMPLES / "tentacle.iqe", "turret": DATA / "cli" / "turret.pie",
           "cube": DATA / "qmsh" / "cube.qmsh.tmp", "bar": DATA / "modedef" / "bar.model"}


def files_of(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, files in os.walk(folder) for f in files)


def same_tree(a, b):
    assert files_of(a) == files_of(b)
    for name in files_of(a):
        with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
            assert fa.read() == fb.read(), name
    return files_of(a)


def test_every_writable_format_is_listed():
    writable = {f["name"] for f in meshport.formats() if f["can_write"]}
    assert writable == {"iqe", "iqm", "gltf", "glb", "obj", "pie", "qmsh-tmp", "qmsh", "modedef-model",
                        "modedef-prop", "modedef-state", "modedef-path"}


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("ext", WRITTEN)
def test_convert_equals_cli(source, ext, cli, tmp_path, monkeypatch):
    src = SOURCES[source]
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    out = "out." + ext
    r = cli(["convert", src, "-o", out], cwd=tmp_path / "cli", check=False)
    monkeypatch.chdir(tmp_path / "py")
    scene = same_outcome(r, lambda: meshport.convert(str(src), out))
    written = same_tree(tmp_path / "cli", tmp_path / "py")
    if r.returncode == 0:
        assert isinstance(scene, meshport.Scene)
        assert out in written
    else:  # .path of a model without animation: the same error, nothing written
        assert ext == "path" and written == []


@pytest.mark.parametrize("ext", WRITTEN + ["state"])
def test_read_write_equals_cli(ext, cli, tmp_path, monkeypatch):
    """read() then write() in the same format: what `meshport convert X.ext -o Y.ext` writes."""
    src = DATA / "modedef" / "state" / "scene.state" if ext == "state" else tmp_path / ("in." + ext)
    if ext != "state":
        cli(["convert", EXAMPLES / "tentacle.iqe", "-o", src])
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    r = cli(["convert", src, "-o", "out." + ext], cwd=tmp_path / "cli")
    monkeypatch.chdir(tmp_path / "py")
    same_outcome(r, lambda: meshport.write(meshport.read(str(src)), "out." + ext, texture_model=str(src)))
    same_tree(tmp_path / "cli", tmp_path / "py")


# Formats whose main file write(format=...) returns whole (no side file it depends on).
IN_MEMORY = ["iqe", "iqm", "glb", "pie", "qmsh.tmp", "qmsh", "model", "path"]


@pytest.mark.parametrize("ext", IN_MEMORY)
def test_bytes_in_bytes_out(ext, cli, tmp_path):
    """read(bytes) and write(format=) give the file the CLI writes."""
    f = tmp_path / ("a." + ext)
    cli(["convert", EXAMPLES / "tentacle.iqe", "-o", f])
    fmt = meshport.read(str(f))  # the format name: from the file's own extension
    name = {"qmsh.tmp": "qmsh-tmp", "model": "modedef-model", "path": "modedef-path"}.get(ext, ext)
    cli(["convert", f, "-o", tmp_path / ("b." + ext)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scene = meshport.read(f.read_bytes(), name, name=str(f))
        data = meshport.write(scene, format=name)
    assert scene == fmt
    assert isinstance(data, bytes)
    assert data == (tmp_path / ("b." + ext)).read_bytes()


@pytest.mark.parametrize("ext", ["iqm", "glb", "pie", "qmsh", "model", "obj", "gltf", "state"])
def test_info_equals_cli_json(ext, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if ext == "state":
        src = str(DATA / "modedef" / "state" / "scene.state")
    else:
        src = "m." + ext
        cli(["convert", EXAMPLES / "tentacle.iqe", "-o", src], cwd=tmp_path)
    expected = json.loads(cli(["info", "--json", src], cwd=tmp_path).stdout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = meshport.info(src)
    assert got == expected
