"""tpr_nb: literate reproductions of five papers on structured neural representations.

The papers' models are importable from the top level, each from its own package (loaded on first use, so
`import tpr_nb` stays fast):

- `TPRU` (`tpr_nb.tpru`): the tensor-product recurrent unit, a drop-in for `nn.GRU`;
- `HRRLM`, `HRREmbedding` (`tpr_nb.hrr`): language models with holographic reduced representations;
- `TPRRNN` (`tpr_nb.tpr_rnn`): the third-order TPR memory network for bAbI;
- `URN` (`tpr_nb.urn`): the unitary-evolution recurrent network;
- `HUBERT`, `TPRLayer` (`tpr_nb.hubert`): a TPR layer on a pretrained encoder.

A shipped model answers raw text in one call: `answer(model, story, question)` (TPR-RNN, bAbI),
`entails(model, a, b)` (logical entailment), `score_brackets(model, word)` (URN, Dyck words).

Shared pieces: the binding algebra (`tpr_nb.algebra`), `load_model`/`shipped_model` for kept models,
`profile_config` for an experiment's settings, `fit` for training."""
import importlib

def lazy_exports(package: str, where: dict) -> tuple:
    "`__getattr__`, `__dir__` and `__all__` for `package` that import each name of `where` (name: module) on first use."
    def __getattr__(name: str):
        if name not in where: raise AttributeError(f"module {package!r} has no attribute {name!r}")
        mod = importlib.import_module(where[name] if where[name].startswith("tpr_nb") else f"{package}.{where[name]}")
        value = mod if mod.__name__.endswith("." + name) else getattr(mod, name)
        setattr(importlib.import_module(package), name, value)
        return value
    def __dir__(): return sorted([*vars(importlib.import_module(package)), *where])
    return __getattr__, __dir__, sorted(where)

__getattr__, __dir__, __all__ = lazy_exports("tpr_nb", dict(
    TPRU="tpr_nb.tpru.cell", TPRUCell="tpr_nb.tpru.cell", HRRLM="tpr_nb.hrr.model", HRREmbedding="tpr_nb.hrr.model",
    TPRRNN="tpr_nb.tpr_rnn.model", URN="tpr_nb.urn.model", HUBERT="tpr_nb.hubert.model", TPRLayer="tpr_nb.hubert.model",
    load_model="tpr_nb.modelfiles", save_model="tpr_nb.modelfiles", fit="tpr_nb.train", shipped_model="tpr_nb.models",
    shipped_names="tpr_nb.models", profile_config="tpr_nb.profiles", algebra="tpr_nb.algebra",
    answer="tpr_nb.demo", entails="tpr_nb.demo", score_brackets="tpr_nb.demo"))

__version__ = "0.1.0"
