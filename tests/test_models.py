"""Kept models (issue 38): every model kind that the training code builds round-trips through `model.json` + `best.safetensors`
(`tpr_nb.modelfiles.build`, `save_model`, `load_model`): the same class, arguments and outputs; a missing, damaged or mismatched file is
an error that names it; the shipped models under `models/` load and are listed by their generated README."""
import json
import pytest
import torch
from safetensors.torch import save_file
from tpr_nb.modelfiles import ModelFileError, build, load_model, model_spec, save_model
from tpr_nb.profiles import Config
from tpr_nb.tpr_rnn.model import TPRRNN, LSTMReader
from tpr_nb.tpru.training import ARCHS, RNNLM
from tpr_nb.tpru import entailment as ent
from tpr_nb.urn.training import make_dyck_model, make_agreement_model, run_dyck
from tpr_nb.hrr.training import make_lm, chunk_batch
from tpr_nb.hrr.chunk_model import ChunkHRR, chunk_lm_loss
from tpr_nb.hrr.model import HRRLM
from tpr_nb.hubert.model import HUBERT
from tpr_nb.hubert.training import make_encoder

g = torch.Generator().manual_seed(0)
ids = lambda *shape, hi=12: torch.randint(1, hi, shape, generator=g)

def _babi(): return (ids(2, 3, 4), torch.tensor([3, 2]), ids(2, 4))
def _pair():
    a, a_len = ent.pad([ent.encode("(a|b)"), ent.encode("~(c)")])
    b, b_len = ent.pad([ent.encode("(b|a)"), ent.encode("c")])
    return ({"a": a, "b": b, "a_len": a_len, "b_len": b_len},)
def _bert(): return (ids(2, 5, hi=60), torch.ones(2, 5, dtype=torch.long))

lm_c = Config(d=8, n_layers=2, dropout=0.0, anneal_steps=0)
dyck_c = Config(lstm_embed=4, lstm_hidden=6)
CASES = {   # each model kind, built as its training code builds it, and an input for it
    "tpr_rnn": (lambda: build(TPRRNN, 12, 4, d_entity=5, d_relation=3, info=dict(vocab=[f"w{i}" for i in range(12)])), _babi),
    "tpr_rnn_w": (lambda: build(TPRRNN, 12, 4, d_entity=5, d_relation=3, move=False, backlink=False), _babi),
    "lstm_reader": (lambda: build(LSTMReader, 12, 4, d_hidden=6), _babi),
    **{f"entail_{k}": (lambda k=k: build(ARCHS["plain"], k, len(ent.ENTAILMENT_TOKENS), 8, 4, 1, 8, 0.0, 2, bidirectional=False), _pair)
       for k in ("gru", "lstm", "tpru")},
    "entail_tpru_bidirectional_slices": (lambda: build(ARCHS["plain"], "tpru", len(ent.ENTAILMENT_TOKENS), 8, 4, 2, 8, 0.0, 1, bidirectional=True), _pair),
    "entail_bidaf_tpru": (lambda: build(ARCHS["bidaf"], "tpru-mod1", len(ent.ENTAILMENT_TOKENS), 8, 4, 1, 8, 0.0, 2), _pair),
    "rnnlm_tpru": (lambda: build(RNNLM, "tpru", 30, 8, 4, 2, 0.0), lambda: (ids(2, 5, hi=30),)),
    "rnnlm_lstm": (lambda: build(RNNLM, "lstm", 30, 8, 4, 2, 0.0), lambda: (ids(2, 5, hi=30),)),
    "urn_dyck": (lambda: make_dyck_model("urn8", dyck_c), lambda: (ids(2, 7),)),
    "lstm_dyck": (lambda: make_dyck_model("lstm", dyck_c), lambda: (ids(2, 7),)),
    "urn_agreement_float32": (lambda: make_agreement_model("urn6", 20, Config(exp_dtype="float32")), lambda: (ids(2, 7, hi=20),)),
    **{f"hrr_{k}": (lambda k=k: make_lm(k, 30, lm_c), lambda: (ids(2, 5, hi=30),)) for k in ("baseline", "fixed_small", "isometric_big")},
    # no forward: its loss is its output
    "hrr_chunk": (lambda: build(ChunkHRR, make_lm("fixed_big", 30, lm_c), 2, 0),
                  lambda: (chunk_batch([dict(ids=[3, 4, 5, 6], chunk=[0, 0, 1, 1]), dict(ids=[7, 8, 9], chunk=[0, 1, 1])], eos=1),),
                  lambda m, b: chunk_lm_loss(m, b)[0]),
    **{f"hubert_{k}": (lambda k=k: build(HUBERT, make_encoder(Config(encoder="tiny"), 0), 3, k, "mean", 16,
                                         tpr=dict(d_S=4, d_R=3, n_S=5, n_R=6, n_heads=2)), _bert)
       for k in ("hubert_transformer", "bert_lstm")},
}

