"HUBERT: properties of the TPR layer, the aggregation, the loss and transfer that are awkward in a notebook."
import pytest
import torch
from hypothesis import given, settings, strategies as st
from tpr_nb.algebra import double_soft_orthogonality
from tpr_nb.hubert.model import (HUBERT, TPRLayer, Aggregate, tiny_bert, transfer, TRANSFER_COMBOS,
                                 hubert_loss, encoder_path)

@settings(max_examples=25, deadline=None)
@given(d_S=st.integers(1, 6), d_R=st.integers(1, 6), n_S=st.integers(1, 7), n_R=st.integers(1, 7), seed=st.integers(0, 10_000))
def test_binding_is_rank_one_with_the_product_norm(d_S, d_R, n_S, n_R, seed):
    torch.manual_seed(seed)
    layer = TPRLayer(8, "transformer", d_S, d_R, n_S, n_R, n_heads=2).double()
    a_S, a_R = torch.randn(3, n_S).double().softmax(-1), torch.randn(3, n_R).double().softmax(-1)
    X = layer.bound(a_S, a_R).view(3, d_S, d_R)
    s, r = a_S @ layer.S.T, a_R @ layer.R.T
    torch.testing.assert_close(torch.linalg.matrix_norm(X), s.norm(dim=-1) * r.norm(dim=-1))
    assert (torch.linalg.matrix_rank(X) <= 1).all()

@settings(max_examples=20, deadline=None)
@given(L=st.integers(1, 9), D=st.integers(1, 6), k=st.integers(1, 4), d=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_concat_aggregation_is_a_linear_map_of_the_concatenation(L, D, k, d, seed):
    torch.manual_seed(seed)
    agg = Aggregate("concat", D, max_len=L, d_out=d, k=k).double()
    x, mask = torch.randn(2, L, D).double(), torch.ones(2, L)
    # the dense matrix it factors
    W = torch.einsum("kD,lkd->lDd", agg.Q.weight, agg.P).reshape(L * D, d)
    torch.testing.assert_close(agg(x, mask), x.reshape(2, L * D) @ W + agg.b)

def test_double_soft_orthogonality_vanishes_only_for_orthogonal_square_R():
    Q, _ = torch.linalg.qr(torch.randn(6, 6, dtype=torch.float64))
    assert double_soft_orthogonality(Q).item() < 1e-20
    # over-complete: never zero
    assert double_soft_orthogonality(torch.randn(6, 7, dtype=torch.float64)).item() > 0.1

@pytest.mark.parametrize("kind", ["hubert_transformer", "hubert_lstm"])
def test_gradients_reach_roles_fillers_scale_and_encoder(kind):
    torch.manual_seed(0)
    m = HUBERT(tiny_bert(60), 3, kind, "mean", tpr=dict(d_S=4, d_R=3, n_S=5, n_R=6, n_heads=2))
    ids, am = torch.randint(5, 60, (4, 7)), torch.ones(4, 7, dtype=torch.long)
    hubert_loss(m, m(ids, am), torch.tensor([0, 1, 2, 0]), ortho=0.1).backward()
    for name in ("tpr.S", "tpr.R", "tpr.scale", "tpr.W_S.weight", "tpr.W_R.weight",
                 "encoder.embeddings.word_embeddings.weight"):
        g = dict(m.named_parameters())[name].grad
        assert g is not None and g.abs().sum() > 0, name

def test_ortho_penalty_pulls_R_towards_orthogonality():
    torch.manual_seed(0)
    m = HUBERT(
        tiny_bert(60), 2, "hubert_transformer", tpr=dict(d_S=4, d_R=5, n_S=5, n_R=5, n_heads=2)
    )
    opt = torch.optim.SGD([m.tpr.R], lr=0.02)
    before = double_soft_orthogonality(m.tpr.R).item()
    for _ in range(200):
        opt.zero_grad()
        double_soft_orthogonality(m.tpr.R).backward()
        opt.step()
    assert double_soft_orthogonality(m.tpr.R).item() < 0.01 * before

@pytest.mark.parametrize("parts", TRANSFER_COMBOS)
def test_transfer_copies_exactly_the_chosen_parts(parts):
    tpr = dict(d_S=4, d_R=3, n_S=5, n_R=6, n_heads=2)
    src = HUBERT(tiny_bert(60, seed=1), 3, "hubert_transformer", tpr=tpr).state_dict()
    tgt = HUBERT(tiny_bert(60, seed=2), 3, "hubert_transformer", tpr=tpr)
    fresh = {k: v.clone() for k, v in tgt.state_dict().items()}
    copied = set(transfer(tgt, src, parts))
    for k, v in tgt.state_dict().items():
        same_as_src, part = torch.equal(v, src[k]), ("encoder" if k.startswith("encoder.") else k.split(".")[-1] if k in ("tpr.S", "tpr.R") else None)
        if part in parts: assert k in copied and same_as_src, k
        elif not k.startswith("encoder.embeddings.position_ids"): assert torch.equal(v, fresh[k]), k
    assert not any(k.startswith("classifier") for k in copied)

def test_missing_encoder_folder_says_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing is downloaded"): encoder_path(tmp_path)
