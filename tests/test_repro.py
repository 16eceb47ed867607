"The reproduction runner: papermill execution, records, report assembly, and going on past a failing notebook."
import json
from pathlib import Path
import nbformat
import pandas as pd
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from tpr_nb.runner import experiment_notebooks, repro
from tpr_nb.report import CSV_COLUMNS
from tpr_nb.claims import CLAIMS

def make_nb(path: Path, body: str):
    p = new_code_cell('profile = "smoke"')
    p.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell("# test"), p, new_code_cell(body)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)

GOOD = """
from tpr_nb.experiment import Run
from tpr_nb.profiles import profile_config
cfg = profile_config({"smoke": {"err": 0.5}, "quick": {"err": 0.3}}, profile)
run = Run("tpr_rnn", profile, out, commit)      # the runner passes `out` and `commit` as papermill parameters
run.record("task01_error", cfg.err, seeds=[0], wall_s=1.0)
run.finish()
"""
BAD = "raise RuntimeError('boom: the model diverged')"

@pytest.fixture
def project(tmp_path):
    make_nb(tmp_path / "nbs" / "tpr_rnn" / "10_good.ipynb", GOOD)
    make_nb(tmp_path / "nbs" / "urn" / "10_bad.ipynb", BAD)
    lib = new_notebook(cells=[new_code_cell("x = 1")])
    nbformat.write(lib, tmp_path / "nbs" / "00_lib.ipynb")
    return tmp_path

def test_discovery_and_only(project):
    nbs = project / "nbs"
    # no library notebook
    assert [p.name for p in experiment_notebooks(nbs)] == ["10_good.ipynb", "10_bad.ipynb"]
    assert [p.name for p in experiment_notebooks(nbs, "tpr_rnn/*")] == ["10_good.ipynb"]
    assert [p.name for p in experiment_notebooks(nbs, "bad")] == ["10_bad.ipynb"]

def test_repro_runs_records_and_survives_failure(project):
    out = project / "reports" / "quick"
    runs, report = repro("quick", nbs=project / "nbs", out=out)
    status = {Path(r["notebook"]).name: r["status"] for r in runs}
    assert status == {"10_good.ipynb": "ok", "10_bad.ipynb": "failed"}
    bad = next(r for r in runs if r["status"] == "failed")
    assert "boom" in bad["error"]
    # partial output kept beside
    partial = nbformat.read(out / "notebooks" / "urn" / "10_bad.failed.ipynb", as_version=4)
    assert any(
        o.get("ename") == "RuntimeError" for c in partial.cells for o in c.get("outputs", []))
    df = pd.read_csv(out / "claims.csv")
    assert list(df.columns) == CSV_COLUMNS and len(df) == len(CLAIMS)
    row = df[(df.paper == "tpr_rnn") & (df.claim_id == "task01_error")].iloc[0]
    # the quick row of the profile table
    assert row.ours == 0.3 and row.holds == "yes" and row.profile == "quick"
    text = report.read_text()
    assert "10_bad.ipynb | failed" in text and "task01_error" in text
    assert json.loads((out / "runs.json").read_text())[0]["status"] == "ok"

def test_unknown_profile(project):
    with pytest.raises(ValueError, match="unknown profile 'medium'"):
        repro("medium", nbs=project / "nbs", out=project / "r")

