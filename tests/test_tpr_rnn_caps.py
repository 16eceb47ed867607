"""TPR-RNN's step cap marks exactly the claims whose committed full units reached it still improving.

The paper stops on validation and the reference trains 1M steps; `full` trains a single-task unit up to the same 1M
steps and stops it after `patience` evaluations without a better validation error. A unit stopped by patience is the
same under any cap. A unit that reaches the cap with its best evaluation in the last `patience` evaluations was still
improving, so its claims would not be the paper's experiment: the card's `max_steps` row must then be a deviation
naming them (and only them). Before stop 71 the cap was 40k steps and bound four Table 2 units; the units record
what they replace (`tpr_nb.units.run_unit`)."""
import json
from pathlib import Path
import pytest
from tpr_nb.papers import experiment
from tpr_nb.profiles import Config
from tpr_nb.protocol import card_for, claim_protocol, protocol_rows
from tpr_nb.units import unit_records

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ("tpr_rnn/10_single_task", "tpr_rnn/12_ablation")

def cap_bound(hist: list, c) -> bool:
    "Whether a unit with evaluation history `hist` ended at the cap `c.max_steps` before patience would stop it."
    best = min(hist, key=lambda h: h["error"])["step"]
    last = hist[-1]["step"]
    return last >= c.max_steps and (c.patience is None or last < best + c.patience * c.eval_every)

def test_cap_bound():
    # the cap before stop 71
    c = Config(experiment("tpr_rnn/10_single_task").config("full"), max_steps=40000)
    at = lambda *steps_errors: [dict(step=s, error=e) for s, e in steps_errors]
    # still improving at the cap
    assert cap_bound(at((30000, 2.0), (38500, 1.0), (40000, 1.5)), c)
    # stopped by patience
    assert not cap_bound(at((20000, 1.0), (30000, 2.0)), c)
    # both stop at the same step
    assert not cap_bound(at((30000, 1.0), (40000, 2.0)), c)

def committed(notebook: str):
    "(unit name, bound) of each unit name of `notebook`'s full row with committed records, bound if any seed is."
    e = experiment(notebook)
    c, u = e.config("full"), e.unit_spec()
    folder, row = unit_records(ROOT / "reports/full", "tpr_rnn"), u.row(c, {})
    for name in u.names(c):
        recs = [folder / f"{u.key(name, s, row)}.json" for s in c.seeds]
        hists = [json.loads(f.read_text()).get("history") for f in recs if f.exists()]
        if hists: yield name, any(h and cap_bound(h, c) for h in hists)

@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_cap_row_names_the_bound_claims(notebook):
    card, c = card_for(notebook), experiment(notebook).config("full")
    rows = protocol_rows(card, c)
    seen = list(committed(notebook))
    # Table 2's records are committed
    if notebook.endswith("10_single_task"): assert len(seen) >= 17, seen
    for name, bound in seen:
        for claim in (f"{name}_error", f"{name}_best_error"):
            why = claim_protocol(card, claim, rows=rows)[1]
            capped = any(w.startswith("max_steps (") for w in why)
            assert (
                capped == bound
            ), f"{notebook} {claim}: cap-bound units {bound}, max_steps row says {capped}"
