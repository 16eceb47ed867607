"""The `full` profiles (paper scale, meant for a GPU) build and take one training step.

For every profile table of every paper, the `full` row is resolved with `profile_config` and handed to the
experiment's own run function (`run_lm`, `run_entailment`, `train_babi`, `run_dyck`, `run_task`, ...), exactly
as the notebooks call it. Only keys that set how much data and how many steps are overridden (`max_steps=1`,
`eval_every=1`, data limits, batch sizes, `progress`): the model sizes are the full ones (d=650, d=1024, ...).
`fit` is wrapped by a spy that checks the one step: one finite loss, and every parameter that received a
non-zero gradient has moved. Everything runs on CPU, single-threaded, on two or four examples.
"""
import functools, math
import pytest
import torch

torch.set_num_threads(1)

import tpr_nb.train as train_mod
from tpr_nb.profiles import Config, profile_config
from tpr_nb.data import DataMissingError
from tpr_nb.claims import get_claim, eval_rule
import tpr_nb.hrr.training as hrr
import tpr_nb.tpru.training as tpru
import tpr_nb.tpr_rnn.training as tpr_rnn
import tpr_nb.urn.training as urn
import tpr_nb.hubert.training as hub

FULL = "full"
# one training step, then one (tiny) evaluation
STEP = dict(max_steps=1, eval_every=1, progress=False)

# --------------------------------------------------------------------------------- the spy on `fit`
_REAL_FIT = train_mod.fit

class FitSpy:
    "Stands in for `fit` in a training module: records the one step of each run, then calls the real `fit`."
    def __init__(self): self.runs = []

    def __call__(self, make_model, batches, loss_fn, evaluate, cfg, tag=""):
        assert cfg.max_steps == 1, f"the override max_steps=1 did not reach the TrainConfig: {cfg}"
        rec = dict(losses=[], grads={}, cfg=cfg)
        def make(seed):
            m = make_model(seed)
            rec["init"] = {
                n: p.detach().clone() for n, p in m.named_parameters() if p.requires_grad
            }
            for n, p in m.named_parameters():
                if p.requires_grad: p.register_hook(functools.partial(_note_grad, rec["grads"], n))
            return m
        def loss(m, b):
            l, metrics = loss_fn(m, b)
            rec["losses"].append(float(l.detach()))
            return l, metrics
        model, hist = _REAL_FIT(make, batches, loss, evaluate, cfg, tag)
        rec.update(model=model, history=hist)
        self.runs.append(rec)
        return model, hist

def _note_grad(seen: dict, name: str, g):
    seen[name] = max(seen.get(name, 0.0), g.detach().abs().max().item())

# A gradient this large must move its parameter in float32 with every optimiser used here
# (Adam-type: by about lr * g / (g + eps); SGD at the HRR basis rate 0.01). Smaller ones may
# legitimately round away: at init the TPR-RNN's memory is near zero, so its second and third
# unbinding steps get gradients of 1e-16 to 1e-22.
MOVING_GRAD = 1e-6

def check_step(rec: dict) -> torch.nn.Module:
    "One finite loss; finite gradients; every parameter with a gradient of at least MOVING_GRAD changed by the step."
    assert len(rec["losses"]) == 1 and math.isfinite(rec["losses"][0]), f"losses {rec['losses']}"
    model, init, grads = rec["model"], rec["init"], rec["grads"]
    assert all(math.isfinite(g) for g in grads.values()), {
        n: g for n, g in grads.items() if not math.isfinite(g)
    }
    big = {n for n, g in grads.items() if g >= MOVING_GRAD}
    changed = {
        n for n, p in model.named_parameters() if n in init and not torch.equal(p.detach(), init[n])
    }
    assert big, f"no parameter received a gradient of {MOVING_GRAD:g} or more: {grads}"
    assert (
        not big - changed
    ), f"gradient >= {MOVING_GRAD:g} but unchanged after the step: {sorted(big - changed)}"
    return model

def n_params(m: torch.nn.Module) -> int: return sum(p.numel() for p in m.parameters() if p.requires_grad)

@pytest.fixture
def spy(monkeypatch):
    s = FitSpy()
    for mod in (hrr, tpru, tpr_rnn, urn, hub): monkeypatch.setattr(mod, "fit", s)
    return s

