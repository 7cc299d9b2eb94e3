# The release artefacts (scripts/dist.py, scripts/dist.sh; docs/install.md "Releases"), packed from
# prebuilt or fake inputs in a temporary folder (no build): the Blender add-on zip's exact file
# list, modes and contents (AddonZip); `make dist`'s script with its inputs given (Artefacts): the
# names, the members and modes of each artefact, the licences they carry, SHA256SUMS that
# `sha256sum -c` verifies, the same bytes for the same SOURCE_DATE_EPOCH, and the errors for a
# missing npm target, a missing executable or licence.
# Run: python3 dist_test.py REPO VERSION MESHPORT [unittest arguments: AddonZip, Artefacts]
import io
import os
import stat
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

sys.dont_write_bytecode = True
REPO, VERSION, MESHPORT = sys.argv[1:4]
del sys.argv[1:4]
DIST_PY = os.path.join(REPO, "scripts", "dist.py")
DIST_SH = os.path.join(REPO, "scripts", "dist.sh")

# licenses/<name>.txt: Debian package whose copyright file it is.
LINUX_LICENCES = {"cli11": "libcli11-dev", "cpp-httplib": "libcpp-httplib-dev", "draco": "libdraco-dev", "eigen": "libeigen3-dev", "fmt": "libfmt-dev",
                  "meshoptimizer": "libmeshoptimizer-dev", "nlohmann-json": "nlohmann-json3-dev",
                  "spectra": "libspectra-dev", "stb": "libstb-dev", "gcc-runtime": "libstdc++6", "glibc": "libc6"}
WINDOWS_LICENCES = {k: v for k, v in LINUX_LICENCES.items() if k not in ("gcc-runtime", "glibc")}
WINDOWS_LICENCES.update({"gcc-runtime-mingw-w64": "gcc-mingw-w64-base", "mingw-w64": "mingw-w64-common"})
ADDON_LICENCES = {**LINUX_LICENCES, **WINDOWS_LICENCES}
ADDON_SOURCES = ["__init__.py", "cli.py", "formats.py", "operators.py"]


def licence_text(package):
    return f"copyright of {package}\n".encode()


def make_doc_root(folder, skip=()):
    """A /usr/share/doc with a copyright file per package the artefacts name."""
    for package in set(ADDON_LICENCES.values()) - set(skip):
        os.makedirs(os.path.join(folder, package))
        with open(os.path.join(folder, package, "copyright"), "wb") as f:
            f.write(licence_text(package))
    return folder


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def zip_members(path):
    """{name: (mode, bytes)} of a zip."""
    with zipfile.ZipFile(path) as z:
        return {i.filename: (i.external_attr >> 16, z.read(i)) for i in z.infolist()}


def licence_members(prefix, licences):
    """{name: (mode, bytes)} of LICENSE and licenses/ under prefix, as the artefacts must hold them."""
    m = {f"{prefix}LICENSE": (0o100644, read(os.path.join(REPO, "LICENSE")))}
    for name, package in licences.items():
        m[f"{prefix}licenses/{name}.txt"] = (0o100644, licence_text(package))
    return m


def expected_addon(linux, windows):
    m = {f"meshport_io/{f}": (0o100644, read(os.path.join(REPO, "blender", "meshport_io", f))) for f in ADDON_SOURCES}
    m["meshport_io/bin/linux-x86_64/meshport"] = (0o100755, linux)
    m["meshport_io/bin/windows-x86_64/meshport.exe"] = (0o100755, windows)
    m.update(licence_members("meshport_io/", ADDON_LICENCES))
    return m


def without_readme(members):
    """The members but licenses/README.txt, which is checked on its own."""
    return {k: v for k, v in members.items() if not k.endswith("licenses/README.txt")}


class Base(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.doc = make_doc_root(os.path.join(self.tmp, "doc"))
        self.linux = read(MESHPORT)
        self.windows = b"MZ\x90\x00 not really a Windows program"

    def run_tool(self, *args, env=None):
        return subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **(env or {})})


