"Gradient checks and property tests of the TPRU: finite differences, TPRUScan against autograd, the analytic Jacobian, padding, entailment semantics (hypothesis)."
import random
import torch
from hypothesis import example, given, settings, strategies as st
from tpr_nb.tpru.cell import TPRUCell, TPRU, reverse_padded, VARIANTS
from tpr_nb.tpru.scan import time_loop
from tpr_nb.tpru.gradients import step_jacobian, autograd_jacobian, random_cell
from tpr_nb.tpru import entailment as ent

seeds = st.integers(0, 2**31 - 1)

@settings(max_examples=10, deadline=None)
@given(variant=st.sampled_from(VARIANTS), slices=st.sampled_from([1, 2]), seed=seeds)
def test_gradcheck_against_finite_differences(variant, slices, seed):
    "Autograd through a two-step TPRU layer agrees with central finite differences in float64 (every parameter and the input)."
    torch.manual_seed(seed)
    m = TPRU(3, 4, 5, num_layers=1, batch_first=True, n_slices=slices, variant=variant).double()
    with torch.no_grad():
        for c in m.cells:  # keep every relu away from its kink
            c.b_b.fill_(0.3)
            c.b_x.fill_(0.2)
    x = torch.randn(2, 2, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, *ps: m(x)[0].sum(), (x, *m.parameters()),
                                    eps=1e-6,
                                    atol=1e-5)

@settings(max_examples=15, deadline=None)
@given(variant=st.sampled_from(VARIANTS), slices=st.sampled_from([1, 2]), roles=st.integers(1, 9),
       lengths=st.lists(st.integers(1, 7), min_size=1, max_size=4), seed=seeds)
def test_scan_backward_equals_autograd(variant, slices, roles, lengths, seed):
    "TPRUScan's written-out backward gives autograd's gradients (through the plain step) for a padded, bidirectional two-layer layer, fillers included."
    torch.manual_seed(seed)
    m = TPRU(3, 4, roles, num_layers=2, batch_first=True, bidirectional=True, n_slices=slices, variant=variant).double()
    x = torch.randn(len(lengths), max(lengths), 3, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(4, len(lengths), 4, dtype=torch.float64, requires_grad=True)
    def grads(how):
        with time_loop(how):
            out, h, fills = m(x, h0, lengths=torch.tensor(lengths), return_fillers=True)
            loss = out.pow(2).sum() + h.sin().sum() + sum((f * torch.rand(f.shape, generator=torch.Generator().manual_seed(1), dtype=f.dtype)).sum() for f in fills)
        return torch.autograd.grad(loss, [x, h0, *m.parameters()], allow_unused=True)
    for a, b in zip(grads(None), grads("autograd")):
        if a is None or b is None: assert a is None and b is None
        else: torch.testing.assert_close(a, b, atol=1e-10, rtol=1e-8)

@settings(max_examples=20, deadline=None)
@given(variant=st.sampled_from(VARIANTS),
       d=st.integers(2, 12),
       n_roles=st.integers(1, 16),
       seed=seeds)
# every role off (s = 0): the analytic form once divided by zero here
@example(variant="ours", d=2, n_roles=1, seed=28854)
def test_analytic_jacobian_matches_autograd(variant, d, n_roles, seed):
    "The corrected Eqs. 7-8 equal autograd's d b_t / d b_(t-1) at any size."
    c = random_cell(variant, d=d, d_in=3, n_roles=n_roles, seed=seed % 10_000)
    x, b = torch.randn(3, dtype=torch.float64), torch.randn(d, dtype=torch.float64)
    torch.testing.assert_close(
        step_jacobian(c, x, b), autograd_jacobian(c, x, b), atol=1e-10, rtol=1e-8
    )

@settings(max_examples=25, deadline=None)
@given(lengths=st.lists(st.integers(1, 6), min_size=1, max_size=4), seed=seeds)
def test_reverse_padded_is_an_involution(lengths, seed):
    torch.manual_seed(seed)
    x = torch.randn(len(lengths), 6, 2)
    L = torch.tensor(lengths)
    torch.testing.assert_close(reverse_padded(reverse_padded(x, L), L), x)
    for i, n in enumerate(lengths): torch.testing.assert_close(reverse_padded(x, L)[i, :n], x[i, :n].flip(0))

@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 5), extra=st.integers(1, 4), seed=seeds)
def test_padding_changes_nothing(n, extra, seed):
    "A sequence alone and padded inside a batch: same outputs, state and fillers, both directions."
    torch.manual_seed(seed)
    m = TPRU(3, 4, 5, num_layers=2, batch_first=True, bidirectional=True).eval()
    a = torch.randn(1, n, 3)
    x = torch.cat([torch.cat([a, torch.randn(1, extra, 3)], 1), torch.randn(1, n + extra, 3)])
    out, h, f = m(x, lengths=torch.tensor([n, n + extra]), return_fillers=True)
    oa, ha, fa = m(a, return_fillers=True)
    torch.testing.assert_close(out[0, :n], oa[0], atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(h[:, 0], ha[:, 0], atol=1e-6, rtol=1e-5)

@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_permutation_preserves_entailment(seed):
    "Symbolic vocabulary permutation renames variables consistently, so the label cannot change."
    rng = random.Random(seed)
    ds = ent.generate_pairs(4, seed=seed % 1000)
    for a, b, y in zip(ds["A"], ds["B"], ds["label"]):
        pa, pb = ent.permute_variables(a, b, rng)
        assert ent.entails(pa, pb) == bool(y) == ent.entails(a, b)
