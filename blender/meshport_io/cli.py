"""Running the meshport command line: finding it, building its arguments, sorting its messages.

Plain Python, no bpy (the operators in operators.py call these).
"""

import json
import math
import os
import platform
import shutil
import stat
import subprocess
from dataclasses import dataclass, field

ENV_VAR = "MESHPORT_EXE"


class MeshportError(Exception):
    """meshport could not be run, or failed: the message says why."""


ADDON_DIR = os.path.dirname(os.path.abspath(__file__))


def platform_folder(system=None, machine=None):
    """The folder of the executable bundled for this system, below the add-on's bin/:
    linux-x86_64, windows-x86_64, ... (platform.system() and machine() lower-cased, AMD64 and x64
    read as x86_64, aarch64 as arm64)."""
    system = (system if system is not None else platform.system()).lower()
    machine = (machine if machine is not None else platform.machine()).lower()
    machine = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}.get(machine, machine)
    return f"{system}-{machine}"


def bundled_executable(system=None, machine=None, addon_dir=None):
    """The executable bundled with the add-on for this system (bin/<platform_folder>/meshport, with
    .exe on Windows), or None when the add-on carries none for it. A zip does not keep the
    executable bit when Blender unpacks it: on other systems than Windows, the file is made
    executable here (MeshportError when that fails)."""
    system = system if system is not None else platform.system()
    name = "meshport.exe" if system.lower() == "windows" else "meshport"
    path = os.path.join(addon_dir or ADDON_DIR, "bin", platform_folder(system, machine), name)
    if not os.path.isfile(path):
        return None
    if system.lower() != "windows" and not os.access(path, os.X_OK):
        try:
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError as e:
            raise MeshportError(f"the bundled meshport executable '{path}' cannot be made executable: "
                                f"{e.strerror}") from e
    return path


def find_executable(preference="", system=None, machine=None, addon_dir=None):
    """The meshport executable: the add-on preference when set, else $MESHPORT_EXE, else the
    executable bundled with the add-on for this system (bundled_executable), else `meshport` on
    PATH. A set preference or $MESHPORT_EXE that is not an executable file is an error (no
    silent fall back). `system`, `machine` and `addon_dir` replace platform.system(),
    platform.machine() and the add-on's folder (tests)."""
    for candidate, origin in ((preference, "the add-on preference"), (os.environ.get(ENV_VAR, ""), ENV_VAR)):
        if candidate:
            path = os.path.abspath(os.path.expanduser(candidate))
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            found = shutil.which(candidate)
            if found:
                return found
            raise MeshportError(f"meshport executable '{candidate}' (from {origin}) is not an executable file")
    bundled = bundled_executable(system, machine, addon_dir)
    if bundled:
        return bundled
    found = shutil.which("meshport")
    if found:
        return found
    raise MeshportError(f"meshport executable not found: this add-on carries none for {platform_folder(system, machine)}; "
                        "install meshport (on PATH), or set its path in "
                        "Edit > Preferences > Add-ons > Import-Export: meshport")


def processing_args(o):
    """meshport convert's options for the operator settings in the dict `o` (missing keys: off)."""
    a = []
    for folder in o.get("texture_folders", ()):
        a += ["--textures", folder]
    if o.get("pie_version", "SOURCE") != "SOURCE":
        a += ["--pie-version", o["pie_version"]]
    for key, flag in (("no_adjacency", "--no-adjacency"), ("no_bounds", "--no-bounds"),
                      ("flip_winding", "--flip-winding"), ("flip_v", "--flip-v")):
        if o.get(key):
            a.append(flag)
    if o.get("scale", 1.0) != 1.0:
        a += ["--scale", repr(float(o["scale"]))]
    if o.get("weld"):
        a.append("--weld")
    if o.get("simplify", 1.0) < 1.0:
        a += ["--simplify", repr(float(o["simplify"]))]
    for key in ("normals", "tangents"):
        choice = o.get(key, "DEFAULT")
        if choice == "GENERATE":
            a.append(f"--{key}")
        elif choice == "NONE":
            a.append(f"--no-{key}")
        elif choice == "RECOMPUTE":
            a.append(f"--recompute-{key}")
    if o.get("use_smooth_angle"):
        a += ["--smooth-angle", repr(float(o.get("smooth_angle", 30.0)))]
    if o.get("optimize"):
        a.append("--optimize")
    if o.get("modes_animation"):
        a.append("--modes-animation")
    return a


@dataclass
class Result:
    warnings: list = field(default_factory=list)  # one message a line, as meshport printed it
    errors: list = field(default_factory=list)
    stdout: str = ""


def _tidy(line, replacements):
    for old, new in replacements:
        line = line.replace(old, new)
    return line