def _out(model, x, run=None):
    with torch.no_grad(): y = run(model, *x) if run else model(*x)
    return y[0] if isinstance(y, tuple) else y

@pytest.mark.parametrize("kind", list(CASES))
def test_every_model_kind_round_trips(kind, tmp_path):
    make, inputs, *run = CASES[kind]
    torch.manual_seed(1)
    model = make().eval()
    x = inputs()
    save_model(model, tmp_path, note="kept")
    spec = json.loads((tmp_path / "model.json").read_text())
    # plain JSON, nothing pickled
    json.dumps(spec)
    # another seed: the weights come from the file
    torch.manual_seed(2)
    back = load_model(tmp_path)
    assert type(back) is type(model) and not back.training
    assert back.state_dict().keys() == model.state_dict().keys()
    torch.testing.assert_close(_out(back, x, *run), _out(model, x, *run), rtol=0, atol=0)
    assert (
        model_spec(back)["info"]["note"] == "kept" and model_spec(back)["kwargs"] == spec["kwargs"]
    )

def test_fit_keeps_the_configuration_beside_the_weights(tmp_path):
    "A run with an `out_dir` (here a Dyck unit's) leaves a folder that `load_model` rebuilds into the trained model."
    c = Config(n_train=256, n_valid=64, n_test=64, n_pairs=3, test_pairs=4, train_depth=2, batch_size=64, lr=0.01, max_steps=8,
               eval_every=4, lstm_embed=4, lstm_hidden=6, progress=False)
    r = run_dyck("urn6", 0, c, out_dir=str(tmp_path))
    m = load_model(tmp_path)
    assert model_spec(m)["info"]["symbols"][:2] == ["<pad>", "<s>"]
    for k, v in m.state_dict().items(): torch.testing.assert_close(v, r["state"][k], rtol=0, atol=0)

def test_missing_damaged_or_mismatched_files_are_named(tmp_path):
    model = CASES["urn_dyck"][0]()
    save_model(model, tmp_path)
    w, j = tmp_path / "best.safetensors", tmp_path / "model.json"
    save_file({k: torch.zeros(3) for k in model.state_dict()}, w)              # other sizes
    with pytest.raises(ModelFileError, match="best.safetensors does not fit the model .*URN"): load_model(tmp_path)
    save_file({"readout.weight": torch.zeros(12, 8)}, w)                       # a missing parameter
    with pytest.raises(ModelFileError, match="does not fit the model"): load_model(tmp_path)
    w.write_bytes(b"\x00" * 10)
    with pytest.raises(ModelFileError, match="truncated or corrupt"): load_model(tmp_path)
    w.unlink()
    with pytest.raises(ModelFileError, match="best.safetensors is missing"): load_model(tmp_path)
    save_model(model, tmp_path)
    j.write_text('{"format": "tpr_nb.model", "call": "os:system", "kwargs": {}}')
    with pytest.raises(ModelFileError, match="names a class or function of tpr_nb"): load_model(tmp_path)
    j.write_text("{not json")
    with pytest.raises(ModelFileError, match="model.json is damaged"): load_model(tmp_path)
    j.unlink()
    with pytest.raises(ModelFileError, match="model.json is missing"): load_model(tmp_path)
    with pytest.raises(ModelFileError, match="no kept model 'nowhere_s0_0000000000'"): load_model("nowhere_s0_0000000000")

def test_a_module_argument_must_be_built_too():
    with pytest.raises(ValueError, match="must come from build"): model_spec(build(ChunkHRR, HRRLM(30, 8, 4)))
