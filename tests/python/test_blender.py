# Blender 3.4 imports the module: Debian's Blender runs Debian's Python 3.11 (the interpreter these
# tests run on), so the extension built here loads in it unchanged once its folder is on sys.path.
# Inside Blender: read a PIE, make a Blender mesh from the numpy views (foreach_set), move a vertex
# through the view and write a .glb. Fails, not skips, without blender (make test installs it).
import os
import shutil
import subprocess
import sys

import meshport
from conftest import DATA

SCRIPT = r"""
import sys
sys.path.insert(0, {folder!r})
import bpy
import meshport
scene = meshport.read({pie!r})
mesh = scene.meshes[0]
pos = mesh.stream(meshport.Attribute.POSITION).data
me = bpy.data.meshes.new(mesh.name)
me.vertices.add(len(pos))
me.vertices.foreach_set("co", pos.ravel())
tri = mesh.triangles
me.loops.add(tri.size)
me.loops.foreach_set("vertex_index", tri.ravel().astype("int32"))
me.polygons.add(len(tri))
me.polygons.foreach_set("loop_start", (tri[:, 0] * 0 + 3).cumsum().astype("int32") - 3)
me.polygons.foreach_set("loop_total", [3] * len(tri))
me.update()
pos[0, 1] += 2.5
meshport.write(scene, {out!r})
print("MESHPORT-IN-BLENDER", sys.version_info[:2], meshport.__file__, len(scene.pie.levels), len(me.vertices),
      len(me.polygons), meshport.read({out!r}).meshes[0].stream(meshport.Attribute.POSITION).data[0, 1])
"""


def test_blender_imports_the_module(tmp_path):
    blender = shutil.which("blender")
    assert blender, "blender is not installed (make test installs it: scripts/install-deps.sh)"
    folder = os.path.dirname(os.path.dirname(meshport.__file__))
    script = tmp_path / "script.py"
    out = tmp_path / "moved.glb"
    script.write_text(SCRIPT.format(folder=folder, pie=str(DATA / "cli" / "turret.pie"), out=str(out)))
    r = subprocess.run([blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(script)],
                       capture_output=True, text=True, timeout=240)
    lines = [l for l in r.stdout.splitlines() if l.startswith("MESHPORT-IN-BLENDER")]
    assert r.returncode == 0 and lines, r.stdout[-3000:] + r.stderr[-3000:]
    version, file, levels, vertices, polygons, moved_y = lines[0].split(" ", 1)[1].rsplit(" ", 5)
    assert version == str(sys.version_info[:2])  # Blender's Python is the one the module was built for
    assert file == meshport.__file__
    original = meshport.read(str(DATA / "cli" / "turret.pie"))
    assert (int(levels), int(vertices), int(polygons)) == (2, original.meshes[0].vertex_count,
                                                          len(original.meshes[0].triangles))
    assert float(moved_y) == original.meshes[0].stream(meshport.Attribute.POSITION).data[0, 1] + 2.5