def run(args, replacements=()):
    """Runs meshport with `args` (the executable first). Returns its Result on success; raises
    MeshportError with meshport's error lines otherwise. `replacements` (old, new) rewrite
    temporary file names in the messages."""
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise MeshportError(f"cannot run {args[0]}: {e.strerror}") from e
    r = Result()
    text = (p.stderr or b"").decode("utf-8", "replace")
    for line in text.splitlines():
        line = _tidy(line.rstrip(), replacements)
        if not line:
            continue
        if ": warning: " in line or line.startswith("warning: "):
            r.warnings.append(line)
        elif p.returncode != 0:
            r.errors.append(line)
        else:
            r.warnings.append(line)
    if p.returncode != 0:
        message = "\n".join(r.errors) or f"meshport failed (exit status {p.returncode})"
        raise MeshportError(message)
    r.stdout = (p.stdout or b"").decode("utf-8", "replace")
    return r


def convert(exe, source, target, options, to=None, from_=None, replacements=()):
    """meshport convert SOURCE -o TARGET [--from F] [--to T] [options]."""
    args = [exe, "convert", source, "-o", target]
    if from_:
        args += ["--from", from_]
    if to:
        args += ["--to", to]
    return run(args + processing_args(options), replacements)


def info(exe, path):
    """`meshport info --json PATH` as a dict."""
    r = run([exe, "info", "--json", path])
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise MeshportError(f"meshport info printed no JSON for {path}") from e


MAX_WHOLE_RATE = 240  # the highest scene frame rate chosen to keep keys on whole frames


def whole_multiple(r):
    """The smallest whole multiple of the rate `r` up to MAX_WHOLE_RATE (2.5 -> 5), else None."""
    for k in range(1, MAX_WHOLE_RATE + 1):
        x = r * k
        if x > MAX_WHOLE_RATE + 1e-4:
            return None
        if abs(x - round(x)) < 1e-4 * k:
            return round(x)
    return None


def key_rate(times):
    """The lowest whole frame rate up to MAX_WHOLE_RATE at which every key time (seconds) falls on
    a whole frame (within 1e-3 of a frame): TFQMSH10's keys at 0, 0.2, 0.6, 0.8 s give 5. None
    when there is none."""
    times = [t for t in times if isinstance(t, (int, float)) and math.isfinite(t)]
    for fps in range(1, MAX_WHOLE_RATE + 1):
        if all(abs(t * fps - round(t * fps)) <= 1e-3 for t in times):
            return fps
    return None


def animation_rates(animations):
    """Per animation of `meshport info --json` the rate whose frames hold its keys: from its key
    times when it has its own (the framerate of unevenly spaced keys is 0), else its framerate.
    Keys on no whole rate up to 240 (DxSdkTiny's 0, 0.4, 0.405, 0.81 s) add none unless no other
    animation gives a rate: then 240, the finest. An animation of one key (or all at 0) holds at
    any rate: it adds none."""
    rates, off_grid = [], False
    for a in animations:
        times = a.get("times")
        if times and all(t == 0 for t in times):
            continue
        rate = key_rate(times) if times else None
        off_grid = off_grid or (bool(times) and rate is None)
        rates.append(rate if rate else a.get("framerate"))
    if off_grid and not any(isinstance(r, (int, float)) and r > 0 for r in rates):
        rates.append(MAX_WHOLE_RATE)
    return rates


def frame_rate(rates):
    """The scene frame rate (fps, fps_base) at which Blender keeps every key of animations at
    `rates` frames per second: the least common multiple of the rates' smallest whole multiples
    (2.5 -> 5) when it is at most 240 (else the highest of them); a rate without a whole multiple
    up to 240 (29.97) as round(r) / base. None without animations."""
    rates = [r for r in rates if isinstance(r, (int, float)) and r > 0 and math.isfinite(r)]
    if not rates:
        return None
    whole = [whole_multiple(r) for r in rates]
    if all(whole):
        fps = 1
        for r in whole:
            fps = fps * r // math.gcd(fps, r)
        if fps > MAX_WHOLE_RATE:
            fps = max(whole)
        return max(1, min(fps, 32767)), 1.0
    r = next(r for r, w in zip(rates, whole) if not w)
    fps = max(1, round(r))
    return fps, fps / r


def whole_frame_range(start, end):
    """An imported action's frame range with ends within 1e-3 of a whole frame made whole, or None
    when they are whole already (or not near one). TFQMSH10's last key at 0.79999995 s lies at
    frame 3.9999998 at 5 fps: Blender's exporter samples whole frames up to the range's end, so
    without this the last key is lost."""
    snapped = []
    for x in (start, end):
        r = round(x)
        snapped.append(r if abs(x - r) <= 1e-3 else x)
    return tuple(snapped) if tuple(snapped) != (start, end) and all(isinstance(x, int) for x in snapped) else None
