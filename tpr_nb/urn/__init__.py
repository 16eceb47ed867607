"""URN (Bernardy & Lappin): unitary-evolution recurrent networks, Q(x) = exp(S(x)), on Dyck languages and agreement.

Modules: `model` (`URN`, the `LSTMTagger` baseline), `dyck` (Dyck words), `agreement` (subject-verb agreement
data), `training` (runs and profile tables), `facts` (what the protocol cards read off the code)."""
from tpr_nb import lazy_exports
__getattr__, __dir__, __all__ = lazy_exports(__name__, dict(
    URN="model", LSTMTagger="model", dyck_data="dyck", run_dyck="training", DYCK="training"))
