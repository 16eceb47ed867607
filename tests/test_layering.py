"""Layering: a paper's modules and notebooks import no other paper's module; a shared module imports no paper.

The papers are the subpackages of `tpr_nb` (`tpr_nb/<paper>/`, notebooks in `nbs/<paper>/`); the shared rooms are the
modules at the top of `tpr_nb` (algebra, data, train, lm, report, ...). Above the papers sits a thin application floor,
`APPS`: entry points that use the papers' trained models (the `demo` command, the shipping of `models/`), as the index
notebook and the benchmarks do. An application module may import any paper; no paper and no shared room may import an
application module. Imports are read with `ast`, relative ones resolved, from the exported modules and from every code cell
of the papers' notebooks (and the exported cells of the shared ones)."""
import ast, json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# application module -> its notebook
APPS = {"cli": "04_cli", "demo": "06_demo", "models": "05_models"}

def papers(root: Path) -> set[str]:
    "The paper packages: folders of `tpr_nb` with an `__init__.py`."
    return {p.parent.name for p in (root / "tpr_nb").glob("*/__init__.py")}

def imported(tree: ast.AST, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    "(line, absolute module name) of every import in `tree`, relative ones resolved against `module`."
    here = module.split(".") if is_package else module.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import): out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - (node.level - 1)] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            out += [(node.lineno, name)] if node.module else [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif (isinstance(node, ast.Call)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            out.append((node.lineno, node.args[0].value))
    return out

def paper_of(name: str, known: set[str]) -> str | None:
    "The paper a module name belongs to (`tpr_nb.hrr.data` -> 'hrr'), None for a shared or outside module."
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "tpr_nb" and parts[1] in known else None

def code_cells(nb: Path, exported_only: bool = False):
    "The sources of a notebook's code cells (IPython magics and shell lines blanked, so line numbers hold)."
    for i, c in enumerate(json.loads(nb.read_text())["cells"]):
        if c["cell_type"] != "code": continue
        src = "".join(c["source"])
        if exported_only and not src.lstrip().startswith("#| export"): continue
        yield i, "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in src.splitlines())

def violations(root: Path, apps: dict = APPS) -> list[str]:
    "Every import that crosses from one paper to another, from a shared module to a paper, or from below into the application floor."
    known, bad = papers(root), []
    def check(where: str, owner: str | None, found, app: bool = False):
        for line, name in found:
            target = paper_of(name, known)
            if name.split(".")[:2] in [["tpr_nb", a] for a in apps] and not app:
                bad.append(f"{where}:{line}: {'paper ' + owner if owner else 'shared module'} imports the application module {name}")
            elif target is not None and target != owner and not app:
                bad.append(f"{where}:{line}: {'paper ' + owner if owner else 'shared module'} imports {name}")
    for f in sorted((root / "tpr_nb").rglob("*.py")):
        rel = f.relative_to(root)
        module = ".".join(rel.with_suffix("").parts)
        is_package = f.name == "__init__.py"
        if is_package: module = module.removesuffix(".__init__")
        owner = rel.parts[1] if len(rel.parts) > 2 else None
        if owner is not None and owner not in known: continue
        check(str(rel),
              owner,
              imported(ast.parse(f.read_text()), module, is_package),
              app=owner is None and f.stem in apps)
    for nb in sorted((root / "nbs").rglob("*.ipynb")):
        rel = nb.relative_to(root / "nbs")
        if ".ipynb_checkpoints" in rel.parts: continue
        owner = rel.parts[0] if len(rel.parts) > 1 else None
        if owner is not None and owner not in known: continue
        for i, src in code_cells(nb, exported_only=owner is None):
            check(f"nbs/{rel} cell {i}",
                  owner,
                  imported(ast.parse(src), "tpr_nb.__notebook__"),
                  app=owner is None and nb.stem in apps.values())
    return bad

def test_no_paper_imports_another_and_no_shared_module_imports_a_paper():
    bad = violations(ROOT)
    assert not bad, "imports across the layers:\n" + "\n".join(bad)

def test_the_check_finds_each_kind_of_crossing(tmp_path):
    "A constructed tree with one crossing of each kind: the check names all of them and nothing else."
    def write(path, text):
        p = tmp_path / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for paper in ("alpha", "beta"): write(f"tpr_nb/{paper}/__init__.py", "")
    write("tpr_nb/__init__.py", "")
    write("tpr_nb/shared.py",
          "import math\nfrom .data import x\n\ndef f():\n    from tpr_nb.beta.model import M\n")
    write("tpr_nb/data.py", "x = 1\n")
    write("tpr_nb/alpha/train.py", "from ..data import x\nfrom .model import A\nfrom ..beta.data import y\nfrom . import model\n")
    write("tpr_nb/alpha/loader.py",
          "import importlib\nm = importlib.import_module('tpr_nb.beta.data')\n")
    write("tpr_nb/beta/data.py", "from tpr_nb.beta import model\nimport tpr_nb.alpha\n")
    cell = lambda src, kind="code": dict(
        cell_type=kind, source=src.splitlines(keepends=True), metadata={}, outputs=[])
    write("nbs/alpha/10_run.ipynb", json.dumps(dict(cells=[cell("%matplotlib inline\nimport tpr_nb.alpha.train as lib"),
                                                          cell("from tpr_nb.beta.data import y"),
                                                          cell("from tpr_nb.beta.data import y", "markdown")])))
    write("nbs/00_shared.ipynb", json.dumps(dict(cells=[cell("#| export\nfrom tpr_nb.alpha.train import t"),
                                                       cell("from tpr_nb.beta.data import y  # a showcase cell, not exported")])))
    # the application floor: allowed
    write("tpr_nb/app.py", "from tpr_nb.alpha.train import t\nfrom tpr_nb.beta.data import y\n")
    # a paper reaching up: not
    write("tpr_nb/alpha/show.py", "from tpr_nb.app import t\n")
    found = violations(tmp_path, apps={"app": "09_app"})
    assert found == [
        "tpr_nb/alpha/loader.py:2: paper alpha imports tpr_nb.beta.data",
        "tpr_nb/alpha/show.py:1: paper alpha imports the application module tpr_nb.app",
        "tpr_nb/alpha/train.py:3: paper alpha imports tpr_nb.beta.data",
        "tpr_nb/beta/data.py:2: paper beta imports tpr_nb.alpha",
        "tpr_nb/shared.py:5: shared module imports tpr_nb.beta.model",
        "nbs/00_shared.ipynb cell 0:2: shared module imports tpr_nb.alpha.train",
        "nbs/alpha/10_run.ipynb cell 1:1: paper alpha imports tpr_nb.beta.data"
    ], found
