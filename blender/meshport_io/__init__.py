"""meshport for Blender: File > Import and File > Export for the game model formats meshport
reads and writes (IQE, IQM, PIE, .qmsh.tmp, TFQMSH10, ModeDef), through the meshport command line
and Blender's glTF importer / exporter."""

bl_info = {
    "name": "meshport",
    "author": "meshport",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import, File > Export",
    "description": "IQE, IQM, Warzone 2100 PIE, QMSH, TFQMSH10 and ModeDef through the meshport command line and glTF",
    "category": "Import-Export",
}

if "operators" in locals():
    import importlib

    importlib.reload(cli)  # noqa: F821
    importlib.reload(formats)  # noqa: F821
    importlib.reload(operators)  # noqa: F821
else:
    from . import cli, formats, operators  # noqa: F401


def register():
    operators.register()


def unregister():
    operators.unregister()
