# The ten-line example of README.md ("Python") and of docs/python.md runs as written, on a real
# PIE (tests/data/cli/turret.pie as tank.pie): it prints the levels, moves a vertex, writes a glb.
import contextlib
import io
import re
import shutil
import warnings

import pytest

import meshport
from conftest import DATA, ROOT


def example(page, after):
    text = (ROOT / page).read_text()
    block = re.search(r"```python\n(.*?)```", text[text.index(after):], re.S).group(1)
    return block


@pytest.mark.parametrize("page,after", [("README.md", "## Python"), ("docs/python.md", "# Python")])
def test_example_runs(page, after, tmp_path, monkeypatch):
    code = example(page, after)
    assert len(code.strip().splitlines()) <= 10
    shutil.copy(DATA / "cli" / "turret.pie", tmp_path / "tank.pie")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with warnings.catch_warnings(record=True), contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        exec(compile(code, page, "exec"), {})
    original = meshport.read(str(DATA / "cli" / "turret.pie"))
    assert out.getvalue().splitlines() == ["0 4 points", "1 3 points", str(original.meshes[0].vertex_count)]
    written = meshport.read("tank.glb")
    moved = written.meshes[0].stream(meshport.Attribute.POSITION).data[0]
    assert moved[1] == pytest.approx(original.meshes[0].stream(meshport.Attribute.POSITION).data[0][1] + 1)
