"""Safe to load, honest to report (issue 48): no code runs from a model file, weights are verified, verdicts come from the
registered rules, a failed run loses no good result, `--set` values are checked, units and training refuse what they cannot
vouch for, data and model inputs are checked, and damaged bookkeeping is named with its fix."""
import dataclasses, gzip, json, os, sys, warnings
from pathlib import Path
import nbformat
import pytest
import torch
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from safetensors.torch import load_file, save_file
from torch import nn
from tpr_nb.checkpoints import CheckpointError
from tpr_nb.modelfiles import ModelFileError, build, load_model, save_model, MODEL_JSON, MODEL_WEIGHTS
from tpr_nb.profiles import Config
from tpr_nb.train import DivergedError, TrainConfig, fit, train_config, train_fingerprint
from tpr_nb.units import run_unit, unit_key

ROOT = Path(__file__).resolve().parents[1]
MIRROR = os.environ.get("TPR_NB_DATA")

def _dyck_model():
    from tpr_nb.urn.training import make_dyck_model
    torch.manual_seed(0)
    return make_dyck_model("urn8", Config(lstm_embed=4, lstm_hidden=6))

# ---------------------------------------------------------------- model files

@pytest.mark.parametrize("call, kwargs", [
    # an attribute chain into os, under a tpr_nb module
    ("tpr_nb.data:os.system", {"command": "touch {mark}"}),
    ("tpr_nb.train:shutil.rmtree", {"path": "{mark}.dir"}),
    ("tpr_nb.urn.model:torch.save", {"obj": 1, "f": "{mark}"}),
    # a tpr_nb function, but no model builder
    ("tpr_nb.modelfiles:save_model", {"model": None, "folder": "{mark}"}),
    ("tpr_nb.urn.model:URN.__init__", {}),
])
def test_a_model_file_names_only_registered_builders(tmp_path, call, kwargs):
    "A tampered `call` (any name outside the registry of model builders) is refused by name, and nothing runs."
    save_model(_dyck_model(), tmp_path / "m")
    mark = tmp_path / "pwned"
    (tmp_path / "pwned.dir").mkdir()
    spec = json.loads((tmp_path / "m" / MODEL_JSON).read_text())
    spec.update(
        call=call,
        kwargs={k: v.format(mark=mark) if isinstance(v, str) else v for k, v in kwargs.items()},
    )
    (tmp_path / "m" / MODEL_JSON).write_text(json.dumps(spec))
    with pytest.raises(ModelFileError, match=f"{call!r} is not a registered model builder"):
        load_model(tmp_path / "m")
    assert not mark.exists() and (tmp_path / "pwned.dir").exists()

def test_a_nested_module_argument_names_a_registered_builder_too(tmp_path):
    from tpr_nb.hrr.chunk_model import ChunkHRR
    from tpr_nb.hrr.training import make_lm
    m = build(ChunkHRR,
              make_lm("fixed_big", 30, Config(d=8, n_layers=2, dropout=0.0, anneal_steps=0)), 2, 0)
    save_model(m, tmp_path)
    spec = json.loads((tmp_path / MODEL_JSON).read_text())
    spec["kwargs"]["word"] = {"__module__": {"call": "tpr_nb.data:os.system", "kwargs": {"command": f"touch {tmp_path}/x"}}}
    (tmp_path / MODEL_JSON).write_text(json.dumps(spec))
    with pytest.raises(ModelFileError, match="is not a registered model builder"):
        load_model(tmp_path)
    assert not (tmp_path / "x").exists()

def test_build_keeps_only_registered_builders():
    from tpr_nb.modelfiles import model_spec
    with pytest.raises(ValueError, match="not a registered model builder"):
        model_spec(build(nn.Linear, 3, 2))

def test_weights_are_checked_against_their_sha256(tmp_path):
    from tpr_nb.data import sha256_file
    save_model(_dyck_model(), tmp_path)
    spec, w = json.loads((tmp_path / MODEL_JSON).read_text()), tmp_path / MODEL_WEIGHTS
    assert spec["sha256"] == sha256_file(w)
    # a flipped byte after the header: still loads as safetensors
    b = bytearray(w.read_bytes())
    b[-3] ^= 0xFF
    w.write_bytes(bytes(b))
    load_file(w)
    with pytest.raises(ModelFileError, match=r"best.safetensors: its sha256 .* does not match"):
        load_model(tmp_path)
    del spec["sha256"]
    (tmp_path / MODEL_JSON).write_text(json.dumps(spec))
    with pytest.raises(ModelFileError, match="model.json gives no sha256"): load_model(tmp_path)

