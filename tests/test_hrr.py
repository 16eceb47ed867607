"Property tests of the HRR language models: Eq. 4/5 algebra, chunk encoding, chunk spans, evaluation metrics (hypothesis)."
import torch
from hypothesis import given, settings, strategies as st
from tpr_nb.algebra import circular_conv
from tpr_nb.hrr.model import HRREmbedding, HRRLM, hrr_scores
from tpr_nb.hrr.chunk_model import ChunkHRR, chunk_targets
from tpr_nb.hrr.data import chunk_spans
from tpr_nb.hrr.evaluation import knn_hit_rate, relatedness, purity
from tpr_nb.lm import stream_batches, perplexity

seeds = st.integers(0, 2**31 - 1)

@settings(max_examples=25, deadline=None)
@given(d=st.integers(4, 24), N=st.integers(1, 3), seed=seeds)
def test_embedding_is_sum_of_role_bindings(d, N, seed):
    "E(w) = sum_i r_i (*) F_i s_i^w, whatever the sizes (d' <= d / N)."
    torch.manual_seed(seed)
    dp = max(1, d // N)
    e = HRREmbedding(7, d, dp, N)
    w = torch.tensor([seed % 7])
    want = sum(circular_conv(e.r[i], e.F[i] @ e.s[i, w[0]]) for i in range(N))
    torch.testing.assert_close(e(w)[0], want, atol=1e-5, rtol=1e-4)

@settings(max_examples=25, deadline=None)
@given(d=st.integers(4, 20), seed=seeds, a1=st.floats(0, 2), a2=st.floats(0, 2))
def test_scores_are_linear_in_the_alphas(d, seed, a1, a2):
    "Eq. 5's score is sum_i alpha_i (space i's score): each space can be read off alone."
    torch.manual_seed(seed)
    e = HRREmbedding(9, d, max(1, d // 2), 2)
    h = torch.randn(3, d)
    s1, s2 = hrr_scores(e, h, torch.tensor([1.0, 0.0])), hrr_scores(e, h, torch.tensor([0.0, 1.0]))
    torch.testing.assert_close(
        hrr_scores(e, h, torch.tensor([a1, a2])), a1 * s1 + a2 * s2, atol=1e-4, rtol=1e-4
    )

@settings(max_examples=25, deadline=None)
@given(tags=st.lists(st.sampled_from(["B-NP", "I-NP", "B-VP", "I-VP", "B-PP", "O"]), max_size=20))
def test_chunk_spans_cover_every_tagged_token_once(tags):
    "Spans are disjoint, in order, one type each, and cover exactly the non-O tokens."
    spans = chunk_spans(tags)
    covered = [k for a, b, _ in spans for k in range(a, b)]
    assert covered == [k for k, t in enumerate(tags) if t != "O"]
    for a, b, kind in spans: assert all(tags[k][2:] == kind for k in range(a, b)) and b > a

@settings(max_examples=20, deadline=None)
@given(n_chunks=st.lists(st.integers(0, 5), min_size=1, max_size=4), seed=seeds)
def test_chunk_fillers_sum_word_contributions(n_chunks, seed):
    "Eq. 6: a chunk's fillers are the sum of its words' contributions; every chunk gets a flat index once."
    torch.manual_seed(seed)
    T = max(n_chunks) * 2 + 1
    chunk = torch.full((len(n_chunks), T), -1)
    for b, n in enumerate(n_chunks):
        for j in range(n): chunk[b, 2 * j : 2 * j + 2] = j
    flat, total, rows = chunk_targets(chunk)
    assert total == sum(n_chunks) and len(rows) == sum(max(0, n - 2) for n in n_chunks)
    cm = ChunkHRR(HRRLM(11, 8, 4, dropout=0.0))
    ids = torch.randint(1, 11, chunk.shape)
    h, _ = cm.word.hidden(ids)
    F = cm.chunk_fillers(ids, h, flat, total)
    contrib = cm.contributions(ids, h)
    for b in range(len(n_chunks)):
        for k in range(T):
            if flat[b, k] >= 0:
                contrib_sum = contrib[(flat == flat[b, k])].sum(0)
                torch.testing.assert_close(F[flat[b, k]], contrib_sum)

@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 40), cut=st.integers(2, 12), seed=seeds)
def test_contiguous_perplexity_does_not_depend_on_the_window(n, cut, seed):
    "Carrying the state across windows makes the stream's perplexity independent of the window length."
    torch.manual_seed(seed)
    m = HRRLM(13, 8, 4, dropout=0.0).eval()
    ids = torch.randint(1, 13, (n,))
    torch.testing.assert_close(perplexity(m, stream_batches(ids, 1, n)),
                               perplexity(m, stream_batches(ids, 1, cut)),
                               rtol=1e-4,
                               atol=1e-4)

@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 8))
def test_relatedness_labels_partition_the_pairs(k):
    "With k verbs in two forms: k(2k-1) word pairs, k same-verb pairs, k(k-1) same-form pairs."
    pairs = [(f"v{i}", f"v{i}ing") for i in range(k)]
    wp, ysem = relatedness(pairs, "semantic")
    _, ysyn = relatedness(pairs, "syntactic")
    assert len(wp) == k * (2 * k - 1) and sum(ysem) == k and sum(ysyn) == k * (k - 1)
    assert not any(a and b for a, b in zip(ysem, ysyn))

@settings(max_examples=20, deadline=None)
@given(n=st.integers(6, 40), seed=seeds)
def test_hit_rate_and_purity_ignore_label_names_and_scale(n, seed):
    "Renaming labels or rescaling vectors changes neither hit rate nor purity; both lie in [0, 1]."
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, 5, generator=g)
    lab = [str(int(v)) for v in torch.randint(0, 3, (n,), generator=g)]
    h = knn_hit_rate(X, lab, ks=(1, 3))
    assert h == knn_hit_rate(3.0 * X, ["L" + l for l in lab], ks=(1, 3))
    assert all(0 <= v <= 1 for v in h.values())
    cl = torch.randint(0, 4, (n,), generator=g).tolist()
    assert purity(lab, cl) == purity(["L" + l for l in lab], cl) and 0 < purity(lab, cl) <= 1
