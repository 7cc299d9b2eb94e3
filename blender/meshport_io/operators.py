"""File > Import and File > Export operators: meshport convert to / from a temporary .glb, and
Blender's own glTF importer / exporter (with custom properties, which keep each format's data)."""

import os
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import cli, formats

ADDON = __package__
MAX_REPORTS = 20  # warnings shown one by one; the rest are counted (all are in the console and the log)


class MeshportPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON

    executable: StringProperty(
        name="meshport executable",
        description=("Path of the meshport command line program (empty: $MESHPORT_EXE, else the one bundled "
                     "with the add-on for this system, else meshport on PATH)"),
        subtype="FILE_PATH",
        default="",
    )

    def draw(self, context):
        self.layout.prop(self, "executable")
        try:
            self.layout.label(text="Using " + cli.find_executable(self.executable))
        except cli.MeshportError as e:
            self.layout.label(text=str(e), icon="ERROR")


def executable(context):
    addon = context.preferences.addons.get(ADDON)
    return cli.find_executable(addon.preferences.executable if addon else "")


def numpy_compat():
    """Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 to 1.26 removed."""
    try:
        import numpy
    except ImportError:
        return
    if "bool" not in numpy.__dict__:
        numpy.bool = bool


NORMALS = (
    ("DEFAULT", "Default", "meshport's default: generate normals for meshes without them, unless writing the "
                           "input's own format"),
    ("GENERATE", "Generate", "Generate normals for meshes without them (--normals)"),
    ("NONE", "None", "Do not generate normals (--no-normals)"),
    ("RECOMPUTE", "Recompute", "Replace existing normals too (--recompute-normals)"),
)
TANGENTS = (
    ("DEFAULT", "Default", "meshport's default: generate tangents for meshes with normals and texture coordinates "
                           "but none, unless writing the input's own format"),
    ("GENERATE", "Generate", "Generate missing tangents (--tangents)"),
    ("NONE", "None", "Do not generate tangents (--no-tangents)"),
    ("RECOMPUTE", "Recompute", "Replace existing tangents too (--recompute-tangents)"),
)


def temp_glb(folder, path):
    """The .glb in `folder` that stands for the model file `path` on its way through glTF."""
    return os.path.join(folder, (os.path.basename(path).split(".")[0] or "model") + ".glb")


class Processing:
    """meshport convert's processing options, shared by every operator (off by default: the
    round trip gives the format's own data back)."""

    flip_winding: BoolProperty(name="Flip winding", description="Reverse every triangle (--flip-winding)")
    flip_v: BoolProperty(name="Flip V", description="Flip texture coordinates vertically (--flip-v)")
    scale: FloatProperty(name="Scale", description="Scale meshes, skeleton and animations (--scale)",
                         default=1.0, min=1e-6, soft_min=0.001, soft_max=1000.0)
    weld: BoolProperty(name="Weld", description="Weld identical vertices and drop unused ones (--weld)")
    simplify: FloatProperty(name="Simplify", description="Keep this ratio of each mesh's triangles (--simplify; 1: off)",
                            default=1.0, min=0.0, max=1.0, subtype="FACTOR")
    normals: EnumProperty(name="Normals", items=NORMALS, default="DEFAULT")
    tangents: EnumProperty(name="Tangents", items=TANGENTS, default="DEFAULT")
    use_smooth_angle: BoolProperty(name="Auto smooth", description="One auto-smooth angle for every face, replacing "
                                   "the file's smoothing rules (--smooth-angle)")
    smooth_angle: FloatProperty(name="Smooth angle", description="Degrees: 0 faceted, 180 smooth",
                                default=30.0, min=0.0, max=180.0)
    optimize: BoolProperty(name="Optimize", description="Optimise vertex cache and fetch order (--optimize)")

    def convert_options(self):
        keys = [k for k in ("flip_winding", "flip_v", "scale", "weld", "simplify", "normals", "tangents",
                            "use_smooth_angle", "smooth_angle", "optimize", "pie_version", "no_adjacency",
                            "no_bounds", "modes_animation") if hasattr(self, k)]
        return {k: getattr(self, k) for k in keys}

    def show(self, context, result, done):
        """Reports meshport's warnings (and prints them), keeps them in the window manager's
        meshport_log, and says what was done."""
        lines = [f"meshport: {w}" for w in result.warnings]
        for line in lines:
            print(line)
        for line in lines[:MAX_REPORTS]:
            self.report({"WARNING"}, line)
        if len(lines) > MAX_REPORTS:
            self.report({"WARNING"}, f"meshport: {len(lines) - MAX_REPORTS} more warnings (see the system console)")
        context.window_manager.meshport_log = "\n".join(result.warnings)
        self.report({"INFO"}, done + (f" ({len(lines)} warnings)" if lines else ""))

    def execute(self, context):
        try:
            return self.run(context)
        except cli.MeshportError as e:
            return self.fail(context, str(e))

    def fail(self, context, message):
        print(f"meshport: {message}")
        context.window_manager.meshport_log = message
        self.report({"ERROR"}, message)
        return {"CANCELLED"}


