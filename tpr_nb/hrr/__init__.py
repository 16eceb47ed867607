"""HRR language models (Sun et al.): word and chunk embeddings as role (x) filler bindings by circular convolution.

Modules: `model` (`HRREmbedding`, `HRRLM`, the LSTM baseline `LSTMLM`), `chunk_model` (`ChunkHRR`), `data`,
`training` (runs and profile tables), `evaluation` (perplexity, analogies, similarity, clustering),
`facts` (what the protocol cards read off the code)."""
from tpr_nb import lazy_exports
__getattr__, __dir__, __all__ = lazy_exports(__name__, dict(
    HRREmbedding="model", HRRLM="model", LSTMLM="model", ChunkHRR="chunk_model", run_lm="training", LM="training"))