def full(table: dict, **overrides) -> Config:
    return profile_config(table, FULL, **overrides)

# ---------------------------------------------------------------------- every table is covered here
COVERED = {
    "tpr_nb.hrr.training.LM", "tpr_nb.tpru.training.ENTAIL", "tpr_nb.tpru.training.LANG",
    "tpr_nb.tpr_rnn.training.SINGLE_TASK", "tpr_nb.tpr_rnn.training.ALL_TASK",
    "tpr_nb.tpr_rnn.training.ALL_DIAG", "tpr_nb.tpr_rnn.training.ABLATION",
    "tpr_nb.tpr_rnn.training.SYSGEN", "tpr_nb.tpr_rnn.training.REPRESENTATIONS",
    "tpr_nb.urn.training.DYCK", "tpr_nb.urn.training.AGREEMENT", "tpr_nb.hubert.training.HUB"
}

def test_every_profile_table_has_a_full_build_test():
    from test_profiles import profile_tables
    found = {name for name, _ in profile_tables()}
    assert found == COVERED, f"tables without a full-profile build test: {sorted(found - COVERED)}; gone: {sorted(COVERED - found)}"

# ----------------------------------------------------------------------- cached data (pure loaders)
@functools.lru_cache(maxsize=None)
def _ptb_vocab():
    try: return hrr.ptb_vocab()
    except DataMissingError as e: pytest.skip(f"PTB is not available: {e}")

_sentence_ids = functools.lru_cache(maxsize=None)(hrr.sentence_ids)
_stream_ids = functools.lru_cache(maxsize=None)(hrr.stream_ids)

@pytest.fixture
def ptb(monkeypatch):
    "The real PTB vocabulary (10,001 ids); the loaders cached, since each reads the 5 MB train file again."
    V = _ptb_vocab()
    monkeypatch.setattr(hrr, "ptb_vocab", lambda: V)
    monkeypatch.setattr(tpru,
                        "lm_vocab",
                        lambda corpus="ptb": V if corpus == "ptb" else pytest.fail(corpus))
    for mod in (hrr, tpru):
        if hasattr(mod, "sentence_ids"): monkeypatch.setattr(mod, "sentence_ids", _sentence_ids)
        monkeypatch.setattr(mod, "stream_ids", _stream_ids)
    return V

# four sentences per split, 2 x 5 windows
PTB_DATA = dict(limit=4, batch_size=2, eval_batch_size=2, bptt=5)

# ========================================================================= hrr: LM (Table 1, d=650)
@pytest.mark.parametrize("name", full(hrr.LM).kinds)
def test_hrr_lm_full(name, spy, ptb):
    c = full(hrr.LM)
    assert c.d == 650
    run = hrr.run_lm(name, 0, Config(c, **PTB_DATA, **STEP))
    model = check_step(spy.runs[-1])
    assert run["params"] == n_params(model) and math.isfinite(run["test_ppl"])
    if name.removesuffix("_cont") != "baseline":
        size = name.removesuffix("_cont").split("_")[1]
        assert model.emb.s.shape == (2, len(ptb), round(hrr.FILLER_FRACTION[size] * 650))

def test_hrr_chunk_model_full(spy, ptb):
    "12_chunk_analysis: the chunk-level model on top of the fixed_big word model, trained by `run_chunk`."
    from tpr_nb.hrr.data import conll_chunks
    c = full(hrr.LM)
    word = hrr.make_lm("fixed_big", len(ptb), c)
    try: sents, valid = conll_chunks("train", ptb, 2), conll_chunks("test", ptb, 2)
    except DataMissingError as e: pytest.skip(f"CoNLL chunks are not available: {e}")
    cm, hist = hrr.run_chunk(
        word, sents, valid, ptb, 0,
        Config(c, chunk_steps=1, eval_every=1, batch_size=2, eval_batch_size=2, progress=False))
    check_step(spy.runs[-1])
    assert math.isfinite(hist[-1]["loss"])

