# The type stubs (python/meshport/*.pyi) name everything the module has, as it has it: the
# committed _meshport.pyi is what scripts/python_stubs.py generates from the built module.
import ast
import importlib.util
import pathlib

import meshport
import meshport._meshport
from conftest import ROOT

PACKAGE = ROOT / "python" / "meshport"


def test_generated_stubs_are_up_to_date():
    spec = importlib.util.spec_from_file_location("python_stubs", ROOT / "scripts" / "python_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (PACKAGE / "_meshport.pyi").read_text()
    assert module.stubs() == committed, "run: PYTHONPATH=build/python /usr/bin/python3 scripts/python_stubs.py " \
                                        "python/meshport/_meshport.pyi"


def names_in(path):
    tree = ast.parse(pathlib.Path(path).read_text())
    return {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))} | \
        {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}


def test_every_public_name_has_a_stub():
    stubbed = names_in(PACKAGE / "_meshport.pyi") | names_in(PACKAGE / "__init__.pyi")
    public = {n for n in meshport.__all__} | {"__version__"}
    assert public - stubbed == set()
    assert (PACKAGE / "py.typed").exists()
    mesh_stub = [n for n in ast.parse((PACKAGE / "_meshport.pyi").read_text()).body
                 if isinstance(n, ast.ClassDef) and n.name == "Mesh"][0]
    members = {f.name for f in mesh_stub.body if isinstance(f, ast.FunctionDef)}
    assert {"triangles", "streams", "stream", "vertex_count", "morph_targets"} <= members
