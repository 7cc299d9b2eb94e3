# The Blender round trip with an edit, headless: each input .glb is imported into an empty scene;
# in every mesh object one vertex is moved (+1 on x: vertex 0) and one face is deleted (the
# last), as a user edits a model; then the scene is exported as .glb with custom properties on.
# Run: blender -b --factory-startup --python-exit-code 1 --python edit_roundtrip.py -- IN.glb OUT.glb ...
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy

import bmesh  # noqa: E402
import bpy  # noqa: E402


def edit(obj):
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bm.verts.ensure_lookup_table()
    bm.faces.ensure_lookup_table()
    if bm.verts:
        bm.verts[0].co.x += 1.0
    if len(bm.faces) > 1:
        bmesh.ops.delete(bm, geom=[bm.faces[-1]], context="FACES_ONLY")
    bm.to_mesh(obj.data)
    bm.free()
    obj.data.update()


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    if len(argv) % 2:
        raise SystemExit("usage: edit_roundtrip.py -- IN.glb OUT.glb [IN.glb OUT.glb]...")
    for src, dst in zip(argv[0::2], argv[1::2]):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        if bpy.ops.import_scene.gltf(filepath=src) != {"FINISHED"}:
            raise SystemExit(f"{src}: import failed")
        for obj in list(bpy.context.scene.objects):
            if obj.type == "MESH":
                edit(obj)
        if bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB", export_extras=True) != {"FINISHED"}:
            raise SystemExit(f"{dst}: export failed")
        print(f"blender edit round trip: {src} -> {dst}")


main()
