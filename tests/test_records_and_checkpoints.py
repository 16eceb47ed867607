"Records written by concurrent processes are all kept; damaged checkpoints are named errors (issue 36); a unit is trained by one process at a time."
import json, multiprocessing as mp
from contextlib import contextmanager
from pathlib import Path
import pytest, torch
from torch import nn
from tpr_nb.claims import CLAIMS
from tpr_nb.report import load_records
from tpr_nb.checkpoints import CheckpointError, load_checkpoint
from tpr_nb.train import TrainConfig, fit

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
    # no read-modify-write lost another's records
    assert {k[1] for k in load_records(tmp_path)} == set(IDS)

def test_damaged_metrics_file_is_named(tmp_path):
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "urn__dyck.json").write_text('[{"paper": "urn", ')
    with pytest.raises(ValueError, match="urn__dyck.json is damaged"): load_records(tmp_path)

def _toy(tmp_path, steps):
    X = torch.randn(64, 3)
    y = X.sum(-1)
    return fit(lambda s: nn.Linear(3, 1), lambda ep: [(X[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)],
               lambda m, b: ((m(b[0]).squeeze(-1) - b[1]).pow(2).mean(), {}), lambda m: {"loss": (m(X).squeeze(-1) - y).pow(2).mean()},
               TrainConfig(max_steps=steps, eval_every=4, lr=0.05, out_dir=str(tmp_path), progress=False))

def test_truncated_best_weights_are_a_named_error(tmp_path):
    _toy(tmp_path, 8)
    best = tmp_path / "best.safetensors"
    best.write_bytes(best.read_bytes()[:40])
    # the finished run, called again
    with pytest.raises(CheckpointError, match="best.safetensors"): _toy(tmp_path, 8)

def test_partial_checkpoint_is_a_checkpoint_error(tmp_path):
    _toy(tmp_path, 8)
    st = tmp_path / "checkpoint" / "state.json"
    meta = json.loads(st.read_text())
    del meta["optimizer"]["param_groups"]
    st.write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="incomplete or from another optimiser"):
        load_checkpoint(tmp_path / "checkpoint", nn.Linear(3, 1),
                        torch.optim.Adam(nn.Linear(3, 1).parameters()))

def _slow_unit(name, seed, c, out_dir, started=None, release=None):
    started.set()
    release.wait(60)
    return dict(name=name, seed=seed, loss=0.5)

def _train_unit_in_child(cache, kept, started, release):
    import os
    os.environ["TPR_NB_CACHE"] = str(cache)
    from tpr_nb.profiles import Config
    from tpr_nb.units import run_unit
    run_unit(_slow_unit, "toy", 0, Config(steps=1), kept, keys=["steps"], started=started, release=release)

@contextmanager
def _another_process_trains(tmp_path, monkeypatch):
    "A spawned process training unit ('toy', 0) under `tmp_path/cache` for the block: yields it and its release event."
    monkeypatch.setenv("TPR_NB_CACHE", str(tmp_path / "cache"))
    ctx = mp.get_context("spawn")
    started, release = ctx.Event(), ctx.Event()
    p = ctx.Process(
        target=_train_unit_in_child, args=(tmp_path / "cache", tmp_path / "kept", started, release)
    )
    p.start()
    try:
        assert started.wait(120)
        yield p, release
    finally:
        release.set()
        p.join(60)

def test_a_unit_is_trained_by_one_process_at_a_time(tmp_path, monkeypatch):
    "Another process training the unit: this run is refused, not let in to overwrite its checkpoints; once it is done, its record is taken."
    from tpr_nb.profiles import Config
    from tpr_nb.units import UnitBusyError, run_unit, unit_holder, unit_key
    with _another_process_trains(tmp_path, monkeypatch) as (p, release):
        out = tmp_path / "cache" / "units" / unit_key("toy", 0, Config(steps=1), ["steps"])
        assert unit_holder(out) == p.pid
        with pytest.raises(UnitBusyError, match=f"pid {p.pid}"):
            run_unit(lambda *a, **k: pytest.fail("trained a unit another process holds"), "toy", 0, Config(steps=1), tmp_path / "kept", keys=["steps"])
    assert p.exitcode == 0 and unit_holder(out) is None
    rec = run_unit(lambda *a, **k: pytest.fail("trained a finished unit"), "toy", 0, Config(steps=1), tmp_path / "kept", keys=["steps"])
    assert rec["cached"] and rec["loss"] == 0.5

def _quick_unit(name, seed, c, out_dir):
    return dict(name=name, seed=seed, loss=0.25)

@pytest.mark.parametrize("workers", [1, 2])
def test_a_queue_waits_for_a_unit_another_process_trains(tmp_path, monkeypatch, workers):
    "A queue meeting a unit another process trains runs its other units first, then takes that unit's record, untrained here."
    from tpr_nb.profiles import Config
    from tpr_nb.units import map_runs, run_unit
    with _another_process_trains(tmp_path, monkeypatch) as (p, release):
        job = dict(fn=_quick_unit, c=Config(steps=1), folder=tmp_path / "kept", keys=["steps"])
        ended = []
        def done(i, r):
            ended.append(i)
            # the other process finishes its unit once this queue's free unit is done
            release.set()
        out = map_runs(run_unit, [dict(job, name="toy", seed=0), dict(job, name="toy", seed=1)], workers, poll=0.2,
                       done=done)   # on 2 cores, 2 workers: the error comes back from one of them
    assert ended == [1, 0]                              # the free unit first, then the busy one
    # the other process's record: not trained again here
    assert out[0]["cached"] and out[0]["loss"] == 0.5
    assert not out[1]["cached"] and out[1]["loss"] == 0.25
