"""HUBERT (Moradshahi et al. 2019): a TPR layer on a pretrained BERT-style encoder; transfer across GLUE and HANS.

Modules: `model` (`TPRLayer`, `HUBERT`), `data` (GLUE, HANS), `training` (runs, transfer and profile tables),
`facts` (what the protocol cards read off the code)."""
from tpr_nb import lazy_exports
__getattr__, __dir__, __all__ = lazy_exports(__name__, dict(
    HUBERT="model", TPRLayer="model", load_task="data", run_task="training", HUB="training"))
