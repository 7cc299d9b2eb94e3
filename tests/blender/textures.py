# Imports a .glb into Blender (headless) and prints, as one JSON line starting with
# "meshport-textures:", what each material's Principled BSDF takes from image textures: per
# socket (Base Color, Normal, Specular, Emission), the image's size and its pixels as bytes
# (RGBA, 0..255, rows bottom to top as Blender stores them).
# Run: blender -b --factory-startup --python-exit-code 1 --python textures.py -- FILE.glb
import json
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy

import bpy  # noqa: E402


def image_behind(socket):
    """The image of the Image Texture node feeding `socket`, through a Normal Map node if any."""
    for link in socket.links:
        node = link.from_node
        if node.type == "NORMAL_MAP":
            return image_behind(node.inputs["Color"])
        if node.type == "TEX_IMAGE" and node.image is not None:
            return node.image
        for inp in node.inputs:  # e.g. a Separate/Mix node between them
            img = image_behind(inp)
            if img is not None:
                return img
    return None


def main():
    path = sys.argv[sys.argv.index("--") + 1]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if bpy.ops.import_scene.gltf(filepath=path) != {"FINISHED"}:
        raise SystemExit("import failed")
    out = {}
    for mat in bpy.data.materials:
        if not mat.use_nodes:
            continue
        bsdf = next((n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
        if bsdf is None:
            continue
        entry = {}
        for socket in ("Base Color", "Normal", "Specular", "Emission"):
            img = image_behind(bsdf.inputs[socket])
            if img is None:
                continue
            w, h = img.size
            px = [int(round(v * 255)) for v in img.pixels[:]]
            entry[socket] = {"width": w, "height": h, "pixels": px}
        out[mat.name] = entry
    print("meshport-textures:" + json.dumps(out))


main()
