"Smoke runs, through papermill, of every experiment notebook of the project (the runner's own path)."
from pathlib import Path
import pytest
from tpr_nb.cli import experiment_notebooks, run_notebook

NBS = Path(__file__).resolve().parents[1] / "nbs"
EXPERIMENTS = experiment_notebooks(NBS)

@pytest.mark.parametrize("nb", EXPERIMENTS, ids=[str(p.relative_to(NBS)) for p in EXPERIMENTS])
def test_experiment_notebook_smoke(nb, tmp_path):
    r = run_notebook(nb, tmp_path / nb.name, "smoke", tmp_path)
    assert r["status"] == "ok", r["error"]
    assert list((tmp_path / "metrics").glob("*.json")), "an experiment notebook must record() its results"

def test_every_experiment_notebook_defaults_to_smoke():
    import json
    for nb in EXPERIMENTS:
        cells = json.loads(nb.read_text())["cells"]
        p = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
        assert "".join(p["source"]).splitlines()[0].replace(" ", "") == 'profile="smoke"', nb

def test_every_experiment_notebook_takes_overrides():
    "Each defines `overrides` in its parameters cell and passes it to its profile_config call, whose table rejects an unknown key (`tpr-nb repro --set`)."
    from tpr_nb.cli import check_overrides
    assert len(EXPERIMENTS) >= 21
    for nb in EXPERIMENTS:
        base, same = check_overrides(nb, "smoke", {})                 # refuses a notebook without `overrides`
        assert base == same and base["profile"] == "smoke", nb
        with pytest.raises(ValueError, match="unknown setting 'no_such_setting'"):
            check_overrides(nb, "smoke", {"no_such_setting": 1})
