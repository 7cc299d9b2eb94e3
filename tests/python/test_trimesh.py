# to_trimesh / from_trimesh. Debian 12 has no python3-trimesh, so trimesh itself is not installed
# here: a stand-in module with trimesh's names and attributes (Trimesh, Scene, visual.TextureVisuals,
# vertices, faces, vertex_normals, visual.uv) is put in sys.modules for these tests. Without any
# trimesh, to_trimesh raises an ImportError saying what to install.
import sys
import types
import warnings

import numpy as np
import pytest

import meshport
from conftest import DATA, EXAMPLES


class _Visuals:
    def __init__(self, uv=None):
        self.uv = uv


class _Trimesh:
    def __init__(self, vertices=None, faces=None, vertex_normals=None, visual=None, process=True):
        assert process is False  # meshport's arrays are kept as they are
        self.vertices, self.faces, self.vertex_normals = vertices, faces, vertex_normals
        self.visual = visual or _Visuals()


class _Scene:
    def __init__(self):
        self.geometry = {}

    def add_geometry(self, mesh, geom_name=None):
        self.geometry[geom_name] = mesh


@pytest.fixture
def fake_trimesh(monkeypatch):
    module = types.ModuleType("trimesh")
    module.Trimesh, module.Scene = _Trimesh, _Scene
    module.visual = types.SimpleNamespace(TextureVisuals=_Visuals)
    monkeypatch.setitem(sys.modules, "trimesh", module)
    return module


def test_without_trimesh_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "trimesh", None)  # import trimesh raises ImportError
    with pytest.raises(ImportError, match="pip install trimesh"):
        meshport.to_trimesh(meshport.read(str(EXAMPLES / "tentacle.iqe")))


def test_to_trimesh(fake_trimesh):
    scene = meshport.read(str(EXAMPLES / "tentacle.iqe"))
    out = meshport.to_trimesh(scene)
    assert isinstance(out, _Scene) and list(out.geometry) == [m.name for m in scene.meshes]
    t = out.geometry[scene.meshes[0].name]
    mesh = scene.meshes[0]
    np.testing.assert_array_equal(t.vertices, mesh.stream(meshport.Attribute.POSITION).data)
    np.testing.assert_array_equal(t.faces, mesh.triangles)
    np.testing.assert_array_equal(t.vertex_normals, mesh.stream(meshport.Attribute.NORMAL).data)
    uv = mesh.stream(meshport.Attribute.TEXCOORD).data
    np.testing.assert_allclose(t.visual.uv, np.stack([uv[:, 0], 1 - uv[:, 1]], axis=1))
    # copies: trimesh's edits do not reach the Scene
    t.vertices[0] = 99
    assert mesh.stream(meshport.Attribute.POSITION).data[0, 0] != 99
    one = meshport.to_trimesh(scene, mesh=1)
    assert isinstance(one, _Trimesh) and len(one.faces) == len(scene.meshes[1].triangles)


def test_from_trimesh_round_trip(fake_trimesh, tmp_path):
    scene = meshport.read(str(DATA / "cli" / "turret.pie"))
    back = meshport.from_trimesh(meshport.to_trimesh(scene))
    assert [m.name for m in back.meshes] == [m.name for m in scene.meshes]
    for a, b in zip(scene.meshes, back.meshes):
        for attr in (meshport.Attribute.POSITION, meshport.Attribute.TEXCOORD):
            np.testing.assert_allclose(b.stream(attr).data, a.stream(attr).data[:, :b.stream(attr).components],
                                       atol=1e-6)
        np.testing.assert_array_equal(b.triangles, a.triangles)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meshport.write(back, str(tmp_path / "back.glb"))
    assert meshport.read(str(tmp_path / "back.glb")).meshes[1].vertex_count == scene.meshes[1].vertex_count


def test_from_trimesh_is_duck_typed_and_checks_faces():
    quad = types.SimpleNamespace(vertices=[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], faces=[[0, 1, 2], [0, 2, 3]])
    scene = meshport.from_trimesh(quad)
    assert scene.meshes[0].vertex_count == 4 and scene.meshes[0].triangles.shape == (2, 3)
    quad.faces = [[0, 1, 7]]
    with pytest.raises(ValueError, match="faces naming vertices"):
        meshport.from_trimesh(quad)