class ImportBase(Processing, ImportHelper):
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    texture_folders: StringProperty(
        name="Texture folders",
        description="Folders searched for textures after the model's folder, in order, separated by ';' (--textures)",
        default="",
    )
    set_frame_rate: BoolProperty(
        name="Set scene frame rate",
        description="Set the scene's frame rate to the model's animations' before importing, so that every key "
                    "falls on a frame (Blender samples whole frames on export)",
        default=True,
    )

    def run(self, context):
        exe = executable(context)
        source = self.filepath
        if not os.path.isfile(source):
            return self.fail(context, f"{source}: no such file")
        o = self.convert_options()
        o["texture_folders"] = [bpy.path.abspath(f.strip()) for f in self.texture_folders.split(";") if f.strip()]
        name = self.fmt.name or formats.modedef_name(source)
        with tempfile.TemporaryDirectory(prefix="meshport_") as tmp:
            glb = temp_glb(tmp, source)
            result = cli.convert(exe, source, glb, o, from_=name, to="glb",
                                 replacements=[(glb, os.path.basename(source) + " (as glTF)")])
            done = f"Imported {os.path.basename(source)}"
            if self.set_frame_rate:
                rate = cli.frame_rate(cli.animation_rates(cli.info(exe, glb).get("animations", [])))
                render = context.scene.render
                if rate and (render.fps, render.fps_base) != rate:
                    render.fps, render.fps_base = rate
                    done += f"; scene frame rate set to {render.fps / render.fps_base:g} fps"
            numpy_compat()
            actions = set(bpy.data.actions)
            try:
                status = bpy.ops.import_scene.gltf(filepath=glb)
            except RuntimeError as e:
                return self.fail(context, f"Blender's glTF importer failed: {e}")
            if status != {"FINISHED"}:
                return self.fail(context, "Blender's glTF importer failed")
            # Keys just before whole frames (TFQMSH10's): the actions end on that frame, so that
            # the exporter samples it.
            for action in set(bpy.data.actions) - actions:
                snapped = cli.whole_frame_range(*action.frame_range)
                if snapped:
                    action.use_frame_range = True
                    action.frame_start, action.frame_end = snapped
            # The importer reads images from the .glb: keep them in the .blend, the file goes.
            for image in bpy.data.images:
                if image.filepath and os.path.abspath(bpy.path.abspath(image.filepath)).startswith(tmp) \
                        and image.packed_file is None:
                    image.pack()
        self.show(context, result, done)
        return {"FINISHED"}


class ExportBase(Processing, ExportHelper):
    bl_options = {"REGISTER", "PRESET"}

    use_selection: BoolProperty(name="Selected only", description="Export the selected objects only", default=False)

    def target_name(self):
        return self.fmt.name

    def target_path(self):
        path = self.filepath
        if not any(path.lower().endswith(e) for e in self.fmt.extensions):
            path += self.fmt.extensions[0]
        return path

    def run(self, context):
        exe = executable(context)
        target = bpy.path.abspath(self.target_path())
        if not os.path.isdir(os.path.dirname(os.path.abspath(target))):
            return self.fail(context, f"{target}: no such folder")
        with tempfile.TemporaryDirectory(prefix="meshport_") as tmp:
            glb = temp_glb(tmp, target)
            numpy_compat()
            try:
                # Custom properties (extras) carry each format's own data through Blender.
                status = bpy.ops.export_scene.gltf(filepath=glb, check_existing=False, export_format="GLB",
                                                   export_extras=True, use_selection=self.use_selection)
            except RuntimeError as e:
                return self.fail(context, f"Blender's glTF exporter failed: {e}")
            if status != {"FINISHED"} or not os.path.isfile(glb):
                return self.fail(context, "Blender's glTF exporter failed")
            result = cli.convert(exe, glb, target, self.convert_options(), from_="glb", to=self.target_name(),
                                 replacements=[(glb, "Blender's glTF export")])
        self.show(context, result, f"Exported {os.path.basename(target)}")
        return {"FINISHED"}


