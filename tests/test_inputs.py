"Bad model inputs are errors that say what is wrong, never silently read the wrong row or the padding (issue 36)."
import pytest, torch
from tpr_nb.hrr.model import HRRLM
from tpr_nb.urn.model import URN
from tpr_nb.tpr_rnn.model import TPRRNN
from tpr_nb.tpru.cell import TPRU, TPRUCell

def test_hrr_lm_rejects_negative_and_large_ids():
    lm = HRRLM(vocab_size=20, d=16, d_filler=8, n_roles=2)
    for bad in (-1, 20):
        with pytest.raises(ValueError, match="word ids must lie in 0..19"):
            lm(torch.tensor([[1, bad]]))

def test_urn_rejects_bad_ids():
    with pytest.raises(ValueError, match=r"lie in 0..11; got \[-1\]"):
        URN(12, 8, 12)(torch.tensor([[3, -1]]))

def test_tpr_rnn_rejects_bad_ids_in_story_and_question():
    m = TPRRNN(vocab_size=10, max_words=3, d_entity=4, d_relation=3)
    story, n, q = (
        torch.randint(1, 10, (2, 3, 3)),
        torch.tensor([3, 2]),
        torch.randint(1, 10, (2, 3)),
    )
    m(story, n, q)
    with pytest.raises(ValueError, match="word ids"): m(story, n, q.index_fill(1, torch.tensor([0]), -1))
    with pytest.raises(ValueError, match="word ids"): m(story.index_fill(2, torch.tensor([1]), 10), n, q)   # id 10 = vocabulary size

@pytest.mark.parametrize("lengths", [[4, 6], [0, 3], [-1, 3]])
def test_tpru_rejects_lengths_outside_the_input(lengths):
    rnn = TPRU(4, 6, 8, bidirectional=True, batch_first=True)
    with pytest.raises(ValueError, match="lengths must be 2 integers in 1..5"): rnn(torch.randn(2, 5, 4), lengths=torch.tensor(lengths))

def test_tpru_with_no_time_steps_is_an_error():
    with pytest.raises(ValueError, match="T = 0"): TPRU(4, 6, 8, batch_first=True)(torch.randn(2, 0, 4))
    with pytest.raises(ValueError, match="T = 0"): TPRUCell(4, 6, 8).sequence(torch.randn(2, 0, 4))

def test_hubert_rejects_empty_sequences():
    from tpr_nb.hubert.model import HUBERT, load_encoder
    for kind in ("bert_lstm", "hubert_transformer"):
        m = HUBERT(load_encoder(), 2, kind, agg="max")
        ids, mask = torch.randint(1000, 2000, (2, 5)), torch.ones(2, 5, dtype=torch.long)
        assert torch.isfinite(m(ids, mask)).all()
        with pytest.raises(ValueError, match=r"rows \[1\] of attention_mask have no token"): m(ids, mask.index_fill(0, torch.tensor([1]), 0))
        with pytest.raises(ValueError, match="at least one token"): m(ids[:, :0], mask[:, :0])
