#!/usr/bin/env python3
"""Packs meshport's release artefacts (`make dist`, `make blender-addon`; docs/install.md).

  dist.py addon --out ZIP --linux EXE --windows EXE [--repo DIR] [--doc-root DIR]
      The Blender add-on zip: blender/meshport_io/*.py, the executables in
      meshport_io/bin/linux-x86_64/meshport and meshport_io/bin/windows-x86_64/meshport.exe,
      meshport's LICENSE and the licences of both executables in meshport_io/licenses/.
  dist.py all --out DIR --version V --linux EXE --man FILE --completion FILE --windows EXE
              --npm TGZ [--wheel WHL] [--repo DIR] [--doc-root DIR]
      Into DIR: meshport-V-linux-x86_64.tar.gz, meshport-V-windows-x86_64.zip, the npm tarball
      (copied), the Python wheel when given (copied; docs/python.md), meshport_io-V.zip (the
      add-on) and SHA256SUMS (`sha256sum -c SHA256SUMS`).
  dist.py packages linux|windows|addon
      The Debian packages whose copyright files an artefact carries, one a line.
  dist.py list ZIP
      Each entry of a zip with its Unix mode and size.

The licence texts are Debian's /usr/share/doc/<package>/copyright (--doc-root), copied at pack
time as licenses/<name>.txt, with licenses/README.txt saying which package each came from.
Entries are sorted, owned by root, dated SOURCE_DATE_EPOCH (else the current time), so the same
inputs and date give the same bytes. Any missing input is an error naming it: nothing is left out.
"""

import argparse
import ast
import gzip
import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

# What is compiled or statically linked into each executable: (file name below licenses/, Debian
# package whose copyright file is its licence, what it is).
LIBRARIES = [
    ("cli11", "libcli11-dev", "CLI11 (BSD-3-Clause), header-only"),
    ("cpp-httplib", "libcpp-httplib-dev",
     "cpp-httplib (MIT), header-only, from Debian's source package (meshport view); three.js (MIT) is "
     "embedded with its licence, which meshport view serves at /three/LICENSE"),
    ("draco", "libdraco-dev", "Draco (Apache-2.0), static library"),
    ("eigen", "libeigen3-dev", "Eigen (MPL-2.0), header-only, unmodified; source: Debian's eigen3"),
    ("fmt", "libfmt-dev", "fmt (MIT), header-only"),
    ("meshoptimizer", "libmeshoptimizer-dev", "meshoptimizer (MIT), static library from Debian's source"),
    ("nlohmann-json", "nlohmann-json3-dev", "nlohmann/json (MIT), header-only"),
    ("spectra", "libspectra-dev", "Spectra (MPL-2.0), header-only, unmodified; source: Debian's spectra"),
    ("stb", "libstb-dev", "stb_image, stb_image_write, stb_easy_font (MIT or public domain)"),
]
LICENSES = {
    "linux": LIBRARIES + [
        ("gcc-runtime", "libstdc++6",
         "libstdc++ and libgcc (GPL-3.0+ with the GCC Runtime Library Exception), linked statically"),
        ("glibc", "libc6", "the GNU C Library (LGPL-2.1-or-later), linked statically; to relink meshport with "
         "another glibc, build it from its source with scripts/build-linux-dist.sh"),
    ],
    "windows": LIBRARIES + [
        ("gcc-runtime-mingw-w64", "gcc-mingw-w64-base",
         "MinGW-w64 GCC's libstdc++ and libgcc (GPL-3.0+ with the GCC Runtime Library Exception), linked statically"),
        ("mingw-w64", "mingw-w64-common",
         "the MinGW-w64 runtime and winpthreads (ZPL-2.1, MIT and others), linked statically"),
    ],
}
LICENSES["addon"] = sorted(set(LICENSES["linux"] + LICENSES["windows"]))
ADDON_FILES = ["__init__.py", "cli.py", "formats.py", "operators.py"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class DistError(Exception):
    pass


def date():
    return int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())


def need_file(path, what):
    if not path or not os.path.isfile(path):
        raise DistError(f"{what} not found: {path or '(not given)'}")
    return path