class AddonZip(Base):
    def pack(self, doc=None):
        linux = write(os.path.join(self.tmp, "in", "meshport"), self.linux, 0o755)
        windows = write(os.path.join(self.tmp, "in", "meshport.exe"), self.windows)
        out = os.path.join(self.tmp, "meshport_io.zip")
        return out, self.run_tool("python3", DIST_PY, "addon", "--out", out, "--linux", linux, "--windows", windows,
                                  "--doc-root", doc or self.doc)

    def test_contents_and_modes(self):
        out, r = self.pack()
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(r.stdout, f"Blender add-on: {out}\n")
        members = zip_members(out)
        readme = members["meshport_io/licenses/README.txt"]
        self.assertEqual(without_readme(members), expected_addon(self.linux, self.windows))
        self.assertEqual(readme[0], 0o100644)
        for name, package in ADDON_LICENCES.items():
            self.assertIn(f"{name}.txt: ", readme[1].decode())
            self.assertIn(f"; Debian package {package}\n", readme[1].decode())
        # The listing `make dist` shows.
        r = self.run_tool("python3", DIST_PY, "list", out)
        self.assertIn(f"-rwxr-xr-x {len(self.linux):>10}  meshport_io/bin/linux-x86_64/meshport\n", r.stdout)
        self.assertIn(f"-rw-r--r-- {os.path.getsize(os.path.join(REPO, 'LICENSE')):>10}  meshport_io/LICENSE\n",
                      r.stdout)
        self.assertEqual(len(r.stdout.splitlines()), len(members))

    def test_missing_licence_is_an_error(self):
        doc = make_doc_root(os.path.join(self.tmp, "doc2"), skip=("mingw-w64-common",))
        out, r = self.pack(doc)
        self.assertEqual(r.returncode, 1)
        self.assertIn("dist: error: the licence of the MinGW-w64 runtime and winpthreads", r.stderr)
        self.assertIn("(mingw-w64-common) not found: " + os.path.join(doc, "mingw-w64-common", "copyright"), r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_packages_listed(self):
        r = self.run_tool("python3", DIST_PY, "packages", "addon")
        self.assertEqual(sorted(r.stdout.split()), sorted(ADDON_LICENCES.values()))


class Artefacts(Base):
    def setUp(self):
        super().setUp()
        self.build = os.path.join(self.tmp, "build-dist")
        write(os.path.join(self.build, "meshport"), self.linux, 0o755)
        self.man = write(os.path.join(self.build, "docs", "meshport.1"), b".TH MESHPORT 1\n")
        self.bash = write(os.path.join(self.build, "docs", "meshport.bash"), b"complete -F _meshport meshport\n")
        self.win = os.path.join(self.tmp, "build-win")
        write(os.path.join(self.win, "meshport.exe"), self.windows)
        # A stand-in for `make npm`: packs a tarball, says where it is on its last line.
        self.npm = os.path.join(self.tmp, "npm")
        os.makedirs(os.path.join(self.npm, "pkg", "package"))
        write(os.path.join(self.npm, "pkg", "package", "package.json"), b'{"name": "meshport"}\n')
        write(os.path.join(self.npm, "pkg", "package", "LICENSE"), read(os.path.join(REPO, "LICENSE")))
        write(os.path.join(self.npm, "Makefile"),
              b"npm:\n\t@tar czf meshport-9.9.9.tgz -C pkg package\n\t@echo packed\n"
              b"\t@echo 'npm package: $(CURDIR)/meshport-9.9.9.tgz'\n")
        # A stand-in for the Python wheel (python/setup.py): the package and its extension.
        self.wheel = os.path.join(self.tmp, f"meshport-{VERSION}-cp311-cp311-linux_x86_64.whl")
        with zipfile.ZipFile(self.wheel, "w") as z:
            z.writestr("meshport/__init__.py", "from ._meshport import *\n")
            z.writestr("meshport/_meshport.cpython-311-x86_64-linux-gnu.so", b"\x7fELF stand-in")

    def dist(self, out, **env):
        e = {"DIST_PREBUILT": "1", "LINUX_BUILD": self.build, "WIN_BUILD": self.win, "WINDOWS_STRIP": "",
             "MAKE_NPM": f"make -s -C {self.npm}", "DIST_DOC_ROOT": self.doc, "SOURCE_DATE_EPOCH": "1700000000",
             "PYTHON_WHEEL": self.wheel}
        e.update(env)
        return self.run_tool(DIST_SH, out, env=e)

    def test_artefacts(self):
        out = os.path.join(self.tmp, "dist")
        r = self.dist(out)
        self.assertEqual(r.returncode, 0, r.stderr)
        linux_name, windows_name = f"meshport-{VERSION}-linux-x86_64", f"meshport-{VERSION}-windows-x86_64"
        names = [f"{linux_name}.tar.gz", f"{windows_name}.zip", "meshport-9.9.9.tgz", f"meshport_io-{VERSION}.zip",
                 os.path.basename(self.wheel)]
        self.assertEqual(sorted(os.listdir(out)), sorted(names + ["SHA256SUMS"]))

        # The Linux tarball: an install prefix in one folder.
        with tarfile.open(os.path.join(out, f"{linux_name}.tar.gz")) as t:
            members = {m.name: (m.mode, m.type, m.uname, m.mtime) for m in t.getmembers()}
            files = {m.name: (0o100000 | m.mode, t.extractfile(m).read()) for m in t.getmembers() if m.isfile()}
        expected = {f"{linux_name}/bin/meshport": (0o100755, self.linux),
                    f"{linux_name}/share/man/man1/meshport.1": (0o100644, read(self.man)),
                    f"{linux_name}/share/bash-completion/completions/meshport": (0o100644, read(self.bash))}
        expected.update(licence_members(f"{linux_name}/", LINUX_LICENCES))
        self.assertEqual(without_readme(files), expected)
        self.assertIn(f"{linux_name}/licenses/README.txt", files)
        folders = sorted(n for n, m in members.items() if m[1] == tarfile.DIRTYPE)
        self.assertEqual(folders, [linux_name] + [f"{linux_name}/{f}" for f in (
            "bin", "licenses", "share", "share/bash-completion", "share/bash-completion/completions", "share/man",
            "share/man/man1")])
        self.assertEqual({(m[2], m[3]) for m in members.values()}, {("root", 1700000000)})

        # The Windows zip: the executable and its licences.
        w = zip_members(os.path.join(out, f"{windows_name}.zip"))
        expected = {f"{windows_name}/meshport.exe": (0o100755, self.windows)}
        expected.update(licence_members(f"{windows_name}/", WINDOWS_LICENCES))
        self.assertEqual(without_readme(w), expected)
        # The Python wheel as it was built.
        self.assertEqual(read(os.path.join(out, os.path.basename(self.wheel))), read(self.wheel))
        # The npm tarball as `make npm` made it; the add-on zip as AddonZip checks it.
        self.assertEqual(read(os.path.join(out, "meshport-9.9.9.tgz")), read(os.path.join(self.npm, "meshport-9.9.9.tgz")))
        self.assertEqual(without_readme(zip_members(os.path.join(out, f"meshport_io-{VERSION}.zip"))),
                         expected_addon(self.linux, self.windows))

        # SHA256SUMS: one line per artefact, verified by sha256sum -c; a changed byte is found.
        sums = read(os.path.join(out, "SHA256SUMS")).decode().splitlines()
        self.assertEqual(sorted(line.split("  ")[1] for line in sums), sorted(names))
        self.assertEqual(subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=out).returncode, 0)
        write(os.path.join(out, "meshport-9.9.9.tgz"), b"changed")
        self.assertEqual(subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=out,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode, 1)

        # Shown when done: the add-on zip's contents, and the time taken.
        self.assertIn(f"== the Blender add-on (meshport_io-{VERSION}.zip):\n", r.stdout)
        self.assertIn(f"-rwxr-xr-x {len(self.linux):>10}  meshport_io/bin/linux-x86_64/meshport\n", r.stdout)
        self.assertIn(f"-rwxr-xr-x {len(self.windows):>10}  meshport_io/bin/windows-x86_64/meshport.exe\n", r.stdout)
        self.assertIn("== time taken\nnpm tarball: ", r.stdout)

        # The same inputs and date give the same bytes.
        again = os.path.join(self.tmp, "again")
        self.assertEqual(self.dist(again).returncode, 0)
        for name in names:
            if name != "meshport-9.9.9.tgz":
                self.assertEqual(read(os.path.join(out, name)), read(os.path.join(again, name)), name)

    def test_no_npm_target_is_an_error(self):
        write(os.path.join(self.npm, "Makefile"), b"other:\n\t@true\n")
        out = os.path.join(self.tmp, "dist")
        r = self.dist(out)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"dist: error: the npm tarball was not built: 'make -s -C {self.npm} npm' has no such target",
                      r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_npm_without_its_path_is_an_error(self):
        write(os.path.join(self.npm, "Makefile"), b"npm:\n\t@echo done\n")
        r = self.dist(os.path.join(self.tmp, "dist"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("did not end with 'npm package: <path>'", r.stderr)

    def test_npm_without_licence_is_an_error(self):
        os.remove(os.path.join(self.npm, "pkg", "package", "LICENSE"))
        r = self.dist(os.path.join(self.tmp, "dist"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("meshport-9.9.9.tgz holds no LICENSE file", r.stderr)

    def test_wheel_without_its_module_is_an_error(self):
        with zipfile.ZipFile(self.wheel, "w") as z:
            z.writestr("meshport/__init__.py", "")
        r = self.dist(os.path.join(self.tmp, "dist"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"the Python wheel {os.path.basename(self.wheel)} lacks meshport/__init__.py or the extension "
                      "meshport/_meshport*.so", r.stderr)

    def test_missing_inputs_are_errors(self):
        os.remove(os.path.join(self.win, "meshport.exe"))
        r = self.dist(os.path.join(self.tmp, "dist"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"dist: error: the Windows executable {self.win}/meshport.exe is missing (make windows)", r.stderr)
        write(os.path.join(self.win, "meshport.exe"), self.windows)
        os.remove(self.bash)
        r = self.dist(os.path.join(self.tmp, "dist"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"dist: error: the bash completion not found: {self.bash}", r.stderr)
        self.assertEqual(os.listdir(os.path.join(self.tmp, "dist")), [])  # nothing half-written

    def test_version_is_the_executables(self):
        write(os.path.join(self.build, "meshport"), b"#!/bin/sh\necho meshport 0.0.1\n", 0o755)
        r = self.dist(os.path.join(self.tmp, "dist"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"prints 'meshport 0.0.1', not 'meshport {VERSION}'", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
