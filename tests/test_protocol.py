"""Protocol cards: every experiment notebook has one, shows it, and its `full` row matches the paper wherever no
deviation is registered (`tpr_nb.protocol`, nbs/03b_protocol.ipynb)."""
import dataclasses, json, re
from pathlib import Path
import pytest
from tpr_nb.papers import PAPERS, experiment
from tpr_nb.protocol import card_for, card_problems, load_cards, read_cards, PROTOCOL_DATA

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = sorted(f"{p.parent.name}/{p.stem}" for p in ROOT.glob("nbs/*/1[0-8]_*.ipynb"))
CARDS = [c for p in PAPERS for c in load_cards(p)]

def test_there_are_21_experiment_notebooks():
    assert len(EXPERIMENTS) == 21, EXPERIMENTS

@pytest.mark.parametrize("nb", EXPERIMENTS)
def test_every_experiment_notebook_has_a_card(nb):
    card_for(nb)

@pytest.mark.parametrize("nb", EXPERIMENTS)
def test_every_experiment_notebook_shows_its_card(nb):
    cells = json.loads((ROOT / "nbs" / f"{nb}.ipynb").read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert any(f'show_card("{nb}"' in s for s in code), f"{nb} never calls show_card(\"{nb}\", c)"

@pytest.mark.parametrize("card", CARDS, ids=[c.notebook for c in CARDS])
def test_card_names_the_registered_table(card):
    "A card's table is the one its notebook runs with: the registry's (tpr_nb/papers.toml), which `start` and `--set` read."
    assert card.table == experiment(card.notebook).table, (
        card.table,
        experiment(card.notebook).table,
    )

@pytest.mark.parametrize("card", CARDS, ids=[c.notebook for c in CARDS])
def test_card_matches_the_code(card):
    assert (ROOT / "nbs" / f"{card.notebook}.ipynb").exists(), f"{card.notebook}: no such notebook"
    assert card_problems(card) == []

def test_a_planted_deviation_fails():
    "Change one `same` setting's paper value in a real card: the check must name it."
    card = card_for("tpr_rnn/10_single_task")
    s = next(s for s in card.settings if s.status == "same" and isinstance(s.expect, float))
    planted = dataclasses.replace(card,
                                  settings=tuple(
                                      dataclasses.replace(x, expect=x.expect * 2) if x is s else x
                                      for x in card.settings))
    problems = card_problems(planted)
    assert (
        len(problems) == 1 and s.name in problems[0] and "no deviation is registered" in problems[0]
    ), problems

def test_a_setting_no_row_has_fails():
    card = card_for("tpr_rnn/10_single_task")
    extra = dataclasses.replace(
        card.settings[0], name="no_such_setting", status="unknown", why="planted", expect=None
    )
    assert any("no_such_setting: no profile row" in p
               for p in card_problems(dataclasses.replace(card, settings=(*card.settings, extra))))

def test_a_deviation_without_a_reason_is_refused():
    text = (PROTOCOL_DATA / "tpr_rnn.toml").read_text()
    planted = re.sub(r'(status = "deviation"\n(?:.*\n)*?)why = ".*"\n', r"\1", text, count=1)
    assert planted != text
    with pytest.raises(ValueError, match="needs a kind .* and a why"):
        read_cards(planted, "tpr_rnn")

def test_every_result_kind_deviation_says_whether_it_affects_the_result():
    "Each missing-data, hardware and not-yet deviation of every card is classified (`affects`): the report reads its claims as proxy or deviation, or not, by it."
    from tpr_nb.protocol import RESULT_KINDS
    bad = [f"{c.notebook}: {s.name} ({s.kind})" for p in PAPERS for c in load_cards(p) for s in c.settings
           if s.status == "deviation" and s.kind in RESULT_KINDS and s.affects not in ("result", "none")]
    assert bad == [], bad

def test_the_papers_stand_in_data_reads_proxy():
    "The stand-ins the issue names (HRR word analysis on PTB, URN agreement on UD-EWT, TPRU POS-PMI from a PTB model, the generated entailment train set) are proxies at every profile."
    from tpr_nb.papers import experiment
    from tpr_nb.protocol import claim_protocol, card_for, protocol_rows
    for nb, claim in [("hrr/11_word_analysis", "t7_1b100_baseline_avg_analogy"),
                      ("urn/11_agreement", "urn_overall_acc"),
                      ("tpru/13_interpretability", "noun_pmi_gap"),
                      ("tpru/10_entailment", "tpru512_val")]:
        for profile in ("quick", "full"):
            rows = protocol_rows(card_for(nb), experiment(nb).config(profile))
            assert claim_protocol(card_for(nb), claim, rows=rows)[0] == "proxy", (nb, profile)
