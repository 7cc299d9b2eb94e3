# Nothing a Python user does through the module crashes the interpreter (docs/python.md, "Views
# and lifetime"): a view taken before its array is assigned keeps the old memory (and values), and
# a list whose items (or views of their arrays) are still referenced refuses to change its length
# or replace those items (BufferError) instead of freeing memory under them. Each case runs in a
# subprocess, so that a crash (a use-after-free: the large arrays are freed back to the system, so
# a read of them faults) is a failed test and not the end of the test run.
import os
import subprocess
import sys
import textwrap

import pytest

BIG = 200_000

HEAD = """
import numpy as np
import meshport
BIG = %d  # rows: 2.4 MB, given back to the system when freed (MALLOC_MMAP_THRESHOLD_)
def big_mesh(seed=0):
    m = meshport.Mesh()
    m.triangles = np.arange(3 * BIG, dtype=np.uint32).reshape(-1, 3) + seed
    return m
def many(n=2000):
    s = meshport.Scene()
    s.meshes.extend([meshport.Mesh() for _ in range(n)])
    return s
def refused(f):
    try:
        f()
    except BufferError as e:
        assert "references" in str(e), str(e)
        return True
    return False
"""


def run(code):
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")  # so that freed memory faults when read
    r = subprocess.run([sys.executable, "-c", HEAD % BIG + textwrap.dedent(code)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, "exit %d\n%s\n%s" % (r.returncode, r.stdout, r.stderr)
    return r.stdout.split()


def test_a_view_outlives_the_assignment_of_its_array():
    out = run("""
        m = big_mesh()
        v = m.triangles
        m.triangles = np.zeros((2 * BIG, 3), np.uint32)    # a larger array: new memory
        print(int(v[-1, 2]), int(v[0, 1]), m.triangles.shape[0], int(m.triangles[-1, 2]))
        v[0, 1] = 7                                         # still writable: old memory, not the Scene's
        print(int(v[0, 1]), int(m.triangles[0, 1]), np.shares_memory(v, m.triangles))
    """)
    assert out == [str(3 * BIG - 1), "1", str(2 * BIG), "0", "7", "0", "False"]


def test_views_of_streams_rows_and_poses_outlive_assignment():
    out = run("""
        s = meshport.Scene()
        s.meshes.append(meshport.Mesh())
        st = meshport.VertexStream()
        st.data = np.ones((BIG, 3), np.float32)
        s.meshes[0].streams.append(st)
        v = s.meshes[0].streams[0].data
        s.meshes[0].streams[0].data = np.zeros((2 * BIG, 4), np.float32)
        lv = meshport.PieLevel()
        lv.points = np.full((BIG, 3), 2.5, np.float32)
        p = lv.points
        lv.points = np.zeros((2 * BIG, 3), np.float32)
        a = meshport.Animation()
        a.poses = np.full((BIG, 1, 10), 3.0, np.float32)
        q = a.poses
        a.poses = np.zeros((BIG, 2, 10), np.float32)
        print(float(v[-1, 2]), float(p[-1, 0]), float(q[-1, 0, 9]), s.meshes[0].streams[0].components)
    """)
    assert out == ["1.0", "2.5", "3.0", "4"]


GROW = ["s.meshes.append(meshport.Mesh())", "s.meshes.extend([meshport.Mesh()])", "s.meshes.insert(0, meshport.Mesh())",
        "s.meshes.extend(s.meshes)"]


@pytest.mark.parametrize("op", GROW)
def test_a_reference_refuses_the_growth_of_its_list(op):
    # Before: the list's 2000 items moved to new memory and `m` read the freed one (a crash).
    out = run("""
        s = many()
        m = s.meshes[0]
        m.name = "kept" * 40
        print(refused(lambda: %s), len(s.meshes), m.name == "kept" * 40)
        del m
        %s                                                # no reference left: allowed
        print(len(s.meshes) > 2000)
    """ % (op, op))
    assert out == ["True", "2000", "True", "True"]


REMOVE = ["s.meshes.clear()", "s.meshes.pop()", "s.meshes.pop(0)", "s.meshes.__delitem__(0)",
          "s.meshes.__delitem__(slice(0, 2))", "s.meshes.remove(big_mesh())", "s.meshes.__setitem__(0, big_mesh(9))",
          "s.meshes.__setitem__(slice(0, 1), s.meshes[1:2])", "setattr(s, 'meshes', meshport.MeshList())"]


@pytest.mark.parametrize("op", REMOVE)
def test_a_view_refuses_the_removal_of_its_item(op):
    # Before: the item's triangles were freed (or replaced by larger ones) under the view: a crash.
    out = run("""
        s = meshport.Scene()
        s.meshes.append(big_mesh())
        s.meshes.append(big_mesh(5))
        v = s.meshes[0].triangles
        print(refused(lambda: %s), len(s.meshes), int(v[-1, 2]), int(v[0, 0]))
        del v
        %s                                                # no reference left: allowed
        print(len(s.meshes) < 2 or int(s.meshes[0].triangles[0, 0]) in (5, 9))
    """ % (op, op))
    assert out == ["True", "2", str(3 * BIG - 1), "0", "True"]


NESTED = ["s.meshes.clear()", "setattr(s.meshes[0], 'streams', meshport.VertexStreamList())",
          "s.meshes[0].streams.clear()", "setattr(s, 'pie', None)", "setattr(s, 'pie', meshport.PieData())",
          "s.pie.levels.pop()", "setattr(s.pie, 'levels', meshport.PieLevelList())"]


@pytest.mark.parametrize("op", NESTED)
def test_nested_references_refuse_the_replacement_of_their_owner(op):
    # A view of a stream's data or a PIE level's points holds its item, which holds its list's owner.
    out = run("""
        s = meshport.Scene()
        s.meshes.append(meshport.Mesh())
        st = meshport.VertexStream()
        st.data = np.ones((BIG, 3), np.float32)
        s.meshes[0].streams.append(st)
        s.pie = meshport.PieData()
        s.pie.levels.append(meshport.PieLevel())
        s.pie.levels[0].points = np.full((BIG, 3), 2.0, np.float32)
        v = s.meshes[0].streams[0].data
        p = s.pie.levels[0].points
        print(refused(lambda: %s), float(v[-1, 0]), float(p[-1, 1]))
        del v, p
        %s                                                # no reference left: allowed
        print("done")
    """ % (op, op))
    assert out == ["True", "1.0", "2.0", "done"]


def test_iteration_leaves_no_reference_behind_once_its_name_is_gone():
    out = run("""
        s = many(3)
        for m in s.meshes:
            m.name = "n"
        print(refused(lambda: s.meshes.append(meshport.Mesh())))
        del m
        s.meshes.append(meshport.Mesh())
        print(len(s.meshes), [x.name for x in s.meshes][:3])
    """)
    assert out == ["True", "4", "['n',", "'n',", "'n']"]


def test_an_iterator_survives_the_change_of_its_list():
    # Before: the iterator held C++ iterators into the list, left dangling by its growth.
    out = run("""
        s = many(3)
        it = iter(s.meshes)
        next(it)
        s.meshes.extend([meshport.Mesh() for _ in range(4000)])   # no item referenced: allowed
        s.meshes[1].name = "second"
        print(next(it).name, sum(1 for _ in it))
        s.meshes.clear()
        print(list(iter(s.meshes)), len([m for m in it]))
    """)
    assert out == ["second", str(4001), "[]", "0"]



def test_replaced_memory_is_kept_only_while_views_of_it_exist():
    # An array assigned again and again through one object keeps no old memory unless a view of it
    # is alive, and that memory is freed with the last such view (RSS: freed blocks go back to the
    # system with MALLOC_MMAP_THRESHOLD_).
    out = run("""
        import os
        def rss():
            return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        MB = 1 << 20
        m = big_mesh()
        new = [np.arange(3 * BIG, dtype=np.uint32).reshape(-1, 3) + i for i in range(30)]
        base = rss()
        for a in new:
            m.triangles = a                           # 30 x 2.4 MB, no view taken
        print(rss() - base < 2 * MB)
        v = m.triangles
        w = m.triangles
        m.triangles = new[0]
        print(rss() - base < 5 * MB, int(v[-1, 2]), int(w[0, 0]))
        del v
        print(rss() - base < 5 * MB, int(w[-1, 2]))
        before = rss()
        del w
        print(before - rss() > 2 * MB, int(m.triangles[-1, 2]))
    """)
    assert out == ["True", "True", str(3 * BIG - 1 + 29), "29", "True", str(3 * BIG - 1 + 29), "True", str(3 * BIG - 1)]
