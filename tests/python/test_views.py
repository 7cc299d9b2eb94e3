# The Scene's arrays are numpy views of its memory: a write through a view shows in the Scene (and
# in what is written), views keep their Scene alive, lists hold references, assignment copies in.
import gc
import weakref
import warnings

import numpy as np
import pytest

import meshport
from conftest import DATA, EXAMPLES

P = meshport.Attribute.POSITION


def tentacle():
    return meshport.read(str(EXAMPLES / "tentacle.iqe"))


def test_stream_data_aliases_the_scene():
    scene = tentacle()
    mesh = scene.meshes[0]
    pos = mesh.stream(P)
    a = pos.data
    assert a.dtype == np.float32 and a.shape == (mesh.vertex_count, 3) and a.flags.writeable
    assert not a.flags.owndata
    b = scene.meshes[0].streams[0].data
    assert np.shares_memory(a, b)
    a[5] = (1.5, -2.0, 3.25)
    assert tuple(scene.meshes[0].stream(P).data[5]) == (1.5, -2.0, 3.25)
    assert tuple(mesh["position"][5]) == (1.5, -2.0, 3.25)
    tri = mesh.triangles
    assert tri.dtype == np.uint32 and tri.shape == (len(tri), 3)
    tri[0] = tri[0][::-1].copy()
    assert list(scene.meshes[0].triangles[0]) == list(tri[0])


def test_a_write_through_a_view_reaches_the_file():
    scene = meshport.read(str(DATA / "cli" / "turret.pie"))
    scene.meshes[0].stream(P).data[0] += np.float32([0, 0.5, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the texture page is not beside a Scene written to bytes
        again = meshport.read(meshport.write(scene, format="glb"), "glb")
    assert again.meshes[0].stream(P).data[0][1] == pytest.approx(scene.meshes[0].stream(P).data[0][1])
    before = meshport.read(str(DATA / "cli" / "turret.pie"))
    assert meshport.diff(before, scene) != []


def test_views_keep_the_scene_alive():
    scene = tentacle()
    expected = scene.meshes[1].stream(P).data.copy()
    view = scene.meshes[1].stream(P).data
    poses = scene.animations[0].poses
    probe = weakref.ref(scene)
    del scene
    gc.collect()
    assert probe() is not None  # the view's base chain holds it
    np.testing.assert_array_equal(view, expected)
    assert poses.shape[2] == 10
    del view, poses
    gc.collect()
    assert probe() is None


def test_items_are_references_and_outlive_the_name_of_their_scene():
    scene = tentacle()
    mesh = scene.meshes[0]
    mesh.name = "renamed"
    assert scene.meshes[0].name == "renamed"
    joint = scene.joints[1]
    del scene
    gc.collect()
    assert joint.parent == 0 and joint.rest.rotation.shape == (4,)


def test_poses_transforms_and_materials_are_views():
    scene = tentacle()
    anim = scene.animations[0]
    poses = anim.poses
    assert poses.shape == (anim.frame_count, anim.channels, 10) == (24, 5, 10)
    poses[3, 2, 0] = 7.0
    rest = scene.joints[2].rest
    rest.translation[1] = 9.0
    assert scene.joints[2].rest.translation[1] == 9.0
    scene.materials[0].base_color[:] = (0.5, 0.25, 1, 1)
    assert list(scene.materials[0].base_color) == [0.5, 0.25, 1, 1]
    assert scene.animations[0].poses[3, 2, 0] == 7.0
    # q x y z w at [3:7]: unit quaternions
    np.testing.assert_allclose(np.linalg.norm(anim.poses[:, :, 3:7], axis=2), 1, rtol=1e-5)


def test_assignment_copies_in_and_checks_shapes():
    scene = meshport.Scene()
    mesh = meshport.Mesh()
    mesh.name = "quad"
    pos = meshport.VertexStream()
    pos.attribute = P
    pos.data = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=np.float64)
    mesh.streams.append(pos)
    mesh.triangles = [[0, 1, 2], [0, 2, 3]]
    scene.meshes.append(mesh)
    assert scene.meshes[0].stream(P).components == 3
    assert scene.meshes[0].triangles.shape == (2, 3)
    with pytest.raises(ValueError, match="rows of 3"):
        scene.meshes[0].triangles = [1, 2]
    with pytest.raises(ValueError):
        scene.meshes[0].stream(P).data = np.zeros(5, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        info = meshport.info(scene, format="obj")
    assert info["meshes"][0]["vertices"] == 4 and info["meshes"][0]["triangles"] == 2
    copy = scene.copy()
    copy.meshes[0].stream(P).data[0, 0] = 5
    assert scene.meshes[0].stream(P).data[0, 0] == 0 and copy != scene


def test_format_data_is_reachable_and_live():
    scene = meshport.read(str(DATA / "cli" / "turret.pie"))
    pie = scene.pie
    assert pie.version == 3 and len(pie.levels) == 2
    level = pie.levels[0]
    assert level.mesh == 0 and level.points.shape == (4, 3)
    level.points[0, 0] = 123.0
    assert scene.pie.levels[0].points[0, 0] == 123.0
    assert scene.iqm is None and scene.qmsh is None and scene.modedef is None
    model = meshport.read(str(DATA / "modedef" / "bar.model")).modedef
    assert model.kind == "model"
    m = model.models[0].model
    assert m.rest.shape == (m.node_count, 3) and m.eigenvectors.shape == (m.mode_count, 3 * m.node_count)
    tmp = meshport.read(str(DATA / "qmsh" / "cube.qmsh.tmp")).qmsh_tmp
    assert tmp.meshes[0].vertices.shape[1] == 3
