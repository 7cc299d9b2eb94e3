# The sample models of ../shared/corpus (CTest's Python.corpus passes it in MESHPORT_CORPUS, through
# tests/needs_corpus.sh, which reports the test skipped where the folder is absent): every model
# read through Python and written back in its own format, and converted to .glb, gives the CLI's
# bytes and warnings.
import os
import pathlib
import warnings

import pytest

import meshport
from conftest import same_outcome

FORMATS = {".pie": "pie", ".iqe": "iqe", ".iqm": "iqm", ".qmsh": "qmsh", ".obj": "obj"}


def corpus():
    root = os.environ.get("MESHPORT_CORPUS")
    assert root and os.path.isdir(root), "MESHPORT_CORPUS must name ../shared/corpus (CTest sets it)"
    return pathlib.Path(root)


def models():
    root = corpus()
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix.lower() in FORMATS)


MODELS = models()


def test_the_corpus_has_every_format():
    assert len(MODELS) >= 90
    assert {pathlib.Path(m).suffix for m in MODELS} == set(FORMATS)


@pytest.mark.parametrize("model", MODELS)
def test_model(model, cli, tmp_path, monkeypatch):
    src = corpus() / model
    ext = src.suffix.lower()
    for side in ("cli", "py"):
        (tmp_path / side).mkdir()
    r_same = cli(["convert", src, "-o", "same" + ext], cwd=tmp_path / "cli", check=False)
    r_glb = cli(["convert", src, "-o", "out.glb"], cwd=tmp_path / "cli", check=False)
    monkeypatch.chdir(tmp_path / "py")

    def same_format():
        scene = meshport.read(src.read_bytes(), FORMATS[ext], name=str(src)) if ext != ".obj" else meshport.read(str(src))
        meshport.write(scene, "same" + ext, texture_model=str(src))

    same_outcome(r_same, same_format)
    same_outcome(r_glb, lambda: meshport.convert(str(src), "out.glb"))
    cli_files = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert cli_files == sorted(p.name for p in (tmp_path / "py").iterdir())
    for name in cli_files:
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
