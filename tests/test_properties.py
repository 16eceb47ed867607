"Property tests of the binding algebra and the batching helpers (hypothesis)."
import torch
from hypothesis import given, settings, strategies as st
from tpr_nb.algebra import (circular_conv, circular_corr, random_basis, tpr, unbind, reduced_bind, reduced_unbind, bind3,
                            unbind3)
from tpr_nb.data import bucket_batches, pad, length_mask

dims = st.integers(2, 33)
seeds = st.integers(0, 2**31 - 1)

def vecs(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)

@settings(max_examples=40, deadline=None)
@given(d=dims, seed=seeds)
def test_hrr_algebra(d, seed):
    x, y, z = vecs(seed, 3, d)
    # commutative
    torch.testing.assert_close(circular_conv(x, y), circular_conv(y, x))
    torch.testing.assert_close(circular_conv(circular_conv(x, y), z),
                               circular_conv(x, circular_conv(y, z)))  # associative
    # the involution x*
    torch.testing.assert_close(circular_corr(x, y), circular_conv(torch.roll(x.flip(-1), 1, -1), y))
    # bilinear
    torch.testing.assert_close(circular_conv(x, y + z), circular_conv(x, y) + circular_conv(x, z))
    X = torch.fft.rfft(x)
    # well-conditioned x
    if X.abs().min() > 1e-3:
        torch.testing.assert_close(
            circular_conv(torch.fft.irfft(1 / X, n=d), circular_conv(x, y)), y, atol=1e-6, rtol=1e-6
        )

@settings(max_examples=40, deadline=None)
@given(d=dims, data=st.data(), seed=seeds)
def test_tpr_exact_recovery_with_dual_basis(d, data, seed):
    n = data.draw(st.integers(1, d))
    df = data.draw(st.integers(1, 9))
    R = random_basis(d, n, "gaussian", torch.Generator().manual_seed(seed), dtype=torch.float64)
    if torch.linalg.cond(R) > 1e6: return
    # the dual basis
    F, U = vecs(seed + 1, df, n), torch.linalg.pinv(R).T
    torch.testing.assert_close(unbind(tpr(F, R), U), F, atol=1e-6, rtol=1e-6)
    f = vecs(seed + 2, 4, n)
    torch.testing.assert_close(reduced_unbind(U, reduced_bind(R, f)), f, atol=1e-6, rtol=1e-6)

@settings(max_examples=30, deadline=None)
@given(E=st.integers(2, 8), Rn=st.integers(1, 6), seed=seeds)
def test_order3_onehot_write_read(E, Rn, seed):
    g = torch.Generator().manual_seed(seed)
    i, j, k = (torch.randint(0, m, (5,), generator=g) for m in (E, Rn, E))
    e1, r, e2 = torch.eye(E)[i], torch.eye(Rn)[j], torch.eye(E)[k]
    torch.testing.assert_close(unbind3(bind3(e1, r, e2), e1, r), e2)

@settings(max_examples=50, deadline=None)
@given(lens=st.lists(st.integers(1, 80), min_size=1, max_size=300),
       bs=st.integers(1, 64),
       seed=seeds)
def test_bucket_batches_partition(lens, bs, seed):
    batches = bucket_batches(lens, bs, seed=seed)
    assert sorted(i for b in batches for i in b) == list(range(len(lens)))
    assert all(1 <= len(b) <= bs for b in batches)

@given(lens=st.lists(st.integers(0, 12), min_size=1, max_size=20))
def test_pad_and_mask(lens):
    seqs = [list(range(1, n + 1)) for n in lens]
    x, L = pad(seqs)
    assert x.shape == (len(lens), max(lens)) and L.tolist() == lens
    if max(lens):
        assert (length_mask(L, x.shape[1]).sum(1) == L).all() and (
            (x != 0) == length_mask(L, x.shape[1])
        ).all()
