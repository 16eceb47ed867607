"""The public API: the main classes from the top level and from each paper's package, every package documented
with an `__all__`, and `import tpr_nb` light (nothing heavy is imported until asked for)."""
import importlib, inspect, subprocess, sys
import pytest

PACKAGES = ["tpr_nb", "tpr_nb.tpru", "tpr_nb.hrr", "tpr_nb.tpr_rnn", "tpr_nb.urn", "tpr_nb.hubert"]

def test_the_main_classes_come_from_the_top_level():
    from tpr_nb import TPRU, HRRLM, TPRRNN, URN, HUBERT
    from tpr_nb.tpr_rnn.model import TPRRNN as defined
    assert TPRRNN is defined and all(inspect.isclass(c) for c in (TPRU, HRRLM, TPRRNN, URN, HUBERT))

@pytest.mark.parametrize("name", PACKAGES)
def test_every_package_is_documented_and_exports_what_it_lists(name):
    pkg = importlib.import_module(name)
    assert pkg.__doc__ and len(pkg.__doc__) > 40, f"{name} has no docstring"
    assert pkg.__all__, f"{name} has no __all__"
    for n in pkg.__all__:
        obj = getattr(pkg, n)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__doc__, f"{name}.{n} has no docstring"

def test_a_missing_name_is_an_attribute_error():
    import tpr_nb.tpr_rnn
    with pytest.raises(AttributeError, match="no attribute 'nope'"): tpr_nb.tpr_rnn.nope

def test_import_is_light():
    "`import tpr_nb` and a paper package import neither torch nor any paper's module until a name is used."
    code = "import sys, tpr_nb, tpr_nb.urn; print(sorted(m for m in sys.modules if m.startswith('tpr_nb') or m == 'torch'))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['tpr_nb', 'tpr_nb.urn']", out
