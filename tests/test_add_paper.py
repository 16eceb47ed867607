"""Adding a paper, as the README says ("Adding a paper", nbs/index.ipynb): a toy paper with one claim and one
experiment notebook is registered in a copy of the package, and the runner runs it at smoke. Its report has the
paper's section, the claim's verdict and the notebook's figure, `--set` is checked against the toy's own table, and
the protocol card, the claims and the report all find the paper through the one registry (tpr_nb/papers.toml)."""
import json, os, shutil, subprocess, sys
from pathlib import Path
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]

PAPER = '''
[[papers]]
id = "toy"
folder = "toy"
title = "A toy paper (2026): guessing a number by halving the error"
headline = ["guess_error"]

[papers.measured_in]
guess = "10_guess"

[papers.experiments]
10_guess = {table = "tpr_nb.toy.guess:GUESS"}
'''
CLAIMS = '''# Claims for the toy paper.
[[claims]]
experiment = "guess"
claim_id = "guess_error"
metric = "|guess - target|"
paper_value = 0.0
rule = "ours <= paper + 1"
source = "the toy paper, Table 1"
'''
CARD = '''# Protocol cards for the toy paper.
[[cards]]
notebook = "toy/10_guess"
table = "tpr_nb.toy.guess:GUESS"
what = "Table 1, the error of a guess of 42"

[[cards.settings]]
setting = "target"
paper = "42"
paper_where = "Sec. 1"
reference = "none"
reference_where = "the paper has no code"
status = "same"
expect = 42
'''
MODULE = '''"""The toy paper's one experiment: guess a number by halving the error at each step."""
GUESS = dict(common=dict(target=42, seeds=[0]), smoke=dict(steps=10), quick=dict(steps=30), full=dict(steps=300))

def guess(steps: int, target: int) -> float:
    "A guess of `target` that halves its error at each of `steps` steps."
    g = 0.0
    for _ in range(steps): g += (target - g) / 2
    return g
'''
PARAMS = 'profile = "smoke"\noverrides = {}\nout = None\ncommit = None'
BODY = '''import matplotlib.pyplot as plt
from tpr_nb.experiment import start
from tpr_nb.protocol import show_card
from tpr_nb.toy.guess import guess
run = start("toy/10_guess", profile, overrides, out, commit)
c = run.config
show_card("toy/10_guess", c)
errors = [abs(guess(k, c.target) - c.target) for k in range(c.steps + 1)]
plt.semilogy(errors)
plt.show()
run.record("guess_error", errors[-1], seeds=c.seeds, wall_s=0.0)'''

def add_toy_paper(root: Path):
    "The README's steps, in a copy of the package under `root` (the toy's module written as nbdev_export would)."
    shutil.copytree(ROOT / "tpr_nb", root / "tpr_nb", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "settings.ini", root / "settings.ini")
    # 1. register it
    with open(root / "tpr_nb" / "papers.toml", "a") as f: f.write(PAPER)
    # 2. its package
    (root / "tpr_nb" / "toy").mkdir()
    (root / "tpr_nb" / "toy" / "__init__.py").write_text('"""A toy paper. Modules: `guess`."""\n')
    (root / "tpr_nb" / "toy" / "guess.py").write_text(MODULE)
    # 3. its claims
    (root / "tpr_nb" / "claims_data" / "toy.toml").write_text(CLAIMS)
    # 4. its notebook, card
    (root / "tpr_nb" / "protocol_data" / "toy.toml").write_text(CARD)
    p = new_code_cell(PARAMS, metadata={"tags": ["parameters"]})
    nb = new_notebook(cells=[new_markdown_cell("# Guessing\n\n> Table 1."), p, new_code_cell(BODY),
                             new_code_cell("run.finish()")],
                      metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}})
    (root / "nbs" / "toy").mkdir(parents=True)
    nbformat.write(nb, root / "nbs" / "toy" / "10_guess.ipynb")

def tpr_nb(root: Path, *args, code: str | None = None) -> subprocess.CompletedProcess:
    "`tpr-nb args` (or python `code`) in the project `root`, its package first on the path (the kernels inherit it)."
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    cmd = ["-c", code] if code else [
        "-c", "import sys; from tpr_nb.cli import main; sys.exit(main(sys.argv[1:]))", *args
    ]
    return subprocess.run(
        [sys.executable, *cmd], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )

@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    add_toy_paper(root)
    return root

def test_the_copy_is_what_runs(project):
    r = tpr_nb(project, code="import tpr_nb; print(tpr_nb.__file__)")
    assert Path(r.stdout.strip()) == project / "tpr_nb" / "__init__.py", r.stdout + r.stderr

def test_every_list_of_papers_has_the_toy(project):
    code = (
        "from tpr_nb.claims import CLAIMS; from tpr_nb.papers import PAPERS, experiment; "
        "from tpr_nb.protocol import card_for, card_problems; "
        "print([p for p in PAPERS][-1], [c.claim_id for c in CLAIMS if c.paper == 'toy'], "
        "experiment('toy/10_guess').config('smoke').steps, card_problems(card_for('toy/10_guess')))"
    )
    r = tpr_nb(project, code=code)
    assert r.stdout.split("\n")[0] == "toy ['guess_error'] 10 []", r.stdout + r.stderr

def test_the_toy_runs_at_smoke_into_the_report(project):
    r = tpr_nb(project, "repro", "--profile", "smoke", "--only", "toy/")
    assert r.returncode == 0, r.stdout + r.stderr
    out = project / "reports" / "smoke"
    assert json.loads((out / "runs.json").read_text())[0]["status"] == "ok"
    rec = json.loads((out / "metrics" / "toy__guess.json").read_text())[0]
    assert (rec["claim_id"], rec["holds"], rec["notebook"]) == ("guess_error", "yes", "toy/10_guess.ipynb"), rec
    report = (out / "REPORT.md").read_text()
    assert "## toy" in report and "| toy | 1 | 0 | 0 | 0 | 0 |" in report, report[:3000]
    # the figure, in the paper's folder
    assert "[1](figures/toy/10_guess-1.png)" in report
    assert (out / "claims_toy.png").exists() and (
        out / "figures" / "toy" / "10_guess-1.png"
    ).exists()
    assert (
        "Protocol card: Table 1, the error of a guess of 42"
        in (out / "notebooks" / "toy" / "10_guess.ipynb").read_text()
    )

def test_set_is_checked_against_the_toys_table(project):
    r = tpr_nb(project, "repro", "--profile", "smoke", "--only", "toy/", "--set", "stepz=3")
    assert r.returncode == 2 and "unknown setting 'stepz'" in r.stderr, r.stdout + r.stderr
    r = tpr_nb(project, "repro", "--profile", "smoke", "--only", "toy/", "--set", "steps=3")
    assert r.returncode == 0, r.stdout + r.stderr
    run = project / "reports" / "runs" / "toy-10_guess-smoke-steps=3"
    rec = json.loads((run / "metrics" / "toy__guess.json").read_text())[0]
    assert (rec["ours"], rec["holds"]) == (42 / 8, "no")                  # three halvings: 5.25 off
    assert "| steps | `10` | `3` |" in (run / "REPORT.md").read_text()
