"""Committed unit records keep their keys: each key, recomputed from today's profile tables, names its file.

A unit's key (`tpr_nb.units.unit_key`, as `run_unit` computes it) hashes its profile row restricted to the paper's
unit-key list. A default added to a `common` row for a key in that list, or any changed value, would change the key,
and `run_unit` would train again the hours of work whose records are committed. Each builder below rebuilds a unit's
settings the way the code that trains it does."""
import json, re
from pathlib import Path
import pytest
from tpr_nb.profiles import Config, profile_config
from tpr_nb.units import unit_key

ROOT = Path(__file__).resolve().parents[1]

def tpr_rnn_unit(profile: str, name: str, rec: dict):
    "As tpr_rnn/10_single_task ('taskNN'), 11_all_tasks ('alltasks') and 12_ablation ('<variant>_taskNN') build a unit's row."
    from tpr_nb.tpr_rnn.training import SINGLE_TASK, ALL_TASK, ABLATION, TASK_UNIT, ALL_UNIT
    if name == "alltasks": return profile_config(ALL_TASK, profile), ALL_UNIT
    return profile_config(ABLATION if "_" in name else SINGLE_TASK, profile), TASK_UNIT

def tpru_unit(profile: str, name: str, rec: dict):
    "As tpru/10_entailment builds it: the profile's row at the job's Adam rate, without progress bars."
    from tpr_nb.tpru.training import ENTAIL, ENTAIL_UNIT
    return Config(profile_config(ENTAIL, profile), lr=rec["lr"], progress=False), ENTAIL_UNIT

def urn_shipped_unit(profile: str, name: str, rec: dict):
    "As `tpr_nb.models.ship_dyck_urn` builds it: the quick Dyck row, without progress bars."
    from tpr_nb.urn.training import DYCK, DYCK_UNIT
    return profile_config(DYCK, "quick", progress=False), DYCK_UNIT

def committed_units():
    "(path, profile, builder) of every committed unit record: reports/<profile>/units/<paper>/ and models/records/."
    builders = {"tpr_rnn": tpr_rnn_unit, "tpru": tpru_unit}
    for f in sorted(ROOT.glob("reports/*/units/*/*.json")):
        yield f, f.parts[-4], builders.get(f.parts[-2])
    for f in sorted(ROOT.glob("models/records/*.json")):
        yield f, "quick", urn_shipped_unit if re.match(r"(urn\d+|lstm)_s\d+_", f.name) else None

UNITS = list(committed_units())

def test_there_are_committed_units():
    papers = {f.parts[-2] for f, _, _ in UNITS}
    assert {"tpru", "records"} <= papers, papers      # tpr_rnn's units are retrained on TF 1.x Nadam (issue 51)

@pytest.mark.parametrize("f,profile,builder", UNITS, ids=[str(f.relative_to(ROOT)) for f, _, _ in UNITS])
def test_unit_key_names_its_file(f, profile, builder):
    assert builder is not None, f"{f}: no rule here for how its notebook builds the unit's settings; add one"
    rec = json.loads(f.read_text())
    name, seed, _ = re.fullmatch(r"(.+)_s(\d+)_([0-9a-f]{10})", f.stem).groups()
    assert rec["unit"] == f.stem and rec["seed"] == int(seed), f"{f}: the record's unit/seed disagree with its name"
    c, keys = builder(profile, name, rec)
    key = unit_key(name, int(seed), c, keys)
    shaping = {k: c[k] for k in keys if k in c}
    assert key == f.stem, f"{f}: today's profile table gives the key {key}; its settings: {shaping}"
