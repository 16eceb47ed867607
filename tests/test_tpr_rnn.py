"Property tests of the TPR-RNN update and its padding mask (hypothesis)."
import torch
from hypothesis import given, settings, strategies as st
from tpr_nb.algebra import random_basis, unbind3
from tpr_nb.tpr_rnn.model import TPRRNN, memory_update

seeds = st.integers(0, 2**31 - 1)

@settings(max_examples=30, deadline=None)
@given(E=st.integers(3, 12), R=st.integers(3, 8), seed=seeds)
def test_orthonormal_write_move_backlink(E, R, seed):
    "With orthonormal (not one-hot) bases the three operations are exact, as Fig. 1 draws them."
    g = torch.Generator().manual_seed(seed)
    # 3 entities, each (1, E)
    ents = random_basis(E, 3, "orthonormal", g, dtype=torch.float64).T[:, None]
    rels = random_basis(R, 3, "orthonormal", g, dtype=torch.float64).T[:, None]
    a, b, c = ents
    r1, r2, r3 = rels
    # a -r1-> b, b -r3-> a
    F = memory_update(torch.zeros(1, E, R, E, dtype=torch.float64), a, b, r1, r2, r3)
    torch.testing.assert_close(unbind3(F, a, r1), b)
    torch.testing.assert_close(unbind3(F, b, r3), a)
    # a -r1-> c; b moves to r2
    F = memory_update(F, a, c, r1, r2, r3, backlink=False)
    torch.testing.assert_close(unbind3(F, a, r1), c)
    torch.testing.assert_close(unbind3(F, a, r2), b)

@settings(max_examples=15, deadline=None)
@given(n=st.lists(st.integers(1, 6), min_size=2, max_size=5), seed=seeds)
def test_padding_never_changes_an_answer(n, seed):
    "A story's logits do not depend on the padding sentences, nor on its batch mates' lengths."
    torch.manual_seed(seed % 1000)
    model = TPRRNN(vocab_size=12, max_words=4, d_entity=5, d_relation=3).double()
    T = max(n)
    g = torch.Generator().manual_seed(seed)
    story = torch.randint(1, 12, (len(n), T, 4), generator=g)
    q = torch.randint(1, 12, (len(n), 4), generator=g)
    lengths = torch.tensor(n)
    batch = model(story, lengths, q)
    for i, k in enumerate(n):
        alone = model(story[i:i + 1, :k], lengths[i:i + 1], q[i:i + 1])
        torch.testing.assert_close(batch[i:i + 1], alone)

def test_single_task_recipe_survives_task6():
    """App. A's Nadam (0.008, betas 0.6/0.4) sends task 6 to NaN within a few hundred steps on some seeds, and which seeds
    depends on the machine's floating-point kernels: on the AMD EPYC of earlier sessions seed 0 diverged at step 107 with
    the reference code's norm clip of 5 and seeds 1-3 trained past step 400; on an Intel Xeon (2026-11-27) seed 1
    diverged at step 335 with the clip and seeds 0, 2, 3, 4 trained past 400, while without the clip seeds 0, 1 and 2
    diverged (steps 337, 203, 121). So the check is over five seeds: with the clip most train past step 400, and each
    one that diverges is reported as such (steps=-1, a 'diverged' note), never dropped."""
    import pytest
    from tpr_nb.data import locate, DataMissingError
    from tpr_nb.profiles import Config, profile_config
    from tpr_nb.tpr_rnn.training import SINGLE_TASK, run_task
    try: locate("babi", "tasks_1-20_v1-2/en-10k/qa6_yes-no-questions_train.txt")
    except DataMissingError as e: pytest.skip(f"bAbI not available: {e}")
    torch.set_num_threads(1)
    c = Config(profile_config(SINGLE_TASK, "quick"),
               max_steps=400,
               eval_every=400,
               time_budget_s=None,
               patience=None)
    assert c.clip_norm == 5.0
    runs = [run_task(6, s, c) for s in range(5)]
    assert sum(r["steps"] == 400 for r in runs) >= 3, [(r["seed"], r["steps"], r["note"]) for r in runs]
    for r in runs:
        assert r["steps"] == 400 or (r["steps"] == -1 and r["note"].startswith("diverged")), r
