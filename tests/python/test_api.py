# validate, diff, modes and simulate through Python give what the CLI gives; warnings are Python
# warnings (an "error" filter turns them into exceptions); the formats and profiles lists.
import json
import shutil
import warnings

import pytest

import meshport
from conftest import DATA, EXAMPLES, warnings_text

CUBE_OBJ = """v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1
f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 4 7 3\nf 4 8 7\nf 1 5 8\nf 1 8 4\nf 2 3 7\nf 2 7 6
"""
# One object (m.prop, as `modes` writes it) dropped onto the ground plane y = 0.
STATE = "30\n1\n0 -9.8 0\n0.5\n0 1 0\n1\nm.prop\n0 3 0\n1 0 0 0\n0 0 0\n0 0 0\n-1 -1\n1\n0 1 0  0 0 0\n0\n"


def tree(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_warnings_are_python_warnings_with_their_location(tmp_path):
    f = tmp_path / "x.iqe"
    f.write_text("# Inter-Quake Export\nmesh a\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\nbogus 1 2\n")
    with pytest.warns(meshport.MeshportWarning) as record:
        scene = meshport.read(str(f))
    assert len(scene.meshes) == 1
    texts = warnings_text(record)
    assert texts and texts[0].startswith(str(f) + ":7:1: warning: ")
    with warnings.catch_warnings():
        warnings.simplefilter("error", meshport.MeshportWarning)
        with pytest.raises(meshport.MeshportWarning):
            meshport.read(str(f))


def test_validate_equals_cli(cli):
    for model, profiles in ((DATA / "cli" / "badindex.iqe", ["iqm-engines"]),
                            (EXAMPLES / "tentacle.iqe", ["wz2100", "iqm-engines"]),
                            (DATA / "cli" / "turret.pie", ["wz2100"])):
        args = ["validate", "--json"] + [a for p in profiles for a in ("--profile", p)] + [model]
        r = cli(args, check=False)
        expected = [d["text"] for d in json.loads(r.stdout)["items"][0]["diagnostics"]]
        v = meshport.validate(str(model), profiles=profiles)
        assert [str(d) for d in v.diagnostics] == expected
        assert bool(v) == v.valid == (r.returncode == 0)
    assert not meshport.validate(str(DATA / "cli" / "badindex.iqe")).valid
    bad = meshport.validate(str(DATA / "cli" / "badindex.iqe")).diagnostics[0]
    assert (bad.severity, bad.line, bad.column) == ("error", 6, 8)
    good = str(EXAMPLES / "tentacle.iqe")
    scene = meshport.read(good)
    assert [str(d) for d in meshport.validate(scene, profiles=["wz2100"], name=good).diagnostics] == \
        [str(d) for d in meshport.validate(good, profiles=["wz2100"]).diagnostics]
    with pytest.raises(ValueError, match="unknown profile 'doom'"):
        meshport.validate(good, profiles=["doom"])
    assert [p["name"] for p in meshport.profiles()] == ["wz2100", "iqm-engines"]


def test_diff_equals_cli(cli, tmp_path):
    a, b = tmp_path / "t.iqm", tmp_path / "t.qmsh"
    cli(["convert", EXAMPLES / "tentacle.iqe", "-o", a])
    cli(["convert", EXAMPLES / "tentacle.iqe", "-o", b])
    r = cli(["diff", a, b], check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = meshport.diff(str(a), str(b))
        assert meshport.diff(meshport.read(str(a)), str(a)) == []
    lines = r.stdout.splitlines()
    assert [str(d) for d in got] == lines[:-1] and lines[-1] == "%d differences" % len(got)
    assert got[0].path == "animations[wave].loop" and (got[0].a, got[0].b) == ("true", "false")


def test_modes_and_simulate_equal_cli(cli, tmp_path, monkeypatch):
    for side in ("cli", "py"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "cube.obj").write_text(CUBE_OBJ)
        (tmp_path / side / "s.state").write_text(STATE)
    args = ["--count", "4", "--resolution", "4", "--elements", "linear"]
    cli(["modes", "cube.obj", "-o", "m.model"] + args, cwd=tmp_path / "cli")
    r = cli(["simulate", "s.state", "--seconds", "1", "-o", "out.state", "--trace", "trace.json"], cwd=tmp_path / "cli")
    monkeypatch.chdir(tmp_path / "py")
    report = {}
    scene = meshport.modes("cube.obj", count=4, resolution=4, elements="linear", stem="m", report=report)
    assert scene.modedef.kind == "prop" and scene.modedef.models[0].model.mode_count == 4
    assert report["rigid_modes"] == 6 and report["cells"] == (4, 4, 4) and report["mass"] == pytest.approx(8000)
    meshport.write(scene, "m.prop")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        animated, trace = meshport.simulate("s.state", seconds=1)
        meshport.write(animated, "out.state")
    assert warnings_text(record) == r.stderr.splitlines()
    assert warnings_text(record)[0].startswith("out.state: warning: 1 morph weight tracks")
    assert trace == json.loads((tmp_path / "cli" / "trace.json").read_text())
    (tmp_path / "py" / "trace.json").write_text((tmp_path / "cli" / "trace.json").read_text())
    assert tree(tmp_path / "py") == tree(tmp_path / "cli")
    assert animated.animations[0].name == "s" and animated.animations[0].frame_count == 31
    # A mode moves the render mesh: deform() in place.
    before = scene.meshes[0].stream(meshport.Attribute.POSITION).data.copy()
    meshport.deform(scene, [1.0])
    assert (scene.meshes[0].stream(meshport.Attribute.POSITION).data != before).any()


def test_simulate_refuses_what_is_not_a_state():
    with pytest.raises(meshport.Error, match="simulate"):
        meshport.simulate(meshport.read(str(EXAMPLES / "tentacle.iqe")))


def test_convert_options_and_bytes(tmp_path):
    out = tmp_path / "t.glb"
    pie = str(DATA / "cli" / "turret.pie")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = meshport.convert([pie], str(out), tangents="off", compress=True)
        assert all(m.stream(meshport.Attribute.TANGENT) is None for m in plain.meshes)
        assert out.read_bytes()[:4] == b"glTF"
        assert meshport.from_glb(out.read_bytes()).meshes[0].vertex_count == plain.meshes[0].vertex_count
        scene = meshport.convert(pie, str(out))
        assert all(m.stream(meshport.Attribute.TANGENT) is not None for m in scene.meshes)
    with pytest.raises(ValueError, match="normals"):
        meshport.convert(pie, str(out), normals="sometimes")
    with pytest.raises(ValueError, match="format="):
        meshport.write(scene)
    shutil.rmtree(tmp_path)
