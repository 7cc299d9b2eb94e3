# The QMSH.TMP and ModeDef .state/.path data bound beyond the Scene (docs/python.md, "The Scene"):
# read from tests/data, every value checked against the file's text, one changed through its
# reference or view, written, and read back.
import warnings

import numpy as np
import pytest

import meshport
from conftest import DATA

QMSH = DATA / "qmsh"
STATE = DATA / "modedef" / "state"


def quiet_read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bone-fields has envelopes, curves has actions without bones
        return meshport.read(str(path))


def quiet_write(scene, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        meshport.write(scene, str(path))


def test_qmsh_tmp_armature_and_bones(tmp_path):
    q = quiet_read(QMSH / "bone-fields.qmsh.tmp").qmsh_tmp
    arm = q.armature
    assert q.has_armature and arm.name == "Rig" and (arm.vertex_groups, arm.envelopes) == (1, 1)
    assert arm.position.tolist() == [1.5, -2.5, 3.5] and arm.size.tolist() == [1, 2, 4]
    np.testing.assert_array_equal(arm.orientation, np.float32([0.1, -0.2, 0.3]))
    assert [b.name for b in arm.bones] == ["Parent", "Child"] and [b.parent for b in arm.bones] == ["", "Parent"]
    b = arm.bones[1]
    assert b.head_bone.tolist() == [-1, -2, -3] and b.head_armature.tolist() == [-4, -5, -6]
    assert b.tail_bone.tolist() == [-7, -8, -9] and b.tail_armature.tolist() == [-10, -11, -12]
    assert (b.head_radius, b.tail_radius) == (np.float32(1e-3), 200)
    assert (b.roll_bone, b.roll_armature, b.length, b.weight) == (-0.125, 3.25, 12.5, 0)
    assert b.matrix_bone.tolist() == [-1, -2, -3, -4, -5, -6, -7, -8, -9]
    assert b.matrix_armature.tolist() == [-(10 * r + c) for r in range(1, 5) for c in range(1, 5)]
    scene = quiet_read(QMSH / "bone-fields.qmsh.tmp")
    scene.qmsh_tmp.armature.bones[1].weight = 7.5
    scene.qmsh_tmp.armature.bones[1].head_bone[1] = -2.25
    scene.qmsh_tmp.armature.bones[1].matrix_armature[15] = 45
    quiet_write(scene, tmp_path / "out.qmsh.tmp")
    text = (tmp_path / "out.qmsh.tmp").read_text()
    assert "head -1,-2.25,-3 -4,-5,-6 0.001" in text and "12.5 7.5" in text and "-41, -42, -43, 45;" in text
    back = quiet_read(tmp_path / "out.qmsh.tmp").qmsh_tmp.armature.bones[1]
    assert (back.weight, back.head_bone.tolist(), back.matrix_armature[15]) == (7.5, [-1, -2.25, -3], 45)


def test_qmsh_tmp_faces(tmp_path):
    scene = quiet_read(QMSH / "cube.qmsh.tmp")
    mesh = scene.qmsh_tmp.meshes[0]
    assert len(mesh.faces) == 7 and mesh.materials == ["Red", "Blue"] and len(mesh.vertex_groups) == 0
    first, last = mesh.faces[0], mesh.faces[6]  # "4 1 0 0 1,1 1 1,0 2 0,0 3 0,1", "3 0 0 4 0,1 3 1,0 7 1,1"
    assert (first.count, first.material, first.smooth) == (4, 1, 0) and first.vertex.tolist() == [0, 1, 2, 3]
    assert first.uv.tolist() == [[1, 1], [1, 0], [0, 0], [0, 1]]
    assert (last.count, last.material) == (3, 0) and last.vertex[:3].tolist() == [4, 3, 7]
    assert last.uv[:3].tolist() == [[0, 1], [1, 0], [1, 1]]
    last.uv[2] = (0.5, 0.25)
    last.material = 1
    quiet_write(scene, tmp_path / "out.qmsh.tmp")
    assert "\t\t\t3 1 0 4 0,1 3 1,0 7 0.5,0.25\n" in (tmp_path / "out.qmsh.tmp").read_text()
    back = quiet_read(tmp_path / "out.qmsh.tmp").qmsh_tmp.meshes[0].faces[6]
    assert back.material == 1 and back.uv[:3].tolist() == [[0, 1], [1, 0], [0.5, 0.25]]


def test_qmsh_tmp_actions_and_curves(tmp_path):
    scene = quiet_read(QMSH / "curves.qmsh.tmp")
    q = scene.qmsh_tmp
    C = meshport.QmshTmpCurve
    assert q.fps == [24, 30] and [a.name for a in q.actions] == ["All", "Nothing"]
    curves = q.actions[0].channels[0].curves
    assert [c.name for c in q.actions[0].channels] == ["Bone", "NoCurves"] and len(curves) == 13
    assert len(q.actions[0].channels[1].curves) == 0 and len(q.actions[1].channels) == 0
    assert [(c.interpolation, c.extend) for c in curves[:12]] == [
        (i, e) for i in (C.Interpolation.CONST, C.Interpolation.LINEAR, C.Interpolation.BEZIER)
        for e in (C.Extend.CONST, C.Extend.EXTRAP, C.Extend.CYCLIC, C.Extend.CYCLIC_EXTRAP)]
    assert curves[4].name == "LINEAR_CONST" and curves[4].points.tolist() == [[1, 4], [2.5, -4.5], [10, 8]]
    assert curves[12].name == "Empty" and curves[12].points.shape == (0, 2)
    curves[4].points[1] = (3.5, -4.75)
    curves[12].points = np.float32([[0, 1], [2, 3]])
    quiet_write(scene, tmp_path / "out.qmsh.tmp")
    text = (tmp_path / "out.qmsh.tmp").read_text()
    assert '"LINEAR_CONST" LINEAR CONST { 1,4 3.5,-4.75 10,8 }' in text and '"Empty" LINEAR CONST { 0,1 2,3 }' in text
    back = quiet_read(tmp_path / "out.qmsh.tmp").qmsh_tmp.actions[0].channels[0].curves
    assert back[4].points.tolist() == [[1, 4], [3.5, -4.75], [10, 8]] and back[12].points.tolist() == [[0, 1], [2, 3]]


def test_modedef_state_objects_planes_constraints_and_paths(tmp_path):
    scene = meshport.read(str(STATE / "scene.state"))
    d = scene.modedef
    st = d.state
    assert d.kind == "state" and (st.fps, st.use_penalty, st.friction) == (30, 1, np.float32(0.3))
    assert (st.max_penetration, st.cluster_factor, st.cluster_radius) == (np.float32(0.01), 0.5, np.float32(0.2))
    assert [o.name for o in st.objects] == ["box.prop", "./box.prop", "props/ball.prop"]
    o = st.objects[0]  # box.prop a / 1 2 3 / 0.70710678 0 0.70710678 0 / 0.1 0.2 0.3 / 0.4 0.5 0.6 / -1 -1 / fly.path
    assert o.animated and o.path_file == "fly.path" and (o.birth, o.death) == (-1, -1)
    assert o.position.tolist() == [1, 2, 3] and o.rotation.tolist() == np.float32([0.70710678, 0, 0.70710678, 0]).tolist()
    np.testing.assert_array_equal(o.velocity, np.float32([0.1, 0.2, 0.3]))
    np.testing.assert_array_equal(o.angular_velocity, np.float32([0.4, 0.5, 0.6]))
    assert (st.objects[1].birth, st.objects[1].death) == (0.5, np.float32(0.8)) and not st.objects[1].animated
    assert [(p.normal.tolist(), p.point.tolist()) for p in st.planes] == [([0, 1, 0], [0, -1, 0]), ([0, 0, 2], [0, 0, -5])]
    assert [(c.body1, c.body2, c.point.tolist()) for c in st.constraints] == [(-1, 0, [1, 2, 3]), (0, 2, [4, 5, 6])]
    assert [p.file for p in d.paths] == ["fly.path"]
    path = d.paths[0].path
    assert [(k.time, k.value.tolist()) for k in path.translation] == [(0, [0, 0, 0]), (1, [2, 4, 6])]
    assert [k.time for k in path.rotation] == [0.5, 1] and path.rotation[1].value[2] == np.float32(1.5707963)
    assert d.object_prop.tolist() == [0, 0, 1] and d.object_path.tolist() == [0, -1, -1]

    st.objects[2].position[:] = (-1.5, 0, 0.25)
    st.planes[1].point[2] = -6
    st.constraints[1].body2 = 1
    path.translation[1].value[2] = 6.5
    meshport.write(scene, str(tmp_path / "scene.state"))
    assert "-1.5 0 0.25\n" in (tmp_path / "scene.state").read_text()
    assert "1  2 4 6.5\n" in (tmp_path / "fly.path").read_text()
    back = meshport.read(str(tmp_path / "scene.state")).modedef
    assert back.state.objects[2].position.tolist() == [-1.5, 0, 0.25] and back.state.planes[1].point.tolist() == [0, 0, -6]
    assert (back.state.constraints[1].body1, back.state.constraints[1].body2) == (0, 1)
    assert back.paths[0].path.translation[1].value.tolist() == [2, 4, 6.5]


def test_modedef_path_read_alone(tmp_path):
    scene = meshport.read(str(STATE / "fly.path"))
    d = scene.modedef
    assert d.kind == "path" and [p.file for p in d.paths] == ["fly.path"]
    keys = d.paths[0].path.rotation
    assert [(k.time, k.value.tolist()) for k in keys] == [(0.5, [0, 0, 0]), (1, [0, 0, np.float32(1.5707963)])]
    keys[0].time = 0.25
    meshport.write(scene, str(tmp_path / "fly.path"))
    assert meshport.read(str(tmp_path / "fly.path")).modedef.paths[0].path.rotation[0].time == 0.25


def test_an_edited_qmsh_tmp_face_is_checked_when_written(tmp_path):
    # Before, a face of 1000 corners or a vertex index past the mesh was printed as it was: a file
    # the reader refuses.
    scene = quiet_read(QMSH / "cube.qmsh.tmp")
    face = scene.qmsh_tmp.meshes[0].faces[0]
    face.count = 1000
    with pytest.raises(meshport.Error) as e:
        quiet_write(scene, tmp_path / "a.qmsh.tmp")
    assert e.value.message == 'object "Cube": face 0 has 1000 corners (3 or 4)'
    face.count = 4
    face.vertex[3] = 8
    with pytest.raises(meshport.Error) as e:
        quiet_write(scene, tmp_path / "b.qmsh.tmp")
    assert e.value.message == 'object "Cube": face 0: vertex index 8 out of range (8 vertices)'
    face.vertex[3] = 3
    quiet_write(scene, tmp_path / "c.qmsh.tmp")
    assert (tmp_path / "c.qmsh.tmp").read_text() == meshport.write(quiet_read(QMSH / "cube.qmsh.tmp"), format="qmsh-tmp").decode()


def test_an_edited_modedef_constraint_is_checked_when_written(tmp_path):
    # Before, a constraint body past the objects was written as it was: a .state the reader refuses.
    scene = meshport.read(str(STATE / "scene.state"))
    scene.modedef.state.constraints[1].body2 = 3
    with pytest.raises(meshport.Error) as e:
        meshport.write(scene, str(tmp_path / "scene.state"))
    assert e.value.message == ("ModeDef .state: constraint 1 joins bodies 0 and 3, not -1 (static, the first only) "
                               "or object indices (the .state has 3 objects)")
    scene.modedef.state.constraints[1].body2 = 2
    scene.modedef.state.constraints[0].body1 = -2
    with pytest.raises(meshport.Error):
        meshport.write(scene, str(tmp_path / "scene.state"))
    assert not (tmp_path / "scene.state").exists()
