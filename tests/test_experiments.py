"Smoke runs, through papermill, of every experiment notebook of the project (the runner's own path)."
from pathlib import Path
import pytest
from tpr_nb.runner import experiment_notebooks, run_notebook

NBS = Path(__file__).resolve().parents[1] / "nbs"
EXPERIMENTS = experiment_notebooks(NBS)

@pytest.mark.parametrize("nb", EXPERIMENTS, ids=[str(p.relative_to(NBS)) for p in EXPERIMENTS])
def test_experiment_notebook_smoke(nb, tmp_path):
    r = run_notebook(nb, tmp_path / nb.name, "smoke", tmp_path)
    assert r["status"] == "ok", r["error"]
    assert list(
        (tmp_path / "metrics").glob("*.json")
    ), "an experiment notebook must record() its results"

def test_every_experiment_notebook_defaults_to_smoke():
    import json
    for nb in EXPERIMENTS:
        cells = json.loads(nb.read_text())["cells"]
        p = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
        assert "".join(p["source"]).splitlines()[0].replace(" ", "") == 'profile="smoke"', nb

def test_every_experiment_notebook_takes_its_inputs_as_parameters():
    """Each is registered (tpr_nb/papers.toml), declares `profile`, `overrides`, `out` and `commit` in its parameters
    cell, starts its run from them under its own name and ends with `run.finish()`; its table rejects an unknown key
    (`tpr-nb repro --set`)."""
    import json
    from tpr_nb.papers import experiment, experiments
    assert len(EXPERIMENTS) >= 21
    assert sorted(e.notebook for e in experiments()) == sorted(
        f"{nb.parent.name}/{nb.stem}" for nb in EXPERIMENTS
    )
    for nb in EXPERIMENTS:
        e = experiment(nb)
        base, same = e.check("smoke", {})
        assert base == same and base["profile"] == "smoke", nb
        with pytest.raises(ValueError, match="unknown setting 'no_such_setting'"):
            e.check("smoke", {"no_such_setting": 1})
        cells = [c for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code"]
        params = "".join(
            next(c for c in cells if "parameters" in c["metadata"].get("tags", []))["source"])
        assert [l.split("=")[0].strip() for l in params.splitlines()] == ["profile", "overrides", "out", "commit"], nb
        code = ["".join(c["source"]) for c in cells]
        assert any(f'start("{e.notebook}", profile, overrides, out, commit)' in s for s in code), nb
        assert [s for s in code if not s.startswith("#| hide")][-1].startswith("run.finish()"), nb

def test_entailment_lands_table2_then_each_figure_seed_by_seed(tmp_path, monkeypatch):
    """`tpru/10_entailment` with units over two seeds lands Table 2's records, then Fig. 1's role sweep, then Fig. 2's
    slices, over the seeds finished so far: a queue that stops part-way has Fig. 1 on the first seed before the rest."""
    import json
    monkeypatch.setenv("TPR_NB_CACHE", str(tmp_path / "cache"))
    nb, report = NBS / "tpru" / "10_entailment.ipynb", tmp_path / "report"
    r = run_notebook(
        nb, tmp_path / nb.name, "smoke", report, overrides={"units": True, "seeds": [0, 1]}
    )
    assert r["status"] == "ok", r["error"]
    cells = json.loads(Path(r["output"]).read_text())["cells"]
    text = "".join("".join(o.get("text", "")) for c in cells if c["cell_type"] == "code"
                   for o in c["outputs"])
    landed = [l.split(": ")[0] for l in text.splitlines() if " landed over seeds " in l]
    t2, figs = "Table 2's encoders landed over seeds", "Figs. 1 and 2's models landed over seeds"
    assert landed == [f"{t2} [0]", f"{t2} [0, 1]"] + [f"{figs} [0]"] * 2 + [f"{figs} [0, 1]"] * 2
    first, second = [
        int(l.split(": ")[1].split()[0]) for l in text.splitlines() if l.startswith(f"{figs} [0]:")
    ]
    # Fig. 1's claims land before Fig. 2's models have trained
    assert first < second
    recs = {
        x["claim_id"]: x
        for x in json.loads((report / "metrics" / "tpru__logical_entailment.json").read_text())
    }
    for claim in ("gru_val", "roles_spearman_val", "tpru8_minus_gru_val", "slices8_gain_small_n"):
        assert recs[claim]["seeds"] == [0, 1], claim
    # the learning curves of each group, drawn as it lands (the notebook's own figures come at its end)
    for name in ("table2", "fig1", "fig2"):
        f = report / "figures" / "tpru" / f"10_entailment-{name}.png"
        assert f.read_bytes()[:4] == b"\x89PNG", name
        assert f"learning curves: figures/tpru/10_entailment-{name}.png" in text, name
