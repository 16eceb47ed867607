"The profile tables: a quick result must not depend on how fast the machine is."
import importlib, pkgutil
import tpr_nb

# tables allowed to stop their quick runs by the clock, with the reason their notebooks give (none
# since the TPR-RNN got fast)
WALL_CLOCK_OK = {}

def profile_tables():
    "Every `dict(common=..., smoke=..., quick=..., full=...)` defined at the top level of a `tpr_nb` module."
    for m in pkgutil.walk_packages(tpr_nb.__path__, "tpr_nb."):
        # a paper's package hands names on (lazily): its tables live in its modules
        if m.ispkg: continue
        mod = importlib.import_module(m.name)
        for k, v in vars(mod).items():
            if isinstance(v, dict) and {"smoke", "quick", "full"} <= set(v) and getattr(mod, "__name__", "") == m.name:
                yield f"{m.name}.{k}", v

def test_there_are_profile_tables():
    names = [n for n, _ in profile_tables()]
    assert "tpr_nb.tpr_rnn.training.SYSGEN" in names and "tpr_nb.urn.training.DYCK" in names, names

def test_quick_runs_count_steps_not_seconds():
    timed = {n for n, t in profile_tables() if {**t.get("common", {}), **t["quick"]}.get("time_budget_s") is not None}
    assert timed == set(
        WALL_CLOCK_OK
    ), f"quick profiles stopped by a wall-clock budget: {sorted(timed)}"
