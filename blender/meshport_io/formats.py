"""The formats the add-on offers: one File > Import and one File > Export entry each.

Plain data, no bpy: `meshport formats` lists what the CLI reads and writes (every format below is
both). `name` is the CLI's format name (`--from` / `--to`); ModeDef has one per file kind.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Format:
    key: str  # operator suffix: import_scene.meshport_<key>
    label: str  # menu text
    extensions: tuple  # read; the first is written
    name: str  # meshport's format name; ModeDef: chosen by the file kind
    options: tuple = field(default=())  # format-specific operator options (see operators.py)


# ModeDef file kinds: (extension, meshport format name, label).
MODEDEF_KINDS = (
    (".model", "modedef-model", "Model (.model)"),
    (".prop", "modedef-prop", "Material properties (.prop), with its model"),
    (".state", "modedef-state", "Scene (.state), with every file it names"),
    (".path", "modedef-path", "Animation path (.path)"),
)

FORMATS = (
    Format("iqe", "Inter-Quake Export (.iqe)", (".iqe",), "iqe"),
    Format("iqm", "Inter-Quake Model (.iqm)", (".iqm", ".vvm"), "iqm", ("iqm",)),
    Format("pie", "Warzone 2100 PIE (.pie)", (".pie",), "pie", ("pie",)),
    Format("qmsh_tmp", "QMSH TMP (.qmsh.tmp)", (".qmsh.tmp",), "qmsh-tmp"),
    Format("qmsh", "TFQMSH10 (.qmsh)", (".qmsh",), "qmsh"),
    Format("modedef", "ModeDef (.model, .prop, .state, .path)", tuple(k[0] for k in MODEDEF_KINDS), "", ("modedef",)),
)


def glob_of(fmt):
    """The file browser filter: `*.iqm;*.vvm`."""
    return ";".join("*" + e for e in fmt.extensions)


def modedef_name(path):
    """meshport's format name for a ModeDef file by its extension (`.model` when unknown)."""
    lower = path.lower()
    for ext, name, _ in MODEDEF_KINDS:
        if lower.endswith(ext):
            return name
    return MODEDEF_KINDS[0][1]
