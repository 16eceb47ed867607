"The `tpr-nb` command line: data check over the real mirror and over damaged copies; bad arguments."
import os, subprocess, sys
from pathlib import Path
import pytest
from tpr_nb.catalog import CATALOG
from tpr_nb.cli import main

MIRROR = os.environ.get("TPR_NB_DATA")

def tpr_nb(*args, env=None):
    return subprocess.run([sys.executable, "-c", "import sys; from tpr_nb.cli import main; sys.exit(main(sys.argv[1:]))", *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)

@pytest.mark.skipif(not MIRROR, reason="needs TPR_NB_DATA (the shared mirror)")
def test_data_check_lists_every_dataset():
    r = tpr_nb("data", "check")
    assert r.returncode == 0, r.stderr
    listed = {l.split()[1].split("/")[0] for l in r.stdout.splitlines() if l.startswith(("ok ", "missing ", "corrupt "))}
    assert listed == set(CATALOG)
    assert "logical_entailment/train.txt" in r.stdout and "0 corrupt" in r.stdout
    missing = [l for l in r.stdout.splitlines() if l.startswith("missing")]
    assert missing and all("http" in l for l in missing)       # every gap comes with its URL

def test_data_check_fails_only_on_corruption(tmp_path):
    env = dict(TPR_NB_DATA=str(tmp_path), TPR_NB_CACHE=str(tmp_path / "cache"), TPR_NB_OFFLINE="1")
    r = tpr_nb("data", "check", "--dataset", "ptb", env=env)
    assert r.returncode == 0 and r.stdout.count("missing") >= 3      # absent is not an error
    (tmp_path / "ptb").mkdir()
    (tmp_path / "ptb" / "ptb.valid.txt").write_text("not the penn treebank\n")
    r = tpr_nb("data", "check", "--dataset", "ptb", env=env)
    assert r.returncode == 1 and "corrupt" in r.stdout and "ptb.valid.txt" in r.stdout

@pytest.mark.skipif(not MIRROR, reason="needs TPR_NB_DATA (the shared mirror)")
def test_truncated_copy_of_real_file_is_named(tmp_path):
    src = Path(MIRROR) / "ptb" / "ptb.test.txt"
    (tmp_path / "ptb").mkdir(); (tmp_path / "ptb" / "ptb.test.txt").write_bytes(src.read_bytes()[:-100])
    r = tpr_nb("data", "check", "--dataset", "ptb", env=dict(TPR_NB_DATA=str(tmp_path), TPR_NB_OFFLINE="1",
                                                               TPR_NB_CACHE=str(tmp_path / "c")))
    assert r.returncode == 1 and "truncated" in r.stdout

def test_unknown_profile_and_dataset_are_clear_errors(capsys):
    with pytest.raises(SystemExit): main(["repro", "--profile", "fast"])
    assert "invalid choice: 'fast'" in capsys.readouterr().err
    assert main(["data", "check", "--dataset", "imagenet"]) == 2
    assert "unknown dataset 'imagenet'" in capsys.readouterr().err
