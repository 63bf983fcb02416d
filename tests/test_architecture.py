"""The floors as a checked contract: who may import whom, and no import cycles.

Parses every module under explorer/ (ast; nothing is imported) and resolves its explorer imports,
including those inside functions. pyproject's [tool.importlinter] states the same layers for
`lint-imports`; this test needs no extra package. See docs/architecture.md.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "explorer"
QT = ("PySide6", "pyqtgraph", "shiboken6")
VIEWS = ("explorer.gui.heads", "explorer.gui.pe", "explorer.gui.kv", "explorer.gui.topics",
         "explorer.gui.controls", "explorer.gui.learned", "explorer.gui.training",
         "explorer.gui.lessons")
# floor -> the explorer floors it may import (besides itself); lower floors first.
FLOORS = {
    "explorer.core": (),
    "explorer.app": ("explorer.core",),
    "explorer.gui.plotting": ("explorer.core", "explorer.app"),
    "explorer.export": ("explorer.core", "explorer.app", "explorer.gui.plotting"),
    **{view: ("explorer.core", "explorer.app", "explorer.gui.plotting") for view in VIEWS},
    "explorer.gui.window": ("explorer.core", "explorer.app", "explorer.gui.plotting",
                            "explorer.export", "explorer.gui", *VIEWS),
    "explorer.cli": ("explorer.core", "explorer.app", "explorer.export", "explorer.gui.plotting",
                     *VIEWS, "explorer.gui.window"),
}
QT_FREE = ("explorer.core", "explorer.app", "explorer.cli")  # cli: Qt only inside functions


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path = ROOT) -> list[tuple[str, int, bool]]:
    """(imported module, line, at module level) for every import in the file."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.append((target, node.lineno, id(node) in top))
            found += [(f"{target}.{alias.name}", node.lineno, id(node) in top)
                      for alias in node.names]  # `from . import text`: a submodule
    return found


def floor_of(module: str) -> str | None:
    return max((f for f in FLOORS if module == f or module.startswith(f + ".")), key=len, default=None)


def modules(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def violations(root: Path = ROOT) -> list[str]:
    """Each import that breaks the floors or pulls Qt into a Qt-free floor, one line each."""
    known, found = modules(root), []
    for name, path in known.items():
        floor = floor_of(name)
        for target, line, top_level in imports(path, root):
            where = f"{path.relative_to(root.parent)}:{line}"
            if target.split(".")[0] in QT and floor_of(name) in QT_FREE and (top_level or floor != "explorer.cli"):
                found.append(f"{where}: {name} imports {target} (its floor must stay Qt-free)")
            if not target.startswith("explorer.") or target not in known and target.rpartition(".")[0] not in known:
                continue
            target_floor = floor_of(target)
            if floor is None or target_floor is None or target_floor == floor:
                continue
            if target_floor not in FLOORS[floor] and target != "explorer.gui":
                found.append(f"{where}: {name} ({floor}) imports {target} ({target_floor})")
    return found


def cycles(root: Path = ROOT) -> list[list[str]]:
    """Import cycles between explorer modules (module-level imports only: those run at import)."""
    known = modules(root)
    graph = {name: sorted({t for t, _, top in imports(p, root) if top and t in known and t != name})
             for name, p in known.items()}
    found, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"
    for node in graph:
        if node not in state:
            visit(node, [])
    # a package importing its own submodules is not a cycle: its __init__ runs first
    return [c for c in found if not all(c[0] == m or m.startswith(c[0] + ".") for m in c)
            and not any(b.startswith(a + ".") and a == c[0] for a, b in zip(c, c[1:]))]


def test_every_floor_imports_only_the_floors_below_it():
    found = violations()
    assert not found, "imports against the floors:\n" + "\n".join(found)


def test_no_import_cycles_between_explorer_modules():
    found = cycles()
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_view_folder_holds_more_than_a_dozen_modules():
    crowded = {d.name: n for d in (ROOT / "gui").iterdir() if d.is_dir()
               if (n := len([p for p in d.glob("*.py") if p.name != "__init__.py"])) > 12}
    assert crowded == {}


@pytest.mark.parametrize("source, expected", [
    ("from PySide6.QtCore import QObject\n", "must stay Qt-free"),
    ("from ..gui.heads.grid import HeadsGrid\n", "imports explorer.gui.heads.grid"),
])
def test_a_violation_is_caught(tmp_path, source, expected):
    """The check can fail: a copy of explorer/ with one bad import in the app floor."""
    import shutil
    copy = tmp_path / "explorer"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    state = copy / "app" / "state.py"
    state.write_text(source + state.read_text(encoding="utf-8"), encoding="utf-8")
    assert any(expected in line for line in violations(copy))


def test_a_cycle_is_caught(tmp_path):
    """The cycle check can fail too: a copy of explorer/ where app.observable imports app.state
    at module level (state imports observable)."""
    import shutil
    copy = tmp_path / "explorer"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    observable = copy / "app" / "observable.py"
    observable.write_text("from .state import AppState\n" + observable.read_text(encoding="utf-8"),
                          encoding="utf-8")
    assert ["explorer.app.observable", "explorer.app.state", "explorer.app.observable"] in cycles(copy)
