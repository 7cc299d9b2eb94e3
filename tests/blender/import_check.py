# Imports a .glb into Blender (headless) and checks what Blender sees against expected counts.
# Run: blender -b --factory-startup --python-exit-code 1 --python import_check.py -- FILE.glb \
#        --meshes N --vertices N --bones N --actions N [--frames N]
import argparse
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy

import bpy  # noqa: E402


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--meshes", type=int, required=True)
    p.add_argument("--vertices", type=int, required=True)
    p.add_argument("--bones", type=int, required=True)
    p.add_argument("--actions", type=int, required=True)
    p.add_argument("--frames", type=int)
    a = p.parse_args(argv)

    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.import_scene.gltf(filepath=a.file)
    if result != {"FINISHED"}:
        raise SystemExit(f"import failed: {result}")

    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    vertices = sum(len(o.data.vertices) for o in meshes)
    bones = sum(len(o.data.bones) for o in bpy.data.objects if o.type == "ARMATURE")
    actions = list(bpy.data.actions)
    got = {"meshes": len(meshes), "vertices": vertices, "bones": bones, "actions": len(actions)}
    want = {"meshes": a.meshes, "vertices": a.vertices, "bones": a.bones, "actions": a.actions}
    if a.frames is not None:
        got["frames"] = max(int(round(act.frame_range[1] - act.frame_range[0])) + 1 for act in actions) if actions else 0
        want["frames"] = a.frames
    print("blender saw:", got)
    if got != want:
        raise SystemExit(f"mismatch: expected {want}, got {got}")


main()
