"""meshport for Python: read, write and convert 3D game model formats (docs/python.md).

    import meshport
    scene = meshport.read("tank.pie")
    scene.meshes[0].stream(meshport.Attribute.POSITION).data[0] += (0, 1, 0)
    meshport.write(scene, "tank.glb")

Everything but the interop below is the C++ library's, through the extension meshport._meshport:
the Scene's lists hold references into it and its arrays are numpy views of its memory.
"""
from ._meshport import *  # noqa: F401,F403
from ._meshport import (Attribute, Error, Mesh, MeshportNote, MeshportWarning, Scene, VertexStream,  # noqa: F401
                        __version__, read, write)

import numpy as _np

__all__ = [name for name in dir() if not name.startswith("_")] + ["to_trimesh", "from_trimesh", "to_glb", "from_glb"]


def to_glb(scene):
    """The Scene as GLB bytes: for any tool that reads glTF (trimesh.load(io.BytesIO(b), file_type="glb"))."""
    return write(scene, format="glb")


def from_glb(data, name="<bytes>"):
    """A Scene from GLB bytes."""
    return read(data, "glb", name=name)


def _trimesh():
    try:
        import trimesh
    except ImportError as e:
        raise ImportError("meshport.to_trimesh needs the trimesh package (pip install trimesh; Debian 12 has no "
                          "python3-trimesh): without it, pass meshport.to_glb(scene) to your tool") from e
    return trimesh


def _mesh_to_trimesh(trimesh, mesh):
    positions = mesh.stream(Attribute.POSITION)
    if positions is None or mesh.topology != Topology.TRIANGLES:  # noqa: F405
        return None
    kwargs = {"vertices": _np.array(positions.data[:, :3]), "faces": _np.array(mesh.triangles, dtype=_np.int64),
              "process": False}
    normals = mesh.stream(Attribute.NORMAL)
    if normals is not None:
        kwargs["vertex_normals"] = _np.array(normals.data[:, :3])
    uv = mesh.stream(Attribute.TEXCOORD)
    if uv is not None:
        # trimesh keeps OpenGL's v (up); the Scene glTF's (down).
        uv = _np.array(uv.data[:, :2])
        uv[:, 1] = 1.0 - uv[:, 1]
        kwargs["visual"] = trimesh.visual.TextureVisuals(uv=uv)
    return trimesh.Trimesh(**kwargs)


def to_trimesh(scene, mesh=None):
    """The Scene's triangle meshes as trimesh objects (copies): a trimesh.Trimesh for `mesh` (an index)
    or when the Scene has one mesh, else a trimesh.Scene of them by name. Lines, points, skeletons,
    animations and materials are not carried (use to_glb for those). Needs trimesh."""
    trimesh = _trimesh()
    if mesh is not None:
        return _mesh_to_trimesh(trimesh, scene.meshes[mesh])
    meshes = [(m.name or "mesh%d" % i, _mesh_to_trimesh(trimesh, m)) for i, m in enumerate(scene.meshes)]
    meshes = [(n, t) for n, t in meshes if t is not None]
    if len(meshes) == 1:
        return meshes[0][1]
    out = trimesh.Scene()
    for name, t in meshes:
        out.add_geometry(t, geom_name=name)
    return out


def _stream(attribute, values, name=""):
    s = VertexStream()
    s.attribute = attribute
    s.name = name
    s.data = _np.ascontiguousarray(values, dtype=_np.float32)
    return s


def _mesh_from_trimesh(name, t):
    m = Mesh()
    m.name = name
    vertices = _np.asarray(t.vertices, dtype=_np.float32).reshape(-1, 3)
    m.streams.append(_stream(Attribute.POSITION, vertices))
    normals = getattr(t, "vertex_normals", None)
    if normals is not None and len(normals) == len(vertices):
        m.streams.append(_stream(Attribute.NORMAL, _np.asarray(normals).reshape(-1, 3)))
    uv = getattr(getattr(t, "visual", None), "uv", None)
    if uv is not None and len(uv) == len(vertices):
        uv = _np.array(uv, dtype=_np.float32).reshape(-1, 2)
        uv[:, 1] = 1.0 - uv[:, 1]
        m.streams.append(_stream(Attribute.TEXCOORD, uv))
    faces = _np.asarray(t.faces)
    if faces.size and (faces.min() < 0 or faces.max() >= len(vertices)):
        raise ValueError("from_trimesh: mesh %r has faces naming vertices it does not have" % name)
    m.triangles = faces.astype(_np.uint32).reshape(-1, 3)
    return m


def from_trimesh(obj):
    """A Scene from a trimesh.Trimesh or trimesh.Scene (duck-typed: anything with `vertices` and
    `faces`, optionally `vertex_normals` and `visual.uv`; or with a `geometry` dict of such). The
    arrays are copied. Does not import trimesh."""
    scene = Scene()
    geometry = getattr(obj, "geometry", None)
    items = list(geometry.items()) if isinstance(geometry, dict) else [(getattr(obj, "metadata", {}).get("name", "mesh")
                                                                        if isinstance(getattr(obj, "metadata", None), dict)
                                                                        else "mesh", obj)]
    for name, t in items:
        scene.meshes.append(_mesh_from_trimesh(str(name), t))
    return scene
