# The Blender add-on's command line helpers (blender/meshport_io/cli.py, formats.py), which need
# no Blender: arguments for the operator options, the scene frame rate for the model's
# animations, the executable search and meshport's messages sorted into warnings and errors.
# Run: python3 addon_cli_test.py REPO MESHPORT
import importlib.util
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
REPO, EXE = sys.argv[1], sys.argv[2]
del sys.argv[1:]


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "blender", "meshport_io", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cli, formats = load("cli"), load("formats")


class Arguments(unittest.TestCase):
    def test_defaults_add_nothing(self):
        self.assertEqual(cli.processing_args({"scale": 1.0, "simplify": 1.0, "normals": "DEFAULT",
                                              "tangents": "DEFAULT", "pie_version": "SOURCE",
                                              "smooth_angle": 45.0}), [])

    def test_every_option(self):
        o = {"texture_folders": ["/a", "/b c"], "pie_version": "2", "no_adjacency": True, "no_bounds": True,
             "flip_winding": True, "flip_v": True, "scale": 2.5, "weld": True, "simplify": 0.5,
             "normals": "RECOMPUTE", "tangents": "NONE", "use_smooth_angle": True, "smooth_angle": 45.0,
             "optimize": True, "modes_animation": True}
        self.assertEqual(cli.processing_args(o), [
            "--textures", "/a", "--textures", "/b c", "--pie-version", "2", "--no-adjacency", "--no-bounds",
            "--flip-winding", "--flip-v", "--scale", "2.5", "--weld", "--simplify", "0.5", "--recompute-normals",
            "--no-tangents", "--smooth-angle", "45.0", "--optimize", "--modes-animation"])
        self.assertEqual(cli.processing_args({"normals": "GENERATE", "tangents": "GENERATE"}),
                         ["--normals", "--tangents"])


class FrameRate(unittest.TestCase):
    def test_rates(self):
        self.assertIsNone(cli.frame_rate([]))
        self.assertEqual(cli.frame_rate([10.0]), (10, 1.0))
        self.assertEqual(cli.frame_rate([20.0, 10.0]), (20, 1.0))
        self.assertEqual(cli.frame_rate([24.0, 30.0]), (120, 1.0))
        self.assertEqual(cli.frame_rate([7.0, 11.0, 13.0, 17.0]), (17, 1.0))  # lcm 17017: the highest
        fps, base = cli.frame_rate([29.97])
        self.assertEqual(fps, 30)
        self.assertAlmostEqual(fps / base, 29.97)
        self.assertIsNone(cli.frame_rate([0.0, -1.0, float("nan")]))
        self.assertEqual(cli.frame_rate([2.5]), (5, 1.0))  # its smallest whole multiple (was 2 / 0.8)

    def test_whole_frame_range(self):
        # Swordsman's "Walk" at 5 fps: its last key (0.79999995 s) at frame 3.9999998.
        self.assertEqual(cli.whole_frame_range(0.0, 3.999999761581421), (0, 4))
        self.assertIsNone(cli.whole_frame_range(0.0, 4.0))
        self.assertIsNone(cli.whole_frame_range(0.0, 3.5))

    def test_key_times(self):
        # Swordsman.qmsh (issue 32): "Die" at 2.5 fps, "Attack" and "Walk" unevenly spaced (rate 0).
        swordsman = [{"framerate": 2.5, "times": [0.0, 0.39999998]},
                     {"framerate": 0.0, "times": [0.0, 0.39999998, 0.59999996]},
                     {"framerate": 0.0, "times": [0.0, 0.19999999, 0.59999996, 0.79999995]}]
        self.assertEqual(cli.animation_rates(swordsman), [5, 5, 5])
        self.assertEqual(cli.frame_rate(cli.animation_rates(swordsman)), (5, 1.0))
        self.assertEqual(cli.key_rate([0.0, 0.36, 1.0]), 25)
        self.assertIsNone(cli.key_rate([0.0, 0.0037]))
        # DxSdkTiny: "Run" on no whole rate up to 240 (the finest, 240), "Stand" one key (none).
        tiny = [{"framerate": 0.0, "times": [0.0, 0.39999998, 0.40519482, 0.81038964]},
                {"framerate": 0.0, "times": [0.0]}]
        self.assertEqual(cli.frame_rate(cli.animation_rates(tiny)), (240, 1.0))
        self.assertEqual(cli.animation_rates([{"framerate": 30.0}, {"framerate": 12.0, "times": [0.0, 0.0037]}]),
                         [30.0, 12.0])


class Running(unittest.TestCase):
    def test_executable_search(self):
        self.assertEqual(cli.find_executable(EXE), os.path.abspath(EXE))
        with self.assertRaisesRegex(cli.MeshportError, "is not an executable file"):
            cli.find_executable("/no/such/meshport")
        old = os.environ.get(cli.ENV_VAR)
        try:
            os.environ[cli.ENV_VAR] = EXE
            self.assertEqual(cli.find_executable(""), os.path.abspath(EXE))
        finally:
            if old is None:
                os.environ.pop(cli.ENV_VAR, None)
            else:
                os.environ[cli.ENV_VAR] = old

    def test_warnings_and_errors(self):
        pie = os.path.join(REPO, "tests", "data", "pie")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "x.glb")
            r = cli.convert(EXE, os.path.join(pie, "warn-materials.pie"), out, {}, to="glb",
                            replacements=[(out, "OUT")])
            self.assertTrue(os.path.isfile(out))
            self.assertEqual(len(r.warnings), 2, r.warnings)
            self.assertIn("warn-materials.pie:6:1: warning: MATERIALS is ignored", r.warnings[0])
            self.assertTrue(r.warnings[1].startswith("OUT: warning: material 'page-1'"), r.warnings[1])
            with self.assertRaisesRegex(cli.MeshportError, r"err-header.pie:1:1: error: not a PIE file"):
                cli.convert(EXE, os.path.join(pie, "err-header.pie"), out, {})
            i = cli.info(EXE, out)
            self.assertEqual(i["format"], "glb")
            self.assertEqual(cli.frame_rate([a["framerate"] for a in cli.info(EXE, os.path.join(pie, "feat-anim.pie"))
                                             ["animations"]]), (10, 1.0))


class Formats(unittest.TestCase):
    def test_every_format_meshport_writes(self):
        self.assertEqual([f.key for f in formats.FORMATS], ["iqe", "iqm", "pie", "qmsh_tmp", "qmsh", "modedef"])
        self.assertEqual(formats.glob_of(formats.FORMATS[1]), "*.iqm;*.vvm")
        self.assertEqual(formats.modedef_name("a/B.STATE"), "modedef-state")
        self.assertEqual(formats.modedef_name("x.path"), "modedef-path")
        self.assertEqual(formats.modedef_name("x"), "modedef-model")


unittest.main(verbosity=1)