def test_figures_are_kept_whatever_the_backend(tmp_path, monkeypatch):
    "The Makefile exports MPLBACKEND=Agg; the executed copy must still hold the notebook's figures, and the variable is restored."
    from tpr_nb.runner import run_notebook
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = tmp_path / "nbs" / "urn" / "10_plot.ipynb"
    make_nb(
        nb,
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots(); ax.plot([0, 1]); plt.show()")
    r = run_notebook(nb, tmp_path / "out.ipynb", "smoke", tmp_path / "rep")
    assert r["status"] == "ok", r["error"]
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert (
        sum("image/png" in o.get("data", {}) for c in out.cells for o in c.get("outputs", [])) == 1
    )
    import os
    assert os.environ["MPLBACKEND"] == "Agg" and not any(
        k.startswith("TPR_NB_REPORT") for k in os.environ)

def test_every_claim_the_quick_report_leaves_unmeasured_says_what_it_needs():
    "The committed quick report gives a reason (`tpr_nb.claims.NEEDS`) beside every claim it does not measure."
    from tpr_nb.claims import needs
    from tpr_nb.env import project_root
    from tpr_nb.report import load_records
    recs = load_records(project_root(Path(__file__)) / "reports" / "quick")
    assert len(recs) > 300, "reports/quick has lost its records"
    bare = sorted(f"{c.paper}/{c.experiment}/{c.claim_id}" for c in CLAIMS
                  if (c.paper, c.claim_id) not in recs and needs(c) is None)
    assert not bare, f"{len(bare)} claims unmeasured at quick with no NEEDS entry, e.g. {bare[:5]}"

def foreground():
    "In the child before it starts: Ctrl-C's default action, as in a terminal's foreground job. A background job of a script starts with SIGINT ignored, and Python keeps it ignored: without this, the two interrupt tests fail whenever the suite itself runs in the background (`nohup make test &`)."
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)

def test_interrupted_repro_keeps_what_finished(tmp_path):
    "Ctrl-C in the middle of a notebook: runs.json keeps the finished notebooks' statuses and executed copies; a second run completes."
    import signal, subprocess, sys, time
    make_nb(tmp_path / "nbs" / "a" / "10_quick.ipynb", "x = 1")
    make_nb(tmp_path / "nbs" / "b" / "10_slow.ipynb", "import time; time.sleep(120)")
    out = tmp_path / "reports" / "smoke"
    cmd = [sys.executable, "-c", "import sys; from tpr_nb.cli import main; sys.exit(main(sys.argv[1:]))", "repro", "--profile", "smoke",
           "--nbs", str(tmp_path / "nbs"), "--out", str(out)]
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=foreground)
    t0 = time.time()
    while (
        time.time() - t0 < 300 and not (out / "notebooks" / "b" / "10_slow.running.ipynb").exists()
    ):
        time.sleep(0.5)  # a busy machine starts kernels slowly
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=300)
    runs = {r["notebook"]: r["status"] for r in json.loads((out / "runs.json").read_text())}
    assert runs == {"a/10_quick.ipynb": "ok", "b/10_slow.ipynb": "interrupted"}, runs
    assert (out / "notebooks" / "a" / "10_quick.ipynb").exists()
    make_nb(tmp_path / "nbs" / "b" / "10_slow.ipynb", "x = 2")
    runs2, _ = repro("smoke", nbs=tmp_path / "nbs", out=out, only="b/")
    assert {r["notebook"]: r["status"] for r in runs2} == {
        "a/10_quick.ipynb": "ok",
        "b/10_slow.ipynb": "ok",
    }


def test_interrupt_stops_what_the_notebook_started(tmp_path):
    "Ctrl-C or SIGTERM while `interruptible` waits: the process tree the job started (a child and its own child in a new session) is gone, and the caller sees KeyboardInterrupt."
    import os, signal, subprocess, sys, time
    script = tmp_path / "job.py"
    script.write_text(
        "import subprocess, sys\n"
        "from tpr_nb.runner import interruptible\n"
        "def job():\n"
        "    p = subprocess.Popen(['sh', '-c', 'sleep 300 & echo $! > %s; wait'], start_new_session=True)\n"  # a kernel runs in a session of its own
        "    print('ready', flush=True); p.wait(); return 'finished'\n"
        "try: print(interruptible(job), flush=True)\n"
        "except KeyboardInterrupt: print('interrupted', flush=True)\n" %
        (tmp_path / "grandchild.pid"))
    for sig in (signal.SIGINT, signal.SIGTERM):
        p = subprocess.Popen(
            [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, preexec_fn=foreground
        )
        assert p.stdout.readline().strip() == "ready"
        t0 = time.time()
        while not (tmp_path / "grandchild.pid").exists() and time.time() - t0 < 30: time.sleep(0.1)
        pid = int((tmp_path / "grandchild.pid").read_text())
        p.send_signal(sig)
        out, _ = p.communicate(timeout=60)
        assert out.strip() == "interrupted", (sig, out)
        time.sleep(0.5)
        assert (
            not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
        ), f"sleep {pid} survived {sig!r}"
        (tmp_path / "grandchild.pid").unlink()