# ============================================ tpru: ENTAIL (Table 2, Figs. 1-2, Mods., BiDAF; d=64)
def _entail_jobs():
    c, jobs = full(tpru.ENTAIL), []
    # 10, 12
    jobs += [("plain", 2, n) for n in dict.fromkeys(c.kinds + c.sweep + c.slices + c.variants)]
    # 10's depth diagnostic
    jobs += [("plain", 1, n) for n in c.one_layer]
    # 14_bidaf
    jobs += [("bidaf", 2, n) for n in full(tpru.ENTAIL, arch="bidaf").kinds]
    # 15_bidirectional
    jobs += [("bidirectional", 2, n) for n in full(tpru.ENTAIL, bidirectional=True).kinds]
    return jobs

@functools.lru_cache(maxsize=None)
def _tiny_pairs():
    from datasets import Dataset
    ds = Dataset.from_dict({"A": ["(a&b)", "~(c)"], "B": ["a", "(c|d)"], "label": [1, 0]})
    ds.info.description = "two hand-written pairs"
    return ds

def c_bi(arch: str) -> bool:
    "Whether the full row of `arch` ('plain', 'bidaf') trains bidirectional encoders (the paper's, Table 2)."
    return arch in ("plain", "bidaf") and bool(full(tpru.ENTAIL).get("bidirectional", False))

@pytest.mark.parametrize("arch,layers,name", _entail_jobs())
def test_tpru_entailment_full(arch, layers, name, spy):
    # both directions: the diagnostic, and full's plain
    bi = arch == "bidirectional" or c_bi(arch)
    c = full(tpru.ENTAIL,
             **dict(bidaf=dict(arch="bidaf"), bidirectional=dict(bidirectional=True)).get(arch, {}))
    kw = dict(lr=c.lr_grid[0], n_valid=2, n_test=2, n_probe=2, batch_size=2, eval_batch_size=2, **STEP)
    if layers == 1: kw["layers"] = 1
    try: run = tpru.run_entailment(name, 0, Config(c, **kw), train=_tiny_pairs())
    except DataMissingError as e: pytest.skip(f"logical entailment sets are not available: {e}")
    model = check_step(spy.runs[-1])
    assert run["arch"] == ("plain" if arch == "bidirectional" else arch) and run["layers"] == layers and run["params"] == n_params(model)
    assert run["bidirectional"] == bi
    # Table 2 '# params', by the paper's rule
    if arch == "plain" and layers == 2 and name in ("tpru-512x8", "lstm"):
        from tpr_nb.tpru.cell import paper_rule_params
        kind = tpru.parse_spec(name)[0]
        cl = get_claim("tpru", f"le_plain_{'tpru512' if kind == 'tpru' else kind}")
        ours = paper_rule_params(kind, c.d, 2, c.bidirectional) / 1000
        assert eval_rule(cl.rule_for(FULL), ours, cl.paper_value), ours

# ===================================================================== tpru: LANG (Table 4, d=1024)
@pytest.mark.parametrize("name", full(tpru.LANG).kinds)
def test_tpru_language_model_full(name, spy, ptb):
    c = full(tpru.LANG)
    assert c.d == 1024
    run = tpru.run_lm(name, 0, tpru.lm_config(c, c.lr_grid[0], probe_windows=1, **PTB_DATA, **STEP))
    model = check_step(spy.runs[-1])
    assert run["params"] == n_params(model) and math.isfinite(run["test_ppl"])
    kind = tpru.parse_spec(name)[0]
    # Table 4 '# params': the recurrent layers only
    if kind in ("tpru", "lstm"):
        cl = get_claim("tpru", f"lm_d1024_{kind}")
        assert eval_rule(cl.rule_for(FULL), n_params(model.rnn) / 1e6, cl.paper_value), n_params(model.rnn)

# =================================================================================== tpr_rnn (bAbI)
# Vocabulary size and words per sentence of each experiment's data, measured on the shared mirror
# with the notebooks' own calls (`babi_data(...)`, `from_splits(sysgen_splits(...))` at the full
# limits, i.e. none): loading them takes 3 s to 3 min, so the sizes are constants here. They set
# d_symbol (= V) and, at d_hidden=None (the single-task recipe), the MLP width.
# single task: task 1, and task 8 (largest vocabulary)
BABI_SHAPES = {"task1": (20, 6), "task8": (48, 6),
               "task17": (19, 11),                             # ... and task 17 (longest sentence)
               "all": (181, 11),                               # babi_data(ALL_TASKS)
               # from_splits(sysgen_splits(SYSGEN tasks, 500, limit=None))
               "sysgen": (78, 8),
               # babi_data([3], max_sentences=70) (1k train file)
               "task3": (35, 7)}

