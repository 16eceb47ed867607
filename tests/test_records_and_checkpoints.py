"Records written by concurrent processes are all kept; damaged checkpoints are named errors (issue 36)."
import json, multiprocessing as mp
from pathlib import Path
import pytest, torch
from torch import nn
from tpr_nb.claims import CLAIMS
from tpr_nb.report import load_records
from tpr_nb.train import CheckpointError, TrainConfig, fit, load_checkpoint

IDS = [c.claim_id for c in CLAIMS if c.paper == "tpr_rnn" and c.experiment == "babi_single"][:40]

def _record_many(out, ids):
    from tpr_nb.report import record
    for i in ids: record("tpr_rnn", i, 1.0, profile="smoke", seeds=[0], wall_s=0, out=out)

def test_concurrent_records_are_all_kept(tmp_path):
    ctx = mp.get_context("spawn")
    ps = [ctx.Process(target=_record_many, args=(tmp_path, IDS[k::4])) for k in range(4)]
    for p in ps: p.start()
    for p in ps: p.join(120)
    assert all(p.exitcode == 0 for p in ps)
    assert {k[1] for k in load_records(tmp_path)} == set(IDS)          # no read-modify-write lost another's records

def test_damaged_metrics_file_is_named(tmp_path):
    (tmp_path / "metrics").mkdir(); (tmp_path / "metrics" / "urn__dyck.json").write_text('[{"paper": "urn", ')
    with pytest.raises(ValueError, match="urn__dyck.json is damaged"): load_records(tmp_path)

def _toy(tmp_path, steps):
    X = torch.randn(64, 3); y = X.sum(-1)
    return fit(lambda s: nn.Linear(3, 1), lambda ep: [(X[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)],
               lambda m, b: ((m(b[0]).squeeze(-1) - b[1]).pow(2).mean(), {}), lambda m: {"loss": (m(X).squeeze(-1) - y).pow(2).mean()},
               TrainConfig(max_steps=steps, eval_every=4, lr=0.05, out_dir=str(tmp_path), progress=False))

def test_truncated_best_weights_are_a_named_error(tmp_path):
    _toy(tmp_path, 8)
    best = tmp_path / "best.safetensors"; best.write_bytes(best.read_bytes()[:40])
    with pytest.raises(CheckpointError, match="best.safetensors"): _toy(tmp_path, 8)      # the finished run, called again

def test_partial_checkpoint_is_a_checkpoint_error(tmp_path):
    _toy(tmp_path, 8)
    st = tmp_path / "checkpoint" / "state.json"; meta = json.loads(st.read_text())
    del meta["optimizer"]["param_groups"]; st.write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="incomplete or from another optimiser"):
        load_checkpoint(tmp_path / "checkpoint", nn.Linear(3, 1), torch.optim.Adam(nn.Linear(3, 1).parameters()))