def test_non_finite_weights_and_unexpected_dtypes_are_refused(tmp_path):
    m = _dyck_model()
    with torch.no_grad(): m.readout.weight[0, 0] = float("nan")
    save_model(m, tmp_path / "nan")
    with pytest.raises(ModelFileError, match="readout.weight .*not finite"):
        load_model(tmp_path / "nan")
    save_model(_dyck_model().half(), tmp_path / "half")
    with pytest.raises(ModelFileError, match="float16.*expects float32"):
        load_model(tmp_path / "half")

def test_shipped_models_carry_their_weights_sha256():
    from tpr_nb.data import sha256_file
    from tpr_nb.models import models_dir, shipped_names
    for n in shipped_names():
        spec = json.loads((models_dir() / n / MODEL_JSON).read_text())
        assert spec.get("sha256") == sha256_file(models_dir() / n / spec["weights"]), n

def test_demo_model_takes_a_shipped_name(capsys):
    from tpr_nb.cli import main
    assert main(["demo", "dyck", "(<>)", "--model", "urn-dyck-urn50"]) == 0, capsys.readouterr().err
    assert "of 2 closing brackets predicted right" in capsys.readouterr().out

# ---------------------------------------------------------------- verdicts

def test_verdict_comes_from_the_registered_rule(tmp_path):
    "A record's stored rule is provenance: `ours == ours` does not make a claim hold, and the difference is reported."
    from tpr_nb.claims import get_claim
    from tpr_nb.overview import assemble
    from tpr_nb.report import load_records, record, verdict
    rec = record(
        "tpr_rnn", "task01_error", 40.0, profile="quick", seeds=[0], wall_s=1, out=tmp_path
    )
    f = tmp_path / "metrics" / "tpr_rnn__babi_single.json"
    recs = json.loads(f.read_text())
    recs[0].update(rule="ours == ours", holds="yes")
    f.write_text(json.dumps(recs))
    r = load_records(tmp_path)[("tpr_rnn", "task01_error")]
    vd, why = verdict(get_claim("tpr_rnn", "task01_error"), r, {})
    assert vd == "fails" and "ours == ours" in why and "registered" in why, (vd, why)
    assemble("quick", tmp_path)
    import pandas as pd
    row = pd.read_csv(tmp_path / "claims.csv").set_index("claim_id").loc["task01_error"]
    assert (row.verdict, row.holds) == ("fails", "no")
    assert "`ours <= paper + 1.0`" in (tmp_path / "REPORT.md").read_text()

def test_report_follows_a_changed_registered_rule(tmp_path, monkeypatch):
    "Change a claim's rule in the registry: `tpr-nb report` shows the new rule's verdict, not the one stored at record time."
    import pandas as pd
    import tpr_nb.overview as ov
    import tpr_nb.report as rp
    rp.record("tpr_rnn", "task01_error", 0.4, profile="quick", seeds=[0], wall_s=1, out=tmp_path)
    ov.assemble("quick", tmp_path)
    assert (
        pd.read_csv(tmp_path / "claims.csv").set_index("claim_id").loc["task01_error"].verdict
        == "holds"
    )
    new = [
        dataclasses.replace(c, rule="ours <= 0.1") if
        (c.paper, c.claim_id) == ("tpr_rnn", "task01_error") else c for c in rp.CLAIMS
    ]
    monkeypatch.setattr(rp, "CLAIMS", new)
    ov.assemble("quick", tmp_path)
    assert (
        pd.read_csv(tmp_path / "claims.csv").set_index("claim_id").loc["task01_error"].verdict
        == "fails"
    )

@pytest.mark.parametrize("rule", ["ours < 9**9**9", "ours < 9**99", "ours < 1e300", "ours < 10**ours",
                                  "ours * 'abc' == 'x'", "ours < " + " + ".join(["1"] * 200)])
