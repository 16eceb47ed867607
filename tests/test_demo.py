"""`tpr-nb demo babi|entail|dyck` with the models shipped under models/ (issue 38): each gives its kind of answer through the
command line, unknown words or symbols are an error that names them, and the shipped files are tracked by git (so a fresh
clone + `make install` has them)."""
import re, shutil, subprocess, sys
from pathlib import Path
import pytest
from tpr_nb.cli import main
from tpr_nb.models import models_dir, repo_root, shipped_names, readme_text

STORY = "Mary moved to the bathroom. John went to the hallway. Where is Mary?"

def run(capsys, *argv):
    rc = main(["demo", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err

def test_babi_answers_and_shows_three_inference_steps(capsys):
    rc, out, _ = run(capsys, "babi", STORY)
    assert rc == 0 and re.search(r"^answer\s+bathroom\b", out, re.M), out
    steps = re.findall(r"^  step (\d): (\S+)$", out, re.M)
    assert [s for s, _ in steps] == ["1", "2", "3"] and "read through the output layer Z" in out
    rc, out, _ = run(capsys, "babi",
                     "Mary moved to the bathroom. Mary went to the garden. Where is Mary?")
    assert re.search(r"^answer\s+garden\b", out, re.M), out
    rc, out, _ = run(
        capsys, "babi", "--task", "2",
        "Mary got the football there. Mary went to the kitchen. Where is the football?")
    assert rc == 0 and re.search(r"^answer\s+kitchen\b", out, re.M), out

def test_entail_gives_the_verdict_and_the_truth_table(capsys):
    rc, out, _ = run(capsys, "entail", "(a|b)", "(b|a)")
    assert rc == 0 and re.search(
        r"^model: +A (entails|does not entail) B +\(p\(entails\) = [01]\.\d{3}\)$", out, re.M
    ), out
    assert re.search(r"^truth table: A entails B$", out, re.M)
    rc, out, _ = run(capsys, "entail", "a", "(a&b)")
    assert re.search(r"^truth table: A does not entail B$", out, re.M), out

def test_dyck_scores_each_closing_bracket(capsys):
    rc, out, _ = run(capsys, "dyck", "([{}])")
    rows = re.findall(r"^ +(\d+) +([)\]}>-]) +([)\]}>-]) +([)\]}>-]) +([01]\.\d{3}) +(\d+)$", out,
                      re.M)
    assert rc == 0 and [(r[0], r[2]) for r in rows] == [("3", "}"), ("4", "]"), ("5", ")")], out
    assert re.search(r"^\d of 3 closing brackets predicted right$", out, re.M)

@pytest.mark.parametrize("argv, named", [
    (["babi", "Mary flew to the moon. Where is Mary?"
      ], "unknown words for this TPR-RNN (trained on bAbI task 1): 'flew', 'moon'"),
    (["entail", "(a$b)", "(b#a)"], "unknown symbols for this classifier: '$'"),
    (["entail", "(a|b)", "(b#a)"], "unknown symbols for this classifier: '#'"),
    (["dyck", "(x]"], "unknown symbols for the Dyck model: 'x'"),
    (["babi", "Mary moved to the bathroom."], "must end with a question"),
])
def test_unknown_words_or_symbols_are_named(capsys, argv, named):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and named in err and not out, (out, err)

def test_the_installed_command_runs_the_demo():
    exe = Path(sys.executable).with_name("tpr-nb")
    if not exe.exists():
        pytest.skip("no tpr-nb script beside this Python (not installed by make install)")
    r = subprocess.run(
        [str(exe), "demo", "dyck", "(<>)"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and "of 2 closing brackets predicted right" in r.stdout, r.stderr

def test_shipped_models_are_in_git_and_listed():
    names = shipped_names()
    assert {"tpr_rnn-babi-task01", "tpru-entail-gru", "urn-dyck-urn50"} <= set(names)
    assert models_dir() == repo_root() / "models"
    if shutil.which("git") is None or not (repo_root() / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files", "models"], cwd=repo_root(), capture_output=True, text=True
    ).stdout.split()
    for n in names:
        for f in ("model.json", "best.safetensors"):
            assert f"models/{n}/{f}" in tracked, f"models/{n}/{f} is not in git"
        assert (models_dir() / n / "best.safetensors").stat().st_size < 1_000_000
    assert (
        "models/README.md" in tracked and (models_dir() / "README.md").read_text() == readme_text()
    )
