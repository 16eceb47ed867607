"""TPRU (Tang, Smolensky & de Sa 2020): a gated recurrent unit whose state is a reduced tensor product representation.

Modules: `cell` (the TPRU cell and `TPRU`, a drop-in for `nn.GRU`), `entailment` (logical-entailment data),
`gradients` (gradient-flow measurements), `training` (the entailment, BiDAF and language models, their profile
tables), `analysis` (role interpretation), `facts` (what the protocol cards read off the code)."""
from tpr_nb import lazy_exports
__getattr__, __dir__, __all__ = lazy_exports(__name__, dict(
    TPRU="cell", TPRUCell="cell", EntailmentModel="training", BiDAFModel="training", RNNLM="training",
    run_entailment="training", ENTAIL="training", LANG="training"))