def test_rules_are_bounded(rule):
    "No exponent towers, no huge constants, no strings, no giant expressions: a rule cannot hang the report."
    from tpr_nb.claims import parse_rule, read_claims
    with pytest.raises(ValueError, match="rule"): parse_rule(rule)
    toml = f'[[claims]]\nexperiment = "e"\nclaim_id = "x"\nmetric = "m"\nsource = "s"\nrule = """{rule}"""\n'
    with pytest.raises(ValueError, match="rule"): read_claims(toml, "urn")

def test_bounded_rules_still_evaluate():
    from tpr_nb.claims import eval_rule
    assert eval_rule("ours ** 2 <= paper + 1", 2.0, 3.0) and eval_rule("abs(ours - paper) < 0.5 * paper", 1.0, 1.2)

# ---------------------------------------------------------------- records

def make_nb(path: Path, body: str, params: str = 'profile = "smoke"'):
    p = new_code_cell(params)
    p.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell("# test"), p, new_code_cell(body)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)

FIVE = ["task01_error", "task02_error", "task03_error", "task04_error", "task05_error"]

def _records(values, fail_after=None):
    lines = ["from tpr_nb.experiment import Run", "run = Run('tpr_rnn', profile, out, commit)"]
    for i, (cid, v) in enumerate(zip(FIVE, values)):
        if i == fail_after: lines.append("raise RuntimeError('boom: died after some records')")
        lines.append(f"run.record({cid!r}, {v}, seeds=[0], wall_s=1.0)")
    return "\n".join(lines + ["run.finish()"])

def _snapshot(folder: Path, skip=("REPORT.md", "runs.json")) -> dict:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*")) if p.is_file() and p.name not in skip
        and not p.name.startswith(".") and p.suffix != ".png" and ".failed" not in p.name
    }

def test_a_failed_rerun_keeps_the_last_good_records(tmp_path):
    "A notebook that fails after 3 of its 5 records: the 5 good records, its executed copy and the claims are as they were."
    from tpr_nb.runner import repro
    from tpr_nb.report import load_records
    nb, out = tmp_path / "nbs" / "tpr_rnn" / "10_five.ipynb", tmp_path / "reports" / "smoke"
    make_nb(nb, _records([0.1, 0.2, 0.3, 0.4, 0.5]))
    runs, _ = repro("smoke", nbs=tmp_path / "nbs", out=out)
    assert runs[0]["status"] == "ok"
    before = _snapshot(out)
    make_nb(nb, _records([9, 9, 9, 9, 9], fail_after=3))
    runs, report = repro("smoke", nbs=tmp_path / "nbs", out=out)
    assert runs[0]["status"] == "failed" and "kept" in runs[0]["error"], runs[0]
    # records, executed copy, claims.csv: unchanged
    assert _snapshot(out) == before
    assert {
        k[1]: r["ours"]
        for k, r in load_records(out).items()
    } == dict(zip(FIVE, [0.1, 0.2, 0.3, 0.4, 0.5]))
    assert not list(out.rglob("*staging*")) or not any(
        p.is_file() for p in out.rglob("*staging*/**/*")
    )
    text = report.read_text()
    assert "10_five.ipynb | failed" in text and "last good records" in text

def test_the_reports_flag_records_whose_notebook_changed_since_it_ran(tmp_path):
    "An executed copy whose notebook's code changed since: `older` in the report and its claims flagged."
    from tpr_nb.runner import repro
    from tpr_nb.overview import assemble, assemble_overview
    nbs, reports = tmp_path / "nbs", tmp_path / "reports"
    nb = nbs / "tpr_rnn" / "10_five.ipynb"
    body = lambda v: "\n".join([
        "from tpr_nb.experiment import Run",
        "run = Run('tpr_rnn', profile, out, commit, notebook='tpr_rnn/10_five')",
        f"run.record('task01_error', {v}, seeds=[0], wall_s=1.0)", "run.finish()"])
    make_nb(nb, body(0.1))
    _, report = repro("smoke", nbs=nbs, out=reports / "smoke")
    row, flag = "| tpr_rnn/10_five.ipynb | ok |", "(older code: tpr_rnn/10_five changed since it ran)"
    text = report.read_text()
    assert f"{row}" in text and text.split(row)[1].split("\n")[0].endswith("| current |")
    assert flag not in text
    # a comment and a re-wrapped line are not a change of code
    make_nb(nb, body(0.1).replace("run.finish()", "run.finish()   # a comment"))
    assert "| current |" in assemble("smoke", reports / "smoke", nbs=nbs).read_text()
    make_nb(nb, body(0.2))
    text = assemble("smoke", reports / "smoke", nbs=nbs).read_text()
    assert text.split(row)[1].split("\n")[0].endswith("| older |"), text
    assert flag in text and 'ONLY="tpr_rnn/10_five"' in text
    # the one page marks the profile the value comes from
    assert "| smoke (older code) |" not in assemble_overview(reports, nbs).read_text()   # not a profile of it
    (reports / "smoke").rename(reports / "quick")
    for p in (reports / "quick" / "metrics").glob("*.json"):
        p.write_text(p.read_text().replace('"smoke"', '"quick"'))
    assert "| quick (older code) |" in assemble_overview(reports, nbs).read_text()

