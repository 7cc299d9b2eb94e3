# Imports a .glb into Blender (headless), plays it at the given times and writes what Blender
# shows: every mesh object's evaluated vertices (shape keys, armature) in world space, in glTF
# axes (Y up), as JSON {"<mesh name>": [[x, y, z, x, y, z, ...] per time]}. Optionally exports
# the scene again (custom properties on), as a user's round trip would.
# Run: blender -b --factory-startup --python-exit-code 1 --python morph_positions.py -- \
#        IN.glb OUT.json --fps F --times T1,T2,... [--export OUT.glb]
import argparse
import json
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy

import bpy  # noqa: E402


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("out")
    p.add_argument("--fps", type=int, required=True)
    p.add_argument("--times", required=True)
    p.add_argument("--export")
    a = p.parse_args(argv)

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = a.fps  # the importer places key t at frame t * fps
    scene.render.fps_base = 1
    if bpy.ops.import_scene.gltf(filepath=a.file) != {"FINISHED"}:
        raise SystemExit("import failed")
    # The importer leaves the clips stashed; the first one plays (as in Blender's own viewport).
    result = {}
    times = [float(t) for t in a.times.split(",")]
    meshes = [o for o in scene.objects if o.type == "MESH"]
    for o in meshes:
        result[o.data.name] = []
    for t in times:
        f = t * a.fps
        scene.frame_set(int(f), subframe=f - int(f))
        depsgraph = bpy.context.evaluated_depsgraph_get()
        for o in meshes:
            ev = o.evaluated_get(depsgraph)
            m = ev.to_mesh()
            w = ev.matrix_world
            xyz = []
            for v in m.vertices:
                q = w @ v.co
                xyz += [q.x, q.z, -q.y]  # Blender Z up -> glTF Y up
            ev.to_mesh_clear()
            result[o.data.name].append(xyz)
    with open(a.out, "w") as f:
        json.dump(result, f)
    if a.export:
        bpy.ops.export_scene.gltf(filepath=a.export, export_format="GLB", export_extras=True)


main()
