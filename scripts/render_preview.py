# Renders a glTF/GLB as Blender's glTF importer shows it: a picture to look at (make demo) and to
# compare with the original's (docs/textures.md). Headless, Cycles on the CPU (background
# Blender has no OpenGL for Eevee or Workbench), a camera framing the model from the front-right
# and above, one sun and a grey world.
# Run: blender -b --factory-startup --python-exit-code 1 --python render_preview.py -- IN.glb OUT.png [SIZE]
import math
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    src, out = args[0], args[1]
    size = int(args[2]) if len(args) > 2 else 480
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if bpy.ops.import_scene.gltf(filepath=src) != {"FINISHED"}:
        raise SystemExit("import failed")
    scene = bpy.context.scene
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if not meshes:
        raise SystemExit("no meshes to render")
    corners = [o.matrix_world @ Vector(c) for o in meshes for c in o.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    centre, radius = (lo + hi) / 2, max((hi - lo).length / 2, 1e-3)

    cam_data = bpy.data.cameras.new("preview")
    cam_data.lens = 50
    cam = bpy.data.objects.new("preview", cam_data)
    scene.collection.objects.link(cam)
    direction = Vector((1.0, -1.6, 0.9)).normalized()  # Blender is Z up: front-right, above
    fov = 2 * math.atan(cam_data.sensor_width / (2 * cam_data.lens))
    cam.location = centre + direction * (radius / math.sin(fov / 2) * 1.05)
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam

    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new("grey")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.35, 0.35, 0.38, 1)
    scene.world = world

    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 16
    scene.cycles.use_denoising = False
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = out
    bpy.ops.render.render(write_still=True)


main()
