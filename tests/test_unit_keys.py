"""Committed unit records keep their keys: each key, recomputed from today's registry, names its file.

A unit's key (`tpr_nb.units.unit_key`, as `run_unit` computes it) hashes its profile row restricted to the settings
its experiment's `Units` names (`keys`). A default added to a `common` row for one of those settings, or any changed
value, would change the key, and `run_unit` would train again the hours of work whose records are committed. The
unit layout comes from the one place the notebooks, the runner and `tpr-nb units` read it: the registry of
experiments (tpr_nb/papers.toml, each experiment's `Units`). A record belongs to the experiment of its paper whose row
at the record's profile trains a unit of that name; the unit's row is that row, with the settings that vary from unit
to unit (`Units.varies`, the TPRU entailment's searched rate) read from the record."""
import json, re
from pathlib import Path
import pytest
from tpr_nb.models import SHIPPED_UNITS
from tpr_nb.papers import paper_in

ROOT = Path(__file__).resolve().parents[1]

def owners(folder: str, profile: str, name: str) -> list:
    "(experiment, units, row) of each experiment of the paper in `folder` that trains a unit `name` at `profile`."
    out = []
    for e in paper_in(folder).experiments.values():
        u = e.unit_spec()
        if u is None or profile not in e.settings(): continue
        c = e.config(profile)
        if name in u.names(c): out.append((e, u, c))
    return out

def committed_units():
    "(path, paper folder, profile) of every committed unit record: reports/<profile>/units/<folder>/, models/records/."
    for f in sorted(ROOT.glob("reports/*/units/*/*.json")): yield f, f.parts[-2], f.parts[-4]
    # the shipped models' units (tpr_nb.models.ship_dyck_urn)
    notebook, profile = SHIPPED_UNITS
    for f in sorted(ROOT.glob("models/records/*.json")): yield f, notebook.split("/")[0], profile

UNITS = list(committed_units())

def test_there_are_committed_units():
    papers = {f.parts[-2] for f, _, _ in UNITS}
    # tpr_rnn's units are retrained on TF 1.x Nadam (issue 51)
    assert {"tpru", "records"} <= papers, papers

@pytest.mark.parametrize("f,folder,profile", UNITS, ids=[str(f.relative_to(ROOT)) for f, _, _ in UNITS])
def test_unit_key_names_its_file(f, folder, profile):
    rec = json.loads(f.read_text())
    name, seed, _ = re.fullmatch(r"(.+)_s(\d+)_([0-9a-f]{10})", f.stem).groups()
    assert rec["unit"] == f.stem and rec["seed"] == int(
        seed
    ), f"{f}: the record's unit/seed disagree with its name"
    found = owners(folder, profile, name)
    assert (
        len(found) == 1
    ), f"{f}: {len(found)} registered experiments of {folder} train a unit {name!r} at {profile}"
    e, u, c = found[0]
    row = u.row(c, rec)
    key = u.key(name, int(seed), row)
    shaping = {k: row[k] for k in u.keys if k in row}
    assert (
        key == f.stem
    ), f"{f}: today's profile table ({e.notebook}) gives the key {key}; its settings: {shaping}"

def test_a_screen_unit_trained_ahead_is_the_notebooks():
    "`tpr-nb units --train tpru/10_entailment --set lr=.. max_steps=..` trains the unit the notebook's rate screen runs."
    from tpr_nb.experiment import start
    from tpr_nb.profiles import Config
    from tpr_nb.runner import parse_set
    from tpr_nb.tpru.training import search_row
    run = start("tpru/10_entailment", "full")
    c, u = run.config, run.units
    steps = c.lr_screen_steps
    # Table 2's, then Figs. 1 and 2's models
    for name in dict.fromkeys(c.kinds + c.sweep + c.slices):
        for lr in c.lr_grid:
            # a job of screened_search's first stage
            job = dict(name=name, lr=lr, seed=0, max_steps=steps)
            # as `tpr-nb units` reads them
            ahead = Config(c, **parse_set([f"lr={lr}", f"max_steps={steps}"]))
            assert u.key(name, 0, search_row(c, job)) == u.key(name, 0, ahead), (name, lr)
