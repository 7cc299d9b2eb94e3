# The Blender edit round trip, headless: each input .glb is imported into an empty scene and
# exported again as .glb with custom properties (extras) on, as a user does who opens a model in
# Blender, edits nothing and exports it with "Include > Custom Properties" ticked.
# Run: blender -b --factory-startup --python-exit-code 1 --python roundtrip.py -- [--fps N[/D]] IN.glb OUT.glb ...
# One Blender process handles every pair (Blender's start-up is most of the time). `--fps N` sets
# the scene's frame rate (Output Properties > Format > Frame Rate) before the pairs after it are
# imported, as docs/gltf-obj.md tells users to do for a model whose frame rate does not divide
# Blender's default 24: Blender places keys at time x frame rate and samples whole frames on export.
# `--fps N/D` sets a fractional rate as Blender holds one, N / D (Frame Rate "Custom", Base D):
# 1000/150 plays a PIE ANIMOBJECT of 150 ms exactly.
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy

import bpy  # noqa: E402


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    jobs, fps = [], (24, 1)
    while argv:
        if argv[0] == "--fps" and len(argv) > 1:
            num, _, den = argv[1].partition("/")
            fps = (int(num), float(den or 1))
            argv = argv[2:]
        elif len(argv) > 1:
            jobs.append((argv[0], argv[1], fps))
            argv = argv[2:]
        else:
            raise SystemExit("usage: roundtrip.py -- [--fps N[/D]] IN.glb OUT.glb [[--fps N[/D]] IN.glb OUT.glb]...")
    for src, dst, fps in jobs:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.context.scene.render.fps = fps[0]
        bpy.context.scene.render.fps_base = fps[1]
        if bpy.ops.import_scene.gltf(filepath=src) != {"FINISHED"}:
            raise SystemExit(f"{src}: import failed")
        # export_extras is the export dialog's "Custom Properties" (Include panel); off by default.
        if bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB", export_extras=True) != {"FINISHED"}:
            raise SystemExit(f"{dst}: export failed")
        print(f"blender round trip: {src} -> {dst}")


main()
