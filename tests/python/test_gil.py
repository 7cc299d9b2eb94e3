# Long calls release the GIL: a batch runs on a thread while the main thread keeps running Python,
# and its progress callback (called from the batch's threads) takes the GIL back.
import shutil
import threading
import time

import pytest

import meshport
from conftest import EXAMPLES

MODELS = 96


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "in"
    for i in range(MODELS):
        d = src / ("d%d" % (i % 4))
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLES / "tentacle.iqe", d / ("m%02d.iqe" % i))
    return tmp_path


def test_batch_on_a_thread_lets_python_run(tree):
    events, result = [], {}
    running = threading.Event()

    def progress(e):
        running.set()
        events.append((e["finished"], e["item"]["status"] if e["item"] else None))

    def work():
        result["report"] = meshport.batch([str(tree / "in")], str(tree / "out"), to="glb", jobs=1, progress=progress)

    # How fast this loop counts with the interpreter to itself.
    baseline, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < 0.1:
        baseline += 1
    rate = baseline / (time.monotonic() - t0)
    t = threading.Thread(target=work)
    t0 = time.monotonic()
    t.start()
    assert running.wait(60)
    counted = 0
    while t.is_alive():
        counted += 1
        time.monotonic()  # the same work per iteration as the baseline's
    seconds = time.monotonic() - t0
    t.join()
    report = result["report"]
    assert report["summary"]["files"] == MODELS
    assert report["summary"]["converted"] + report["summary"]["warned"] == MODELS
    assert len(list((tree / "out").rglob("*.glb"))) == MODELS
    finished = [f for f, status in events if status is not None]
    assert sorted(finished) == list(range(1, MODELS + 1))
    # The main thread ran all along (a held GIL would leave it one switch interval, 5 ms, at most):
    # at least 3% of its own pace over the batch's time (one job: a core is left for it).
    print("counted %d in %.3f s (alone: %.0f/s)" % (counted, seconds, rate))
    assert counted > 0.03 * rate * seconds


def test_an_exception_in_the_callback_stops_the_batch_and_is_raised(tree):
    def progress(e):
        if e["finished"] >= 2:
            raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        meshport.batch([str(tree / "in")], str(tree / "out"), to="iqm", jobs=1, progress=progress)
    assert len(list((tree / "out").rglob("*.iqm"))) < MODELS


def test_batch_errors_are_meshport_errors(tree):
    with pytest.raises(meshport.Error):
        meshport.batch([str(tree / "in")], None, to="glb")  # a conversion needs an output folder
    missing = meshport.batch([str(tree / "no-such-folder")], str(tree / "out"), to="glb")
    assert missing["summary"]["failed"] == 1
    assert missing["items"][0]["diagnostics"][0]["text"] == str(tree / "no-such-folder") + ": error: no such file or folder"
    report = meshport.batch([str(tree / "in")], task="validate", profiles=["iqm-engines"])
    assert report["summary"]["files"] == MODELS


def test_progress_items_are_the_reports_items(tree):
    # The item a finished-file event carries is that file's entry of the report, key for key.
    (tree / "in" / "d0" / "broken.iqe").write_text("# Inter-Quake Export\nvp 1 zz 2\n")
    finished = {}

    def progress(e):
        if e["item"] is not None:
            finished[e["item"]["input"]] = e["item"]

    report = meshport.batch([str(tree / "in")], str(tree / "out"), to="iqm", jobs=2, progress=progress)
    assert len(report["items"]) == MODELS + 1
    assert {i["input"]: i for i in report["items"]} == finished
    broken = finished[str(tree / "in" / "d0" / "broken.iqe")]
    assert broken["status"] == "failed"
    assert broken["diagnostics"][0]["severity"] == "error"
    assert (broken["diagnostics"][0]["line"], broken["diagnostics"][0]["column"]) == (2, 6)
    assert all(i["counts"]["vertices"] > 0 for k, i in finished.items() if i["status"] == "converted")
