"""TPR-RNN (Schlag & Schmidhuber 2018): an order-3 TPR fast-weight memory (write, move, backlink) that answers bAbI.

Modules: `model` (`TPRRNN`, the `LSTMReader` baseline), `babi` (stories as tensors), `training` (App. A's recipe,
units, profile tables), `sysgen` (Fig. 5's new entities), `analysis` (Fig. 4's clusters), `facts` (what
the protocol cards read off the code)."""
from tpr_nb import lazy_exports
__getattr__, __dir__, __all__ = lazy_exports(__name__, dict(
    TPRRNN="model", LSTMReader="model", babi_data="babi", train_babi="training", babi_errors="training",
    run_task="training", SINGLE_TASK="training", ALL_TASK="training"))