def _babi_split(n: int, V: int, K: int, T: int = 3, seed: int = 0) -> dict:
    g = torch.Generator().manual_seed(seed)
    return dict(story=torch.randint(1, V, (n, T, K), generator=g),
                n_sent=torch.tensor([T - i % 2 for i in range(n)]),
                question=torch.randint(1, V, (n, K), generator=g),
                answer=torch.randint(1, V, (n, ), generator=g),
                task=torch.ones(n, dtype=torch.long))

def _babi_data(shape: str) -> dict:
    "A stand-in for `babi_data(...)`: the real vocabulary size and sentence length, two random 3-sentence stories per split."
    V, K = BABI_SHAPES[shape]
    return dict(vocab=[f"w{i}" for i in range(V)], max_words=K, notes=[],
                **{s: _babi_split(2, V, K, seed=i) for i, s in enumerate(("train", "valid", "test"))})

ABLATION_VARIANTS = {"w": dict(move=False, backlink=False), "wm": dict(move=True, backlink=False), "wb": dict(move=False, backlink=True)}

def _tpr_rnn_jobs():
    jobs = [("SINGLE_TASK", s, "tpr", {}) for s in ("task1", "task8", "task17")]
    jobs += [("ABLATION", "task8", "tpr", ABLATION_VARIANTS[v])
             for v in full(tpr_rnn.ABLATION).variants]
    jobs += [("ALL_TASK", "all", "tpr", {}), ("ALL_DIAG", "all", "tpr", {}),
             ("REPRESENTATIONS", "task3", "tpr", {})]
    jobs += [("SYSGEN", "sysgen", "tpr", {}), ("SYSGEN", "sysgen", "lstm", {})]
    return jobs

@pytest.mark.parametrize("table,shape,model,variant", _tpr_rnn_jobs(), ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else str(v))
def test_tpr_rnn_full(table, shape, model, variant, spy):
    from tpr_nb.tpr_rnn.model import TPRRNN, LSTMReader
    c = full(getattr(tpr_rnn, table))
    # 10 / 12 via run_task, 11 / 13 / 14 directly: train_babi(d, c, seed, d_entity=..,
    # d_relation=.., d_hidden=..)
    if model == "tpr":
        cls, cfg, kw = TPRRNN, c, dict(d_entity=c.d_entity,
                                       d_relation=c.d_relation,
                                       d_hidden=c.d_hidden,
                                       **variant)
    else:                    # 13_sysgen's LSTM baseline
        cls, cfg, kw = LSTMReader, Config(c, lr=c.baseline_lr, betas=(0.9, 0.999)), dict(d_hidden=c.baseline_hidden)
    data = _babi_data(shape)
    m, hist = tpr_rnn.train_babi(data, Config(cfg, batch_size=2, **STEP), 0, model_cls=cls, **kw)
    check_step(spy.runs[-1])
    assert math.isfinite(hist[-1]["loss"])
    V, K = BABI_SHAPES[shape]
    if model == "tpr":
        assert m.Z.weight.shape == (V, c.d_entity) and m.f_r[0][-2].out_features == c.d_relation
        assert m.f_e[0][0].out_features == (c.d_hidden or V) and (m.move, m.backlink) == (variant.get("move", True), variant.get("backlink", True))
        # one step moves a weight by about 1e-3
        bound = m.input_module.embed.weight.abs().max().item()
        assert abs(bound - c.get("embed_init", 0.01)) < 0.25 * c.get("embed_init", 0.01), bound