def licence_files(kind, repo, doc_root):
    """[(name in the artefact, bytes)]: LICENSE and licenses/*.txt with licenses/README.txt."""
    with open(need_file(os.path.join(repo, "LICENSE"), "meshport's LICENSE"), "rb") as f:
        files = [("LICENSE", f.read())]
    readme = ["Licences of the software compiled or linked into meshport's executables in this package.",
              "Each file is the Debian package's copyright file (/usr/share/doc/<package>/copyright)",
              "of the build machine.", ""]
    for name, package, what in LICENSES[kind]:
        path = need_file(os.path.join(doc_root, package, "copyright"), f"the licence of {what} ({package})")
        with open(path, "rb") as f:
            files.append((f"licenses/{name}.txt", f.read()))
        readme.append(f"{name}.txt: {what}; Debian package {package}")
    files.append(("licenses/README.txt", ("\n".join(readme) + "\n").encode()))
    return files


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write_zip(path, entries):
    """entries: [(name, bytes, mode)]; sorted, dated date(), Unix modes kept."""
    stamp = time.gmtime(max(date(), 315532800))[:6]  # zip dates start in 1980
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data, mode in sorted(entries):
            info = zipfile.ZipInfo(name, stamp)
            info.create_system = 3  # Unix: external_attr holds the mode
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def write_tar_gz(path, entries):
    """entries: [(name, bytes, mode)]; sorted, root-owned, dated date(); folders added."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        folders = {"/".join(n.split("/")[:i]) for n, _, _ in entries for i in range(1, n.count("/") + 1)}
        items = [(f, None, 0o755) for f in folders] + list(entries)
        for name, data, mode in sorted(items, key=lambda e: e[0]):
            info = tarfile.TarInfo(name)
            info.mode, info.mtime, info.uname, info.gname = mode, date(), "root", "root"
            if data is None:
                info.type = tarfile.DIRTYPE
                t.addfile(info)
            else:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=date(), filename="") as g:
        g.write(raw.getvalue())


def addon_version(repo):
    """bl_info's version of blender/meshport_io/__init__.py as "x.y.z"."""
    tree = ast.parse(read(os.path.join(repo, "blender", "meshport_io", "__init__.py")))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "bl_info" for t in node.targets):
            return ".".join(str(x) for x in ast.literal_eval(node.value)["version"])
    raise DistError("blender/meshport_io/__init__.py has no bl_info")


def addon(out, linux, windows, repo, doc_root):
    source = os.path.join(repo, "blender", "meshport_io")
    entries = [(f"meshport_io/{f}", read(need_file(os.path.join(source, f), "add-on file")), 0o644)
               for f in ADDON_FILES]
    entries.append(("meshport_io/bin/linux-x86_64/meshport", read(need_file(linux, "the Linux executable")), 0o755))
    entries.append(("meshport_io/bin/windows-x86_64/meshport.exe",
                    read(need_file(windows, "the Windows executable")), 0o755))
    entries += [(f"meshport_io/{name}", data, 0o644) for name, data in licence_files("addon", repo, doc_root)]
    write_zip(out, entries)
    return out