def test_report_files_are_written_atomically(tmp_path, monkeypatch):
    "A full disk in the middle of writing claims.csv, REPORT.md or a figure leaves the previous file whole, and no temporary file."
    import csv
    import matplotlib.figure
    import tpr_nb.overview as ov
    import tpr_nb.report as rp
    rp.record("tpr_rnn", "task01_error", 0.4, profile="quick", seeds=[0], wall_s=1, out=tmp_path)
    ov.assemble("quick", tmp_path)
    def full_disk(*a, **k): raise OSError(28, "No space left on device")
    real_row, real_text = csv.DictWriter.writerow, Path.write_text
    calls = {"n": 0}
    def some_rows(self, row):
        calls["n"] += 1
        return real_row(self, row) if calls["n"] <= 5 else full_disk()
    def half_text(self, data, *a, **k):
        real_text(self, data[: len(data) // 2], *a, **k)
        full_disk()
    def half_png(self, fname, *a, **k):
        Path(fname).write_bytes(b"\x89PNG half")
        full_disk()
    for name, (owner, attr, fake) in {
            "claims.csv": (csv.DictWriter, "writerow", some_rows),
            "REPORT.md": (Path, "write_text", half_text),
            "claims.png": (matplotlib.figure.Figure, "savefig", half_png)
    }.items():
        before = (tmp_path / name).read_bytes()
        with monkeypatch.context() as m:
            m.setattr(owner, attr, fake)
            with pytest.raises(OSError): ov.assemble("quick", tmp_path)
        assert (tmp_path / name).read_bytes() == before, name
        assert not [p.name for p in tmp_path.iterdir() if "tmp" in p.name]

def test_runs_json_holds_no_absolute_path(tmp_path):
    from tpr_nb.runner import read_runs, repro, write_runs
    make_nb(tmp_path / "nbs" / "urn" / "10_ok.ipynb", "x = 1")
    out = tmp_path / "reports" / "smoke"
    repro("smoke", nbs=tmp_path / "nbs", out=out)
    text = (out / "runs.json").read_text()
    assert str(tmp_path) not in text and '"/' not in text, text
    old = [dict(notebook="a/10_x.ipynb", status="ok", wall_s=1.0, error="", output=str(ROOT / "reports" / "quick" / "notebooks" / "a" / "10_x.ipynb"))]
    # as older versions wrote it
    (out / "runs.json").write_text(json.dumps(old))
    write_runs(out, [])
    assert read_runs(out)[0]["output"] == "reports/quick/notebooks/a/10_x.ipynb"

# ---------------------------------------------------------------- overrides

DYCK = ROOT / "nbs" / "urn" / "10_dyck.ipynb"

@pytest.mark.parametrize("overrides, named", [
    ({"seeds": [0, 0]}, "seeds: a list of distinct non-negative integers"),
    ({"seeds": "[0,1"}, "seeds: a list of distinct non-negative integers"),
    ({"seeds": [-1]}, "seeds: a list of distinct non-negative integers"),
    ({"seeds": []}, "seeds: a list of distinct non-negative integers"),
    ({"max_steps": "abc"}, "max_steps: a positive integer"),
    ({"max_steps": 0}, "max_steps: a positive integer"),
    ({"eval_every": 0}, "eval_every: a positive integer"),
    ({"max_steps": 2.5}, "max_steps: a positive integer"),
    ({"kinds": ["lstm", "gru9"]}, "kinds: a list of distinct known values"),
    ({"lr": "fast"}, "lr: a positive number"),
])
def test_set_values_are_checked_against_their_settings(overrides, named):
    from tpr_nb.papers import experiment
    with pytest.raises(ValueError, match=named) as e: experiment(DYCK).check("quick", overrides)
    assert "--set" in str(e.value)

def test_good_set_values_pass():
    from tpr_nb.papers import experiment
    _, c = experiment(DYCK).check(
        "quick", {"seeds": [1, 2], "max_steps": 5, "kinds": ["lstm", "urn8"], "lr": 0.01}
    )
    assert c["seeds"] == [1, 2] and c["kinds"] == ["lstm", "urn8"]

def test_partial_run_claims_are_not_measured(tmp_path):
    "A run of task 1 alone (of the profile's 20) records its task's error; the mean over all tasks is `not measured (partial run)`; its REPORT.md lists only tpr_rnn."
    from tpr_nb.runner import repro
    from tpr_nb.report import load_records, judged
    body = ("from tpr_nb.experiment import start\n"
            "run = start('tpr_rnn/11_all_tasks', profile, overrides, out, commit)\n"
            "run.record('all_mean_error', 0.5, seeds=run.config.seeds, wall_s=1.0)\n"
            "run.record('all_task01_error', 0.0, seeds=run.config.seeds, wall_s=1.0)\n"
            "run.finish()\n")
    make_nb(tmp_path / "nbs" / "tpr_rnn" / "11_all_tasks.ipynb", body,
            'profile = "smoke"\noverrides = {}')
    runs, report = repro("smoke", only="tpr_rnn/11", nbs=tmp_path / "nbs", out=tmp_path / "runs", overrides={"tasks": [1]})
    assert runs[0]["status"] == "ok", runs
    recs = load_records(report.parent)
    vs = judged(recs)
    assert (
        vs[("tpr_rnn", "all_mean_error")][0] == "not measured"
        and "partial run" in vs[("tpr_rnn", "all_mean_error")][1]
    )
    assert vs[("tpr_rnn", "all_task01_error")][0] == "holds"
    text = report.read_text()
    assert "## tpr_rnn" in text and "## urn" not in text and "## hubert" not in text
    assert "not measured (partial run" in text

# ---------------------------------------------------------------- units

def _toy_batches(n):
    X = torch.randn(n, 3, generator=torch.Generator().manual_seed(n))
    y = X.sum(-1)
    return X, y

def _fit_row(c, out, calls):
    X, y = _toy_batches(c.n_train)
    def evaluate(m):
        calls.append(1)
        return {"loss": (m(X).squeeze(-1) - y).pow(2).mean()}
    return fit(lambda s: nn.Linear(3, 1), lambda ep: [(X[i:i + 16], y[i:i + 16]) for i in range(0, len(X), 16)],
               lambda m, b: ((m(b[0]).squeeze(-1) - b[1]).pow(2).mean(), {}), evaluate, train_config(c, 0, out_dir=str(out)))

def test_the_fingerprint_covers_the_whole_row(tmp_path):
    "A finished run on 64 examples is not returned for a run of the same folder on 32: the row's n_train is in the fingerprint."
    row = dict(max_steps=8, eval_every=4, lr=0.05, progress=False)
    a, b = Config(row, n_train=64), Config(row, n_train=32)
    assert train_fingerprint(train_config(a)) != train_fingerprint(train_config(b))
    assert train_fingerprint(train_config(a)) == train_fingerprint(train_config(Config(a, progress=True, seeds=[0, 1])))
    calls = []
    _fit_row(a, tmp_path, calls)
    n = len(calls)
    _fit_row(b, tmp_path, calls)
    assert len(calls) > n, "the finished run of other data came back without training"

def test_a_legacy_checkpoint_resumes(tmp_path):
    "A checkpoint written before the fingerprint covered the row (its fingerprint in the old form) still resumes."
    from tpr_nb.train import _legacy_fingerprint
    c = Config(max_steps=8, eval_every=4, lr=0.05, progress=False, n_train=64)
    calls = []
    _fit_row(c, tmp_path, calls)
    st = tmp_path / "checkpoint" / "state.json"
    meta = json.loads(st.read_text())
    meta["trainer"]["config"] = _legacy_fingerprint(train_config(c, 0, out_dir=str(tmp_path)))
    st.write_text(json.dumps(meta))
    n = len(calls)
    _fit_row(c, tmp_path, calls)
    assert len(calls) == n and not list(tmp_path.glob("discarded-*"))

def test_a_unit_record_of_another_key_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TPR_NB_CACHE", str(tmp_path / "cache"))
    kept = tmp_path / "kept"
    unit = lambda name, seed, c, out_dir: dict(name=name, seed=seed, loss=c.steps)
    a = run_unit(unit, "toy", 0, Config(steps=1), kept, keys=["steps"])
    other = unit_key("toy", 0, Config(steps=2), ["steps"])
    # a record copied under another key
    (kept / f"{other}.json").write_text((kept / f"{a['unit']}.json").read_text())
    with pytest.raises(ValueError, match=f"{other}.json holds the record of unit {a['unit']}"):
        run_unit(unit, "toy", 0, Config(steps=2), kept, keys=["steps"])

def test_units_skips_damaged_cache_entries(tmp_path, capsys):
    from tpr_nb.units import format_units, unit_status
    folder, cache = tmp_path / "units", tmp_path / "cache"
    (folder / "urn").mkdir(parents=True)
    (folder / "urn" / "urn8_s0_0123456789.json").write_text(
        json.dumps(dict(steps=10, wall_s=1.0, note="")))
    (folder / "urn" / "lstm_s0_0123456789.json").write_text("{cut")
    for name, owner, state in [("a", b"\xff\xfe", None), ("b", json.dumps({"record": 5}), None), ("c", "[]", None),
                               ("d", json.dumps({"record": str(folder / "urn" / "d_s0_x.json")}), {"trainer": {"step": 3, "best": None, "best_step": 0}}),
                               ("e", json.dumps({"record": str(folder / "urn" / "e_s0_x.json")}), {"trainer": []})]:
        (cache / "units" / name).mkdir(parents=True)
        (cache / "units" / name / "record.json").write_bytes(
            owner if isinstance(owner, bytes) else owner.encode()
        )
        if state is not None:
            (cache / "units" / name / "checkpoint").mkdir()
            (cache / "units" / name / "checkpoint" / "state.json").write_text(json.dumps(state))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rows = unit_status(folder, cache)
    said = " ".join(str(x.message) for x in w)
    assert {r["unit"] for r in rows} >= {"urn8_s0_0123456789"} and "lstm_s0_0123456789.json" in said and "units/a/record.json" in said
    assert format_units(rows)

# ---------------------------------------------------------------- training

def _toy_fit(tmp_path, steps=8, evaluate=None, **kw):
    X = torch.randn(64, 3)
    y = X.sum(-1)
    ev = evaluate or (lambda m: {"loss": (m(X).squeeze(-1) - y).pow(2).mean()})
    return fit(lambda s: nn.Linear(3, 1), lambda ep: [(X[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)],
               lambda m, b: ((m(b[0]).squeeze(-1) - b[1]).pow(2).mean(), {}), ev,
               TrainConfig(**{**dict(max_steps=steps, eval_every=4, lr=0.05, out_dir=str(tmp_path) if tmp_path else None, progress=False), **kw}))

def test_a_validation_value_nan_at_every_evaluation_is_an_error(tmp_path):
    with pytest.raises(DivergedError, match="NaN at every evaluation"):
        _toy_fit(None, evaluate=lambda m: {"loss": float("nan")})

@pytest.mark.parametrize("kw, named", [(dict(mode="maximum"), "mode 'maximum'"),
                                       (dict(warmup_kind="cosine"), "warmup_kind 'cosine'"),
                                       (dict(max_steps=0), "max_steps"),
                                       (dict(eval_every=0), "eval_every")])
def test_fit_refuses_unknown_settings(kw, named):
    with pytest.raises(ValueError, match=named): _toy_fit(None, **kw)

def test_a_missing_best_weights_file_at_resume_is_named(tmp_path):
    _toy_fit(tmp_path)
    (tmp_path / "best.safetensors").unlink()
    with pytest.raises(CheckpointError, match="best.safetensors is missing"): _toy_fit(tmp_path)

# ---------------------------------------------------------------- data and inputs

LINZEN_HEAD = "sentence\tverb_index\tverb_pos\tn_diff_intervening\n"

@pytest.mark.parametrize("rows, named", [
    ("the dogs near the car bark\t6\tVBP\t1\nthe dog barks\t3\n", "row 3: no verb_pos"),
    ("the dog barks\tthree\tVBZ\t0\n", "row 2: verb_index 'three' is not an integer"),
    ("the dog barks\t3\tVBZ\tmany\n", "row 2: n_diff_intervening 'many' is not an integer"),
])
def test_a_malformed_linzen_row_is_named(rows, named):
    from tpr_nb.urn.agreement import parse_linzen_tsv
    with pytest.raises(ValueError, match=named): parse_linzen_tsv(LINZEN_HEAD + rows, "agr.tsv")

def test_the_linzen_corpus_file_is_checked(tmp_path, monkeypatch):
    from tpr_nb.urn.agreement import linzen_corpus
    d = tmp_path / "linzen_agreement"
    d.mkdir()
    with gzip.open(d / "agr_50_mostcommon_10K.tsv.gz", "wt") as fh:
        fh.write(LINZEN_HEAD + "the dog barks\t3\tVBZ\n")
    monkeypatch.setenv("TPR_NB_DATA", str(tmp_path))
    monkeypatch.setenv("TPR_NB_CACHE", str(tmp_path / "c"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError,
                           match=r"agr_50_mostcommon_10K.tsv.gz, row 2: no n_diff_intervening"):
            linzen_corpus()

def test_a_babi_story_line_with_a_tab_is_named():
    from tpr_nb.tpr_rnn.babi import parse_babi
    text = "1 Mary moved to the bathroom.\n2 John went\tto the hallway.\n3 Where is Mary? \tbathroom\t1\n"
    with pytest.raises(ValueError, match=r"qa1.txt, line 2: .*tab"): parse_babi(text, "qa1.txt")

@pytest.mark.skipif(not MIRROR, reason="needs TPR_NB_DATA (the shared mirror)")
def test_every_real_babi_file_still_parses():
    from tpr_nb.tpr_rnn.babi import BABI_TASKS, load_babi
    for t in BABI_TASKS: assert len(load_babi(t, "test")) == 1000

def test_lstm_baselines_check_ids():
    from tpr_nb.urn.model import LSTMTagger
    from tpr_nb.hrr.model import LSTMLM
    from tpr_nb.tpru.training import RNNLM
    for m in (LSTMTagger(12, 4, 6, 12), LSTMLM(12, 8, 2, 0.0), RNNLM("lstm", 12, 8, 4, 2, 0.0)):
        for bad in (-1, 12):
            with pytest.raises(ValueError, match=r"lie in 0..11"): m(torch.tensor([[3, bad]]))

def test_urn_phrase_matrix_checks_ids():
    from tpr_nb.urn.model import URN
    with pytest.raises(ValueError, match=r"lie in 0..11"): URN(12, 8, 12).phrase_matrix(torch.tensor([3, 12]))

def test_tpr_rnn_and_lstm_reader_check_story_counts():
    from tpr_nb.tpr_rnn.model import LSTMReader, TPRRNN
    story, q = torch.randint(1, 10, (2, 3, 4)), torch.randint(1, 10, (2, 4))
    for m in (TPRRNN(10, 4, 4, 3), LSTMReader(10, 4, d_hidden=6)):
        m(story, torch.tensor([3, 1]), q)
        for bad in ([0, 2], [4, 2], [-1, 2]):
            with pytest.raises(ValueError, match=r"n_sent must be 2 integers in 1..3"): m(story, torch.tensor(bad), q)
        with pytest.raises(ValueError, match=r"n_sent must be 2 integers"): m(story, torch.tensor([2.5, 1.0]), q)

def test_tpru_lengths_must_be_integers():
    from tpr_nb.tpru.cell import TPRU
    rnn = TPRU(4, 6, 8, batch_first=True)
    with pytest.raises(ValueError, match="lengths must be 2 integers"): rnn(torch.randn(2, 5, 4), lengths=torch.tensor([2.5, 3.0]))
    rnn(torch.randn(2, 5, 4), lengths=torch.tensor([2, 5]))

def test_hubert_checks_token_type_ids():
    from tpr_nb.hubert.model import HUBERT
    from tpr_nb.hubert.training import make_encoder
    m = HUBERT(make_encoder(Config(encoder="tiny"), 0), 2, "hubert_transformer", "mean", 16, tpr=dict(d_S=4, d_R=3, n_S=5, n_R=6, n_heads=2))
    ids, mask = torch.randint(1000, 2000, (2, 5)), torch.ones(2, 5, dtype=torch.long)
    m(ids, mask, torch.zeros(2, 5, dtype=torch.long))
    for bad in (torch.full((2, 5), 2), torch.full((2, 5), -1)):
        with pytest.raises(ValueError, match=r"token_type_ids must lie in 0..1"): m(ids, mask, bad)
    with pytest.raises(ValueError, match=r"token_type_ids must have the shape of input_ids"): m(ids, mask, torch.zeros(2, 1, dtype=torch.long))

# ---------------------------------------------------------------- corrupt bookkeeping

def test_a_corrupt_runs_json_is_named_with_its_fix(tmp_path, capsys):
    from tpr_nb.cli import main
    from tpr_nb.runner import read_runs
    (tmp_path / "runs.json").write_text('[{"notebook": "a/10_x.ipynb", ')
    assert main(["report", "--profile", "smoke", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "runs.json is damaged" in err and "restore it" in err, err
    with pytest.raises(ValueError, match="runs.json is damaged"): read_runs(tmp_path)
    # left where it is, for the user to restore
    assert (tmp_path / "runs.json").exists()

def test_a_metrics_file_of_the_wrong_shape_is_named(tmp_path):
    from tpr_nb.report import load_records
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "urn__dyck.json").write_text('[{"paper": "urn"}]')
    with pytest.raises(ValueError, match="urn__dyck.json is damaged"): load_records(tmp_path)
    (tmp_path / "metrics" / "urn__dyck.json").write_text('{"paper": "urn"}')
    with pytest.raises(ValueError, match="urn__dyck.json is damaged"): load_records(tmp_path)

def _executed(tmp_path):
    nbs, out = tmp_path / "nbs", tmp_path / "reports" / "quick"
    make_nb(nbs / "urn" / "10_x.ipynb", "x = 1")
    (out / "notebooks" / "urn").mkdir(parents=True)
    (out / "notebooks" / "urn" / "10_x.ipynb").write_text('{"cells": [')
    return nbs, out

def test_prose_names_a_damaged_executed_copy(tmp_path, capsys):
    from tpr_nb.cli import main
    nbs, out = _executed(tmp_path)
    assert main(["prose", "--nbs", str(nbs), "--out", str(out)]) == 1
    said = capsys.readouterr().out
    assert "damaged" in said and "10_x.ipynb" in said and "code changed" not in said, said

def test_figures_names_a_damaged_executed_copy(tmp_path, capsys):
    from tpr_nb.cli import main
    nbs, out = _executed(tmp_path)
    assert main(["figures", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "notebooks/urn/10_x.ipynb is damaged" in err, err

def test_cached_run_names_a_damaged_file(tmp_path):
    from tpr_nb.units import cached_run, run_key
    run = lambda name, seed, c: dict(name=name, seed=seed, acc=0.5, state={"w": torch.ones(2)})
    c = Config(lr=1.0)
    cached_run("toy", 0, c, tmp_path, run)
    key = tmp_path / run_key("toy", 0, c)
    key.with_suffix(".json").write_text("{cut")
    with pytest.raises(ValueError, match=rf"{key.name}.json is damaged.*retrain=True"): cached_run("toy", 0, c, tmp_path, run)
    cached_run("toy", 0, c, tmp_path, run, retrain=True)
    key.with_suffix(".safetensors").write_bytes(b"\x00" * 12)
    with pytest.raises(ValueError, match=rf"{key.name}.safetensors is damaged"): cached_run("toy", 0, c, tmp_path, run)
