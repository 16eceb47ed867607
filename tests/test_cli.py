"The `tpr-nb` command line: data check over the real mirror and over damaged copies; bad arguments."
import os, re, subprocess, sys
from pathlib import Path
import pytest
from tpr_nb.catalog import CATALOG
from tpr_nb.cli import main

MIRROR = os.environ.get("TPR_NB_DATA")

def tpr_nb(*args, env=None):
    return subprocess.run([sys.executable, "-c", "import sys; from tpr_nb.cli import main; sys.exit(main(sys.argv[1:]))", *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)

@pytest.mark.skipif(not MIRROR, reason="needs TPR_NB_DATA (the shared mirror)")
def test_data_check_lists_every_dataset():
    r = tpr_nb("data", "check")
    assert r.returncode == 0, r.stderr
    listed = {l.split()[1].split("/")[0] for l in r.stdout.splitlines() if l.startswith(("ok ", "unverified ", "missing", "corrupt "))}
    assert listed == set(CATALOG)
    assert "logical_entailment/train.txt" in r.stdout and "0 corrupt" in r.stdout
    missing = [l for l in r.stdout.splitlines() if l.startswith("missing")]
    assert missing and all("http" in l for l in missing)       # every gap comes with its URL

def test_data_check_fails_on_corruption_and_on_a_mirror_gap(tmp_path):
    env = dict(TPR_NB_DATA=str(tmp_path), TPR_NB_CACHE=str(tmp_path / "cache"), TPR_NB_OFFLINE="1")
    r = tpr_nb("data", "check", "--dataset", "ptb", env=env)
    # the mirror should have PTB: its absence is an error
    assert r.returncode == 1 and r.stdout.count("missing-mirror") >= 3
    r = tpr_nb("data", "check", "--dataset", "ptb", env=dict(env, TPR_NB_DATA=""))
    # no mirror set: absent files are only listed
    assert r.returncode == 0 and r.stdout.count("missing") >= 3
    (tmp_path / "ptb").mkdir()
    (tmp_path / "ptb" / "ptb.valid.txt").write_text("not the penn treebank\n")
    r = tpr_nb("data", "check", "--dataset", "ptb", env=env)
    assert r.returncode == 1 and "corrupt" in r.stdout and "ptb.valid.txt" in r.stdout

@pytest.mark.skipif(not MIRROR, reason="needs TPR_NB_DATA (the shared mirror)")
def test_truncated_copy_of_real_file_is_named(tmp_path):
    src = Path(MIRROR) / "ptb" / "ptb.test.txt"
    (tmp_path / "ptb").mkdir()
    (tmp_path / "ptb" / "ptb.test.txt").write_bytes(src.read_bytes()[:-100])
    r = tpr_nb("data", "check", "--dataset", "ptb", env=dict(TPR_NB_DATA=str(tmp_path), TPR_NB_OFFLINE="1",
                                                               TPR_NB_CACHE=str(tmp_path / "c")))
    assert r.returncode == 1 and "truncated" in r.stdout

def test_unknown_profile_and_dataset_are_clear_errors(capsys):
    with pytest.raises(SystemExit): main(["repro", "--profile", "fast"])
    assert "invalid choice: 'fast'" in capsys.readouterr().err
    assert main(["data", "check", "--dataset", "imagenet"]) == 2
    assert "unknown dataset 'imagenet'" in capsys.readouterr().err

def test_prose_refreshes_executed_copies_and_names_stale_ones(tmp_path, capsys):
    "`tpr-nb prose`: new prose reaches an executed copy with the same code (in any layout); moved code is named, exit 1."
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
    def nb(text, code, outputs=()):
        p = new_code_cell('profile = "smoke"', metadata={"tags": ["parameters"]})
        return new_notebook(
            cells=[new_markdown_cell(text), p,
                   new_code_cell(code, outputs=list(outputs))])
    nbs, out = tmp_path / "nbs", tmp_path / "reports" / "quick"
    cases = [("a/10_same.ipynb", "print(1)", "print(1)"),
             ("b/10_moved.ipynb", "print(2)", "print(1)"),
             ("c/10_split.ipynb", "%time x = 1\nif x:  # one\n    print(x)",
              "%time x = 1\nif x: print(x)"),
             ("d/10_magic.ipynb", "%time print(1)", "%timeit print(1)")]
    for name, code_now, code_ran in cases:
        (nbs / name).parent.mkdir(parents=True, exist_ok=True)
        (out / "notebooks" / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb("# new prose", code_now), nbs / name)
        nbformat.write(nb("# old prose", code_ran, [new_output("stream", text="1\n")]),
                       out / "notebooks" / name)
    assert main(["prose", "--nbs", str(nbs), "--out", str(out)]) == 1
    said = capsys.readouterr().out
    assert "refreshed" in said and said.splitlines()[-1].endswith("b/10_moved.ipynb, d/10_magic.ipynb")
    split = nbformat.read(out / "notebooks" / "c/10_split.ipynb", as_version=4)
    assert (
        split.cells[2].source.endswith("    print(x)")
        and split.cells[2].outputs[0]["text"] == "1\n"
    )
    same = nbformat.read(out / "notebooks" / "a/10_same.ipynb", as_version=4)
    assert same.cells[0].source == "# new prose" and same.cells[2].outputs[0]["text"] == "1\n"
    assert (
        nbformat.read(out / "notebooks" / "b/10_moved.ipynb", as_version=4).cells[0].source
        == "# old prose"
    )

def test_figures_saves_every_png_of_the_executed_copies(tmp_path, capsys):
    "`tpr-nb figures`: each executed copy's image/png outputs become reports/<profile>/figures/<paper>/<stem>-<k>.png; stale ones go."
    import base64, io, nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output
    from PIL import Image
    def png(w):
        b = io.BytesIO()
        Image.new("RGB", (w, 2)).save(b, "PNG")
        return base64.b64encode(b.getvalue()).decode()
    out = tmp_path / "reports" / "quick"
    for name, widths in [("urn/10_dyck.ipynb", [3, 4, 5]), ("tpru/11_lm.ipynb", []),
                         ("tpru/11_lm.failed.ipynb", [6])]:
        cells = [new_code_cell("plot()", outputs=[new_output("display_data", data={"image/png": png(w)})]) for w in widths]
        (out / "notebooks" / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(new_notebook(cells=[new_code_cell("1", outputs=[new_output("stream", text="1\n")])] + cells), out / "notebooks" / name)
    (out / "figures" / "tpru").mkdir(parents=True)
    (out / "figures" / "tpru" / "11_lm-1.png").write_bytes(b"stale")
    assert main(["figures", "--out", str(out)]) == 0
    assert "3 figures  urn/10_dyck.ipynb" in capsys.readouterr().out
    got = sorted(str(p.relative_to(out / "figures")) for p in (out / "figures").rglob("*.png"))
    # no stale 11_lm-1, nothing from .failed
    assert got == ["urn/10_dyck-1.png", "urn/10_dyck-2.png", "urn/10_dyck-3.png"]
    assert [Image.open(out / "figures" / g).size[0] for g in got] == [3, 4, 5]
    assert main(["figures", "--out", str(out), "--only", "nothing_matches"]) == 2

ROOT = Path(__file__).resolve().parents[1]

def _snapshot(folder: Path) -> dict:
    "Every file under `folder`: its modification time and contents' hash."
    import hashlib
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns,
                                     hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(folder.rglob("*")) if p.is_file()
    } if folder.exists() else {}

def test_repro_set_runs_into_its_own_folder(tmp_path):
    "`tpr-nb repro --only urn/10 --profile smoke --set seeds=[1]`: a real notebook, in reports/runs/<name>/ (here under a temporary --out), the override recorded; reports/smoke untouched."
    import json
    from tpr_nb.report import load_records
    smoke = ROOT / "reports" / "smoke"
    before = _snapshot(smoke)
    r = tpr_nb("repro", "--only", "urn/10", "--profile", "smoke", "--out", str(tmp_path), "--set", "seeds=[1]", env=dict(OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    run = tmp_path / "urn-10_dyck-smoke-seeds=1"
    assert [p.name for p in tmp_path.iterdir()] == [run.name]
    assert json.loads((run / "overrides.json").read_text()) == {"notebook": "urn/10_dyck.ipynb", "profile": "smoke",
                                                                "overrides": {"seeds": [1]}, "profile_values": {"seeds": [0]}}
    top = (run / "REPORT.md").read_text().split("## Headline")[0]
    assert "not the `smoke` profile's report" in top and "| seeds | `[0]` | `[1]` |" in top, top
    recs = load_records(run)
    # the notebook ran with seed 1
    assert recs and all(rec["seeds"] == [1] and rec["profile"] == "smoke" for rec in recs.values())
    assert (run / "notebooks" / "urn" / "10_dyck.ipynb").exists() and list((run / "figures" / "urn").glob("10_dyck-*.png"))
    assert _snapshot(smoke) == before

def test_repro_set_refuses_an_unknown_key_before_running():
    "An unknown setting is named, with the known ones, before any kernel starts; nothing is written (default --out: reports/runs)."
    import time
    smoke, runs = ROOT / "reports" / "smoke", ROOT / "reports" / "runs"
    before, runs_before = _snapshot(smoke), _snapshot(runs)
    t0 = time.time()
    r = tpr_nb("repro", "--only", "urn/10", "--profile", "smoke", "--set", "seedz=[1]",
               "max_steps=2")
    assert r.returncode == 2 and "unknown setting 'seedz'" in r.stderr and "max_steps, min_n" in r.stderr, r.stderr
    # refused before papermill ran the notebook
    assert "urn/10_dyck.ipynb ..." not in r.stdout and time.time() - t0 < 60
    assert _snapshot(smoke) == before and _snapshot(runs) == runs_before
    r = tpr_nb("repro", "--only", "urn/1", "--profile", "smoke", "--set", "seeds=[1]")
    assert r.returncode == 2 and "matches 3 notebooks" in r.stderr, r.stderr
    r = tpr_nb("repro", "--only", "urn/10", "--profile", "smoke", "--set", "seeds")
    assert r.returncode == 2 and "key=value" in r.stderr, r.stderr

def test_units_train_finds_a_committed_unit_and_refuses_what_is_no_unit():
    "`tpr-nb units --train`: a unit whose record is committed is not trained again; a setting that shapes units is refused."
    r = tpr_nb("units", "--train", "tpr_rnn/11_all_tasks", "--name", "alltasks", "--seed", "0")
    assert r.returncode == 0 and re.search(
        r"alltasks_s0_[0-9a-f]{10}: its record was there already", r.stdout
    ), (r.stdout + r.stderr)
    r = tpr_nb("units", "--train", "tpr_rnn/11_all_tasks", "--name", "alltasks", "--seed", "0", "--set", "max_steps=5")
    assert r.returncode == 2 and "would change what a unit is" in r.stderr, r.stderr
    r = tpr_nb("units", "--train", "tpr_rnn/11_all_tasks", "--name", "alltasks")
    assert r.returncode == 2 and "--train needs --name and --seed" in r.stderr, r.stderr