def check_version(linux, version):
    """The Linux executable's --version is the release's."""
    try:
        printed = subprocess.run([linux, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 check=True).stdout.decode().strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise DistError(f"{linux} --version failed: {e}") from e
    if printed != f"meshport {version}":
        raise DistError(f"{linux} --version prints '{printed}', not 'meshport {version}'")


def check_npm(tgz):
    """The npm tarball holds package/package.json and a licence."""
    with tarfile.open(need_file(tgz, "the npm tarball (make npm)")) as t:
        names = t.getnames()
    if "package/package.json" not in names:
        raise DistError(f"{tgz} is not an npm package (no package/package.json)")
    if not any(n.split("/")[-1].upper().startswith(("LICENSE", "LICENCE")) for n in names):
        raise DistError(f"{tgz} holds no LICENSE file")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_wheel(path, version):
    """The Python wheel (python/, `python3 -m build --wheel`): meshport-VERSION-*.whl holding the
    package and its extension module."""
    name = os.path.basename(need_file(path, "the Python wheel"))
    if not name.startswith(f"meshport-{version}-") or not name.endswith(".whl"):
        raise DistError(f"the Python wheel {name} is not meshport-{version}-*.whl")
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    if "meshport/__init__.py" not in names or not any(n.startswith("meshport/_meshport") and n.endswith(".so")
                                                      for n in names):
        raise DistError(f"the Python wheel {name} lacks meshport/__init__.py or the extension meshport/_meshport*.so")


def dist(a):
    if addon_version(a.repo) != a.version:
        raise DistError(f"the add-on's bl_info version {addon_version(a.repo)} is not the project's {a.version} "
                        "(blender/meshport_io/__init__.py)")
    check_version(a.linux, a.version)
    check_npm(a.npm)
    os.makedirs(a.out, exist_ok=True)
    linux_name, windows_name = f"meshport-{a.version}-linux-x86_64", f"meshport-{a.version}-windows-x86_64"
    linux = [(f"{linux_name}/bin/meshport", read(need_file(a.linux, "the Linux executable")), 0o755),
             (f"{linux_name}/share/man/man1/meshport.1", read(need_file(a.man, "the man page")), 0o644),
             (f"{linux_name}/share/bash-completion/completions/meshport",
              read(need_file(a.completion, "the bash completion")), 0o644)]
    linux += [(f"{linux_name}/{n}", d, 0o644) for n, d in licence_files("linux", a.repo, a.doc_root)]
    windows = [(f"{windows_name}/meshport.exe", read(need_file(a.windows, "the Windows executable")), 0o755)]
    windows += [(f"{windows_name}/{n}", d, 0o644) for n, d in licence_files("windows", a.repo, a.doc_root)]
    made = []
    with tempfile.TemporaryDirectory(dir=a.out) as tmp:  # nothing half-written in OUT on an error
        write_tar_gz(os.path.join(tmp, linux_name + ".tar.gz"), linux)
        write_zip(os.path.join(tmp, windows_name + ".zip"), windows)
        shutil.copyfile(a.npm, os.path.join(tmp, os.path.basename(a.npm)))
        if a.wheel:
            check_wheel(a.wheel, a.version)
            shutil.copyfile(a.wheel, os.path.join(tmp, os.path.basename(a.wheel)))
        addon(os.path.join(tmp, f"meshport_io-{a.version}.zip"), a.linux, a.windows, a.repo, a.doc_root)
        for name in sorted(os.listdir(tmp)):
            os.replace(os.path.join(tmp, name), os.path.join(a.out, name))
            made.append(name)
    with open(os.path.join(a.out, "SHA256SUMS"), "w") as f:
        for name in made:
            f.write(f"{sha256(os.path.join(a.out, name))}  {name}\n")
    for name in made + ["SHA256SUMS"]:
        print(f"{os.path.getsize(os.path.join(a.out, name)):>10}  {os.path.join(a.out, name)}")


def list_zip(path):
    """Each entry of a zip: its Unix mode, size and name."""
    with zipfile.ZipFile(need_file(path, "zip")) as z:
        for i in z.infolist():
            print(f"{stat.filemode(i.external_attr >> 16)} {i.file_size:>10}  {i.filename}")


def main():
    p = argparse.ArgumentParser(description="Packs meshport's release artefacts.")
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("addon", "all"):
        s = sub.add_parser(name)
        s.add_argument("--out", required=True)
        s.add_argument("--linux", required=True)
        s.add_argument("--windows", required=True)
        s.add_argument("--repo", default=REPO)
        s.add_argument("--doc-root", default="/usr/share/doc")
    s = sub.choices["all"]
    for option in ("--version", "--man", "--completion", "--npm"):
        s.add_argument(option, required=True)
    s.add_argument("--wheel")
    sub.add_parser("packages").add_argument("kind", choices=sorted(LICENSES))
    sub.add_parser("list").add_argument("zip")
    a = p.parse_args()
    try:
        if a.command == "packages":
            print("\n".join(package for _, package, _ in LICENSES[a.kind]))
        elif a.command == "list":
            list_zip(a.zip)
        elif a.command == "addon":
            print(f"Blender add-on: {addon(a.out, a.linux, a.windows, a.repo, a.doc_root)}")
        else:
            dist(a)
    except DistError as e:
        print(f"dist: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
