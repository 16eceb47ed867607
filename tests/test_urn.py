"Property tests of the URN: orthogonality, the two update paths, composition, padding, the Dyck generator, intervals (hypothesis)."
import random
import torch
from hypothesis import given, settings, strategies as st
from tpr_nb.urn.model import URN, skew, evolve, composition_error
from tpr_nb.urn.dyck import dyck_string, closing_stats, depth, is_dyck, OPEN, CLOSE
from tpr_nb.urn.training import wilson_interval
from tpr_nb.urn.agreement import verb_number

seeds = st.integers(0, 2**31 - 1)

@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 12), scale=st.floats(0.01, 3.0), seed=seeds)
def test_exp_of_skew_is_a_rotation(n, scale, seed):
    "Whatever the parameters, exp(S) is orthogonal with determinant 1."
    g = torch.Generator().manual_seed(seed)
    Q = torch.linalg.matrix_exp(
        skew(scale * torch.randn(3, n * (n - 1) // 2, generator=g, dtype=torch.float64), n))
    torch.testing.assert_close(
        Q.transpose(-1, -2) @ Q,
        torch.eye(n, dtype=torch.float64).expand(3, n, n))
    torch.testing.assert_close(torch.linalg.det(Q), torch.ones(3, dtype=torch.float64))

@settings(max_examples=30, deadline=None)
@given(U=st.integers(1, 9), B=st.integers(1, 7), T=st.integers(1, 8), n=st.integers(2, 9), seed=seeds)
def test_gemm_and_bmm_paths_agree(U, B, T, n, seed):
    "The one-GEMM-per-step path and the per-row path compute the same states."
    g = torch.Generator().manual_seed(seed)
    Q = torch.linalg.matrix_exp(
        skew(torch.randn(U, n * (n - 1) // 2, generator=g, dtype=torch.float64), n))
    idx, s0 = torch.randint(0, U, (B, T), generator=g), torch.randn(B, n, generator=g, dtype=torch.float64)
    torch.testing.assert_close(
        evolve(Q, idx, s0, gemm_limit=10**9), evolve(Q, idx, s0, gemm_limit=0)
    )

@settings(max_examples=20, deadline=None)
@given(a=st.lists(st.integers(1, 9), min_size=1, max_size=6),
       b=st.lists(st.integers(1, 9), min_size=1, max_size=6),
       seed=seeds)
def test_phrases_compose(a, b, seed):
    "M(ab) = M(b) M(a), and running the network over a phrase applies M(phrase) to the start state."
    torch.manual_seed(seed % 10_000)
    m = URN(10, 6, 2, init_scale=0.5).double()
    a, b = torch.tensor(a), torch.tensor(b)
    with torch.no_grad():
        torch.testing.assert_close(
            m.phrase_matrix(torch.cat([a, b])), m.phrase_matrix(b) @ m.phrase_matrix(a)
        )
    assert composition_error(m, torch.cat([a, b])) < 1e-10

@settings(max_examples=20, deadline=None)
@given(lengths=st.lists(st.integers(1, 7), min_size=2, max_size=5), seed=seeds)
def test_padding_and_batch_mates_do_not_matter(lengths, seed):
    "A row's last real state is the same alone, padded, or next to rows of other lengths."
    torch.manual_seed(seed % 10_000)
    m = URN(12, 5, 2, init_scale=0.5).double()
    g = torch.Generator().manual_seed(seed)
    rows = [torch.randint(1, 12, (L,), generator=g) for L in lengths]
    batch = torch.zeros(len(rows), max(lengths), dtype=torch.long)
    for i, r in enumerate(rows): batch[i, : len(r)] = r
    with torch.no_grad():
        together = m.states(batch)[:, -1]
        for i, r in enumerate(rows): torch.testing.assert_close(together[i], m.states(r[None])[0, -1])

@settings(max_examples=40, deadline=None)
@given(n_pairs=st.integers(1, 12), max_depth=st.integers(1, 6), seed=seeds)
def test_dyck_words_and_their_attractors(n_pairs, max_depth, seed):
    "Words are well nested within the depth limit; attractors match a brute-force count between each pair."
    w = dyck_string(n_pairs, max_depth, random.Random(seed))
    assert is_dyck(w) and len(w) == 2 * n_pairs and depth(w) <= max_depth
    stats = closing_stats(w)
    assert len(stats) == n_pairs
    for pos, attractors, distance, level in stats:
        j = pos - distance
        assert w[j] == OPEN[CLOSE.index(w[pos])]
        assert attractors == sum(c in OPEN and c != w[j] for c in w[j + 1 : pos])
        # the height just after the opening bracket
        assert level == sum(1 if c in OPEN else -1 for c in w[: j + 1])

@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 10_000), frac=st.floats(0, 1))
def test_wilson_interval_contains_the_estimate(n, frac):
    k = round(frac * n)
    lo, hi = wilson_interval(k, n)
    assert 0 <= lo <= k / n <= hi <= 1 and hi - lo > 0

@given(a=st.sampled_from(["is", "are", "was", "were", "has", "have", "eats", "eat", "goes", "go"]))
def test_verb_number_is_antisymmetric(a):
    pairs = {"is": "are", "are": "is", "was": "were", "were": "was", "has": "have", "have": "has", "eats": "eat", "eat": "eats", "goes": "go", "go": "goes"}
    assert verb_number(a, pairs[a]) == 1 - verb_number(pairs[a], a)
