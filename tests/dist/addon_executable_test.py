# The Blender add-on's choice of the meshport executable (blender/meshport_io/cli.py
# find_executable), without Blender: the add-on preference, then $MESHPORT_EXE, then the
# executable bundled for the running system (bin/linux-x86_64/meshport, bin/windows-x86_64/
# meshport.exe; made executable on first use, as unzipping loses the mode), then meshport on PATH.
# The system is mocked (platform.system / machine) over a fake bundle layout.
# Run: python3 addon_executable_test.py REPO
import importlib.util
import os
import stat
import sys
import tempfile
import unittest
from unittest import mock

sys.dont_write_bytecode = True
REPO = sys.argv[1]
del sys.argv[1:]
spec = importlib.util.spec_from_file_location("cli", os.path.join(REPO, "blender", "meshport_io", "cli.py"))
cli = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cli)


def write(path, mode):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(path, mode)
    return path


class Selection(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.addon = os.path.join(tmp.name, "meshport_io")
        # As Blender leaves them after unzipping: no executable bit.
        self.linux = write(os.path.join(self.addon, "bin", "linux-x86_64", "meshport"), 0o644)
        self.windows = write(os.path.join(self.addon, "bin", "windows-x86_64", "meshport.exe"), 0o644)
        self.on_path = write(os.path.join(tmp.name, "path", "meshport"), 0o755)
        self.other = write(os.path.join(tmp.name, "other", "meshport"), 0o755)
        env = mock.patch.dict(os.environ, {"PATH": os.path.dirname(self.on_path)})
        env.start()
        self.addCleanup(env.stop)
        os.environ.pop(cli.ENV_VAR, None)

    def system(self, system, machine):
        patches = [mock.patch.object(cli.platform, "system", return_value=system),
                   mock.patch.object(cli.platform, "machine", return_value=machine)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)

    def test_platform_folders(self):
        self.assertEqual(cli.platform_folder("Linux", "x86_64"), "linux-x86_64")
        self.assertEqual(cli.platform_folder("Windows", "AMD64"), "windows-x86_64")
        self.assertEqual(cli.platform_folder("Windows", "x64"), "windows-x86_64")
        self.assertEqual(cli.platform_folder("Linux", "aarch64"), "linux-arm64")
        self.assertEqual(cli.platform_folder("Darwin", "arm64"), "darwin-arm64")

    def test_linux_bundled_made_executable(self):
        self.system("Linux", "x86_64")
        self.assertFalse(os.access(self.linux, os.X_OK))
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.linux)
        self.assertEqual(stat.S_IMODE(os.stat(self.linux).st_mode), 0o755)
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.linux)  # again: as it is

    def test_windows_bundled(self):
        self.system("Windows", "AMD64")
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.windows)
        self.assertEqual(stat.S_IMODE(os.stat(self.windows).st_mode), 0o644)  # Windows has no mode bits to set

    def test_order(self):
        self.system("Linux", "x86_64")
        os.environ[cli.ENV_VAR] = self.other
        self.assertEqual(cli.find_executable(self.on_path, addon_dir=self.addon), self.on_path)  # preference first
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.other)  # then $MESHPORT_EXE
        del os.environ[cli.ENV_VAR]
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.linux)  # then the bundled one
        os.remove(self.linux)
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.on_path)  # then PATH

    def test_no_bundle_for_this_system(self):
        self.system("Darwin", "arm64")
        self.assertEqual(cli.find_executable("", addon_dir=self.addon), self.on_path)
        os.environ["PATH"] = os.path.dirname(self.addon)
        with self.assertRaisesRegex(cli.MeshportError, r"carries none for darwin-arm64; install meshport"):
            cli.find_executable("", addon_dir=self.addon)

    def test_set_but_broken_is_an_error(self):
        # A preference or $MESHPORT_EXE naming no executable does not fall back to the bundled one.
        self.system("Linux", "x86_64")
        with self.assertRaisesRegex(cli.MeshportError, r"'/no/meshport' \(from the add-on preference\) is not"):
            cli.find_executable("/no/meshport", addon_dir=self.addon)
        os.environ[cli.ENV_VAR] = "/no/meshport"
        with self.assertRaisesRegex(cli.MeshportError, r"'/no/meshport' \(from MESHPORT_EXE\) is not"):
            cli.find_executable("", addon_dir=self.addon)

    def test_chmod_failure_is_an_error(self):
        self.system("Linux", "x86_64")
        with mock.patch.object(cli.os, "chmod", side_effect=PermissionError(13, "Permission denied")):
            with self.assertRaisesRegex(cli.MeshportError, r"bundled meshport executable '.*/bin/linux-x86_64/"
                                                           r"meshport' cannot be made executable: Permission denied"):
                cli.find_executable("", addon_dir=self.addon)

    def test_default_folder_is_the_addons(self):
        self.assertEqual(cli.ADDON_DIR, os.path.join(os.path.abspath(REPO), "blender", "meshport_io"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