# Format-specific options: (import annotations, export annotations).
def format_options(key):
    if key == "pie":
        return {}, {"pie_version": EnumProperty(
            name="PIE version",
            items=(("SOURCE", "Source's", "The version of the PIE file the model was imported from, else 4"),
                   ("2", "PIE 2", "Integer texture coordinates in pixels of a 256 x 256 page"),
                   ("3", "PIE 3", "Float texture coordinates"),
                   ("4", "PIE 4", "PIE 3 with team colour masks, normal and specular maps, INTERPOLATE")),
            default="SOURCE")}
    if key == "iqm":
        return {}, {"no_adjacency": BoolProperty(name="No adjacency", description="Do not write triangle "
                                                 "adjacency (--no-adjacency)"),
                    "no_bounds": BoolProperty(name="No bounds", description="Do not write per-frame bounds "
                                              "(--no-bounds)")}
    if key == "modedef":
        kinds = (("EXTENSION", "By file name", "The kind the file name's extension says (.model when none)"),)
        kinds += tuple((ext[1:].upper(), label, name) for ext, name, label in formats.MODEDEF_KINDS)
        return ({"modes_animation": BoolProperty(name="Modes animation", description="Add an animation 'modes' "
                                                 "playing each vibration mode in turn (--modes-animation)")},
                {"modedef_kind": EnumProperty(name="File", items=kinds, default="EXTENSION")})
    return {}, {}


class ModeDefExport:
    """ModeDef writes one of four kinds of file: the kind chosen, else the file name's."""

    def kind_extension(self):
        if self.modedef_kind == "EXTENSION":
            return None
        return "." + self.modedef_kind.lower()

    def target_path(self):
        path, ext = self.filepath, self.kind_extension()
        known = next((e for e in self.fmt.extensions if path.lower().endswith(e)), None)
        if ext is None:
            return path if known else path + self.fmt.extensions[0]
        return (path[:-len(known)] if known else path) + ext

    def target_name(self):
        return formats.modedef_name(self.target_path())

    def check(self, context):
        path = self.target_path()
        if path != self.filepath:
            self.filepath = path
            return True
        return False


def make_classes():
    classes, importers, exporters = [], [], []
    for f in formats.FORMATS:
        imp_opts, exp_opts = format_options(f.key)
        common = {"fmt": f, "filename_ext": f.extensions[0], "menu_label": f.label}
        glob = {"filter_glob": StringProperty(default=formats.glob_of(f), options={"HIDDEN"})}
        imp = type(f"MESHPORT_OT_import_{f.key}", (ImportBase, bpy.types.Operator), dict(
            common, bl_idname=f"import_scene.meshport_{f.key}", bl_label=f"Import {f.label}",
            bl_description=f"Import {f.label} through meshport and glTF", __annotations__=dict(glob, **imp_opts)))
        bases = (ModeDefExport, ExportBase, bpy.types.Operator) if f.key == "modedef" else (ExportBase, bpy.types.Operator)
        exp = type(f"MESHPORT_OT_export_{f.key}", bases, dict(
            common, bl_idname=f"export_scene.meshport_{f.key}", bl_label=f"Export {f.label}",
            bl_description=f"Export {f.label} through glTF and meshport", __annotations__=dict(glob, **exp_opts)))
        importers.append(imp)
        exporters.append(exp)
    classes = [MeshportPreferences] + importers + exporters
    return classes, importers, exporters


CLASSES, IMPORTERS, EXPORTERS = make_classes()


def menu_import(self, context):
    for c in IMPORTERS:
        self.layout.operator(c.bl_idname, text=c.menu_label + " [meshport]")


def menu_export(self, context):
    for c in EXPORTERS:
        self.layout.operator(c.bl_idname, text=c.menu_label + " [meshport]")


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.WindowManager.meshport_log = StringProperty(
        name="meshport log", description="meshport's messages of the last import or export, one a line")
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    del bpy.types.WindowManager.meshport_log
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
