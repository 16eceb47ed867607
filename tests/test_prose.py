"""Experiment notebooks read as the paper (issue 37, item 3): no prose cell of 250 words or more, and every number in
their prose is the paper's, a setting in the notebook's code, or printed by a cell of its committed executed copy.

Numbers are compared by value: "1,234" = "1234", "−0.5" = "-0.5" = "0.5" (the sign is not compared), and a percentage
matches its fraction ("85%" = "0.85", "0.85" = "85"). Allowed anywhere: integers 0-10, years, the numbers of
equations, tables, figures, sections, appendices and issues, and digits inside a name (`tpru/11`, `19_diagnostics`, `W1`)."""
import json, re
from pathlib import Path
import pytest
from fastcore.test import test_eq as _eq
from tpr_nb.papers import PAPERS as REGISTRY

ROOT = Path(__file__).resolve().parents[1]
NBS, EXECUTED, PAPERS = ROOT / "nbs", ROOT / "reports" / "quick" / "notebooks", Path("/work/shared/papers")
# a paper's text is named by its id
PAPER_TEXT = {p.folder: f"{p.id}.md" for p in REGISTRY.values()}
MAX_WORDS = 250
EXPERIMENTS = sorted(p for p in NBS.glob("*/1*.ipynb") if p.parent.name in PAPER_TEXT)

# a number standing alone: not inside a name (letter, digit, `_` or `/` before it; letter or
# `_` after it)
_PROSE_NUM = re.compile(r"(?<![\w/.])\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_ANY_NUM = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")
_REFS = re.compile(
    r"\b(?:Tables?|Fig(?:ure)?s?\.?|Eqs?\.|Eqn?s?\.?|Equations?|Sec(?:tion)?s?\.?|§|Appendix|App\.|"
    r"issues?|#)\s*\(?\d+(?:\.\d+)*[a-z]?\)?(?:\s*(?:,|and|or|-|–|to)\s*\(?\d+(?:\.\d+)*[a-z]?\)?)*"
)
_URL = re.compile(r"https?://\S+|\]\([^)]*\)")

def _values(text: str, pattern=_ANY_NUM) -> list[float]:
    "The absolute values of the numbers in `text`, each also as a percentage and as a fraction."
    out = []
    for m in pattern.finditer(text.replace("−", "-")):
        try: v = abs(float(m.group().replace(",", "")))
        except ValueError: continue
        out.append(v)
    return out

def _key(v: float) -> float: return float(f"{v:.10g}")

def allowed_numbers(texts) -> set[float]:
    "Every number in `texts`, by value, with its percentage and fraction forms."
    vs = set()
    for t in texts:
        for v in _values(t): vs |= {_key(v), _key(v * 100), _key(v / 100)}
    return vs

def prose_numbers(md: str) -> list[tuple[str, float]]:
    "(as written, value) of each number of a markdown text that must be accounted for."
    md = _REFS.sub(" ", _URL.sub(" ", md.replace("−", "-")))
    out = []
    for m in _PROSE_NUM.finditer(md):
        v = abs(float(m.group().replace(",", "")))
        if v <= 10 and v == int(v): continue                       # small integers
        if v == int(v) and 1900 <= v <= 2100 and "," not in m.group(): continue   # years
        out.append((m.group(), v))
    return out

def _cells(nb: Path) -> list[dict]: return json.loads(nb.read_text())["cells"]
def _src(c: dict) -> str: return c["source"] if isinstance(c["source"], str) else "".join(c["source"])

def _outputs(nb: Path) -> list[str]:
    "The text of every output of the code cells of `nb`."
    out = []
    for c in _cells(nb):
        for o in c.get("outputs", []):
            if "text" in o: out.append(_src(dict(source=o["text"])))
            for k, v in o.get("data", {}).items():
                if k.startswith("text/"): out.append(_src(dict(source=v)))
    return out

def unaccounted(nb: Path, paper_text: str, executed: Path | None) -> list[str]:
    "The numbers of `nb`'s prose that are neither the paper's, nor in its code, nor in its executed copy's outputs."
    cells = _cells(nb)
    known = allowed_numbers([paper_text] + [_src(c) for c in cells if c["cell_type"] == "code"]
                            + (_outputs(executed) if executed and executed.exists() else []))
    return [f"{s!r} in cell {c.get('id')}" for c in cells if c["cell_type"] == "markdown"
            for s, v in prose_numbers(_src(c)) if _key(v) not in known]

def word_counts(nb: Path) -> list[tuple[str, int]]:
    return [(c.get("id"), len(_src(c).split())) for c in _cells(nb) if c["cell_type"] == "markdown"]

_ids = [str(p.relative_to(NBS)) for p in EXPERIMENTS]

@pytest.mark.parametrize("nb", EXPERIMENTS, ids=_ids)
def test_prose_cells_are_short(nb):
    long = [(i, n) for i, n in word_counts(nb) if n >= MAX_WORDS]
    assert not long, f"{nb.relative_to(NBS)}: markdown cells of {MAX_WORDS} words or more (cell id, words): {long}"

@pytest.mark.skipif(not PAPERS.exists(), reason="the papers' texts are not on this machine")
@pytest.mark.parametrize("nb", EXPERIMENTS, ids=_ids)
def test_prose_numbers_are_accounted_for(nb):
    paper = (PAPERS / PAPER_TEXT[nb.parent.name]).read_text()
    bad = unaccounted(nb, paper, EXECUTED / nb.relative_to(NBS))
    assert not bad, (
        f"{nb.relative_to(NBS)}: numbers in prose that neither the paper, nor the notebook's code, nor the "
        f"outputs of its executed copy have (refer to the output instead of retyping it): {bad}")

def test_the_checks_catch_a_bad_notebook(tmp_path):
    "A constructed notebook: a long cell fails the word limit; a retyped or invented number fails, a printed one passes."
    code = dict(cell_type="code", id="c0", metadata={}, source="steps = 3000\nprint(acc)", outputs=[], execution_count=1)
    md = lambda i, s: dict(cell_type="markdown", id=i, metadata={}, source=s)
    nb = tmp_path / "10_x.ipynb"
    nb.write_text(json.dumps(dict(cells=[md("m0", "word " * MAX_WORDS), code, md("m1", "Table 12 and Eq. 35: after "
        "3,000 steps (2026) the accuracy is 84.2% (the paper: 0.91), −0.125 in seed 3; see `tpru/19_diagnostics`.")])))
    ex = tmp_path / "10_x.executed.ipynb"
    ex.write_text(
        json.dumps(
            dict(cells=[
                dict(code, outputs=[dict(output_type="stream", name="stdout", text="0.842\n")])
            ])))
    assert [n for _, n in word_counts(nb)] == [MAX_WORDS, 22]
    _eq(unaccounted(nb, "an accuracy of 91%", ex), ["'0.125' in cell m1"])
    # 84.2%, 0.91 and 0.125 unaccounted without paper and outputs
    _eq(len(unaccounted(nb, "", None)), 3)