# ============================================================================= urn: DYCK, AGREEMENT
@pytest.mark.parametrize("kind", full(urn.DYCK).kinds)
def test_urn_dyck_full(kind, spy):
    c = full(urn.DYCK)
    run = urn.run_dyck(kind, 0, Config(c, n_train=2, n_valid=2, n_test=2, batch_size=2, **STEP))
    model = check_step(spy.runs[-1])
    assert run["params"] == n_params(model)
    if kind == "lstm":
        assert (model.lstm.input_size, model.lstm.hidden_size) == (c.lstm_embed, c.lstm_hidden)
    else: assert model.n == int(kind[3:])

# The full Linzen corpus is not in the mirror, so 11_agreement falls back to UD English-EWT: its
# vocabulary is len(agreement_vocab(ud_agreement("train"), min_count=2)) = 2,317 (4 s to load, so a
# constant here).
AGREEMENT_VOCAB = 2317

def _agreement_data() -> dict:
    from tpr_nb.urn.agreement import agreement_vocab, agreement_tensors
    words = "the keys to the cabinet is are on table".split()
    inst = [dict(prefix=words[:k], label=k % 2, attractors=k % 3, verb="is") for k in (2, 3, 5, 7)]
    vocab = agreement_vocab(inst, min_count=1)
    assert len(vocab) <= AGREEMENT_VOCAB
    return {s: agreement_tensors(inst[i : i + 2], vocab, full(urn.AGREEMENT).max_len)
            for s, i in (("train", 0), ("valid", 2), ("test", 0), ("linzen_subset", 2))}

@pytest.mark.parametrize("kind", full(urn.AGREEMENT).kinds)
def test_urn_agreement_full(kind, spy):
    c = full(urn.AGREEMENT)
    run = urn.run_agreement(
        kind, 0, Config(c, vocab_size=AGREEMENT_VOCAB, batch_size=2, **STEP), _agreement_data()
    )
    model = check_step(spy.runs[-1])
    assert run["params"] == n_params(model)
    emb = model.embed if kind == "lstm" else model.generator
    assert emb.num_embeddings == AGREEMENT_VOCAB

# =========================================================================================== hubert
# HUB's full row keeps encoder=None: the packaged MiniLM-L6 checkpoint (`load_encoder()`), not
# bert-base, so this is the encoder the full run would build. MNLI is not in the mirror, so the NLI
# task is c.nli_task (RTE).
def _hub_task(c):
    from tpr_nb.hubert.data import task_available
    return "MNLI" if task_available("MNLI") else c.nli_task

@pytest.mark.parametrize("kind", __import__("tpr_nb.hubert.model", fromlist=["KINDS"]).KINDS)
def test_hubert_full(kind, spy):
    c = full(hub.HUB, progress=False)
    assert c.encoder is None
    try: task = _hub_task(c)
    except DataMissingError as e: pytest.skip(str(e))
    try: run = hub.run_task(kind, task, 0, Config(c, n_train=2, n_dev=2, epochs=1), keep_state=True)
    except (DataMissingError, ModuleNotFoundError) as e: pytest.skip(f"data or the MiniLM checkpoint missing: {e}")
    model = check_step(spy.runs[-1])
    assert run["steps"] == 1 and run["params"] == sum(p.numel() for p in model.parameters())
    if kind.startswith("hubert"):
        t = c.tpr
        assert model.tpr.S.shape == (t["d_S"], t["n_S"]) and model.tpr.R.shape == (t["d_R"], t["n_R"])

def test_hubert_transfer_full():
    "11_transfer: every part combination copies from a source model (3 NLI classes) into a 2-class target."
    from tpr_nb.hubert.model import HUBERT, TRANSFER_COMBOS, transfer
    c = full(hub.HUB, progress=False)
    try: src, dst = (HUBERT(hub.make_encoder(c, s), n, "hubert_transformer", c.agg, c.max_len, tpr=c.tpr) for s, n in ((1, 3), (0, 2)))
    except ModuleNotFoundError as e: pytest.skip(f"the MiniLM checkpoint is missing: {e}")
    with torch.no_grad():
        for p in src.parameters(): p.add_(0.01)        # so that a copied tensor is distinguishable
    state = src.state_dict()
    for parts in TRANSFER_COMBOS:
        keys = transfer(dst, state, parts)
        assert keys and all(torch.equal(dst.state_dict()[k], state[k]) for k in keys), parts
    assert not torch.equal(dst.classifier.weight[:2], state["classifier.weight"][:2])
