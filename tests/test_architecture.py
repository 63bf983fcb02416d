"""The floors as a checked contract: who may import whom, and no import cycles.

The rules are read from pyproject.toml's [tool.importlinter], the contracts `lint-imports`
checks: the floors from the `layers` contract, the Qt-free floors from the `forbidden` one that
names PySide6. Nothing here keeps its own copy. Every module under explorer/ is parsed (ast;
nothing is imported) and its imports are named the way import-linter's graph (grimp) names them,
imports inside functions included (they run too, only later): `from a import b` imports the
module `a.b` where there is one, else `a`. The checks:

- the floors: a floor imports only the floors below it, directly or through modules that are on
  no floor (`explorer.gui.dispatch_qt`, `explorer.platform_check`);
- the Qt-free floors reach no Qt, through any chain of modules; `explorer.cli` imports Qt only
  inside functions (so `dump` loads none; a rule of this test alone, lint-imports cannot say it);
- no cycle between modules, and none between the children of any package (import-linter's
  `acyclic_siblings` contract: `explorer.export -> explorer.gui -> explorer.export` is a cycle
  even when no module is on it twice).

Where import-linter is installed (the test extras), `lint-imports` runs too, on the tree and on
copies with one bad import each: both must pass the tree and fail every copy. See
docs/architecture.md.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections import deque
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "explorer"
PYPROJECT = REPO / "pyproject.toml"
QT_AT_CALL_TIME_ONLY = ("explorer.cli",)  # Qt only inside functions: `dump` loads no Qt


# ----- the rules, from pyproject.toml -----------------------------------------------------------
def contracts(pyproject: Path = PYPROJECT) -> list[dict]:
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def the_contract(kind: str, pyproject: Path = PYPROJECT) -> dict:
    found = [c for c in contracts(pyproject) if c["type"] == kind]
    assert len(found) == 1, f"pyproject.toml holds {len(found)} {kind!r} contracts, this test reads one"
    return found[0]


def floors(pyproject: Path = PYPROJECT) -> dict[str, tuple[str, ...]]:
    """floor -> the floors it may import besides itself: every floor below it, and its siblings on
    the same layer where they are joined by ":" (import-linter's syntax; "|": independent)."""
    layers = the_contract("layers", pyproject)
    assert not layers.get("containers"), "this test reads layers without containers"
    allowed, below = {}, []
    for layer in reversed(layers["layers"]):
        independent = "|" in layer
        members = [m.strip() for m in layer.replace(":", "|").split("|")]
        for member in members:
            siblings = () if independent else tuple(m for m in members if m != member)
            allowed[member] = (*below, *siblings)
        below += members
    return allowed


def qt_rule(pyproject: Path = PYPROJECT) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the Qt-free floors, the Qt packages): the forbidden contract that names PySide6."""
    found = [c for c in contracts(pyproject)
             if c["type"] == "forbidden" and "PySide6" in c["forbidden_modules"]]
    assert len(found) == 1, "pyproject.toml should hold one forbidden contract for Qt"
    return tuple(found[0]["source_modules"]), tuple(found[0]["forbidden_modules"])


# ----- the imports, from the source ------------------------------------------------------------
class Import(NamedTuple):
    target: str       # the module imported, as grimp names it
    line: int
    at_import: bool   # at module level (not inside a function): runs when the module is imported


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports(path: Path, root: Path = ROOT, known=frozenset()) -> list[Import]:
    """Every import in the file. `from a import b` imports the module `a.b` if it is one of
    `known`, else `a` (as grimp counts it); relative imports are resolved."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for level, source, names, line, at_import in _statements(path.read_text(encoding="utf-8")):
        if level < 0:  # import a.b, c
            found += [Import(n, line, at_import) for n in names]
            continue
        if level:
            base = package.split(".")[: len(package.split(".")) - level + 1]
            source = ".".join(base + ([source] if source else []))
        for alias in names:
            target = f"{source}.{alias}"
            found.append(Import(target if target in known else source, line, at_import))
    return found


@lru_cache(maxsize=4096)  # the copies made by the tests below parse only what they changed
def _statements(text: str) -> tuple[tuple[int, str | None, tuple[str, ...], int, bool], ...]:
    """(level, module, names, line, at module level) of each import statement; level -1 for
    `import a.b`."""
    found = []

    def add(node: ast.AST, depth: int) -> None:
        if isinstance(node, ast.Import):
            found.append((-1, None, tuple(a.name for a in node.names), node.lineno, depth == 0))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, tuple(a.name for a in node.names), node.lineno,
                          depth == 0))
        inner = depth + isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            add(child, inner)

    add(ast.parse(text), 0)
    return tuple(found)


def resolve(target: str, known) -> str | None:
    """The explorer module an import names (`a.b.Name` -> `a.b`), or None (not explorer's)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """module -> {explorer module it imports: the first line}, imports inside functions included."""
    known = modules(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        edges = graph.setdefault(name, {})
        for imp in imports(path, root, known.keys()):
            target = resolve(imp.target, known)
            if target is not None and target != name:
                edges.setdefault(target, imp.line)
    return graph


def _cycles(graph: dict[str, set[str] | dict]) -> list[list[str]]:
    """One cycle through each strongly connected part of the graph with more than one node,
    from its smallest node back to it (shortest), e.g. [a, b, a]."""
    index, low, stack, on_stack, parts = {}, {}, [], set(), []

    def connect(node: str) -> None:  # Tarjan
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.add(member)
                if member == node:
                    break
            if len(part) > 1:
                parts.append(part)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    found = []
    for part in parts:
        start = min(part)
        came_from, queue = {start: None}, deque([start])
        while queue:
            node = queue.popleft()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    path = [node]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    found.append([*reversed(path), start])
                    queue.clear()
                    break
                if nxt in part and nxt not in came_from:
                    came_from[nxt] = node
                    queue.append(nxt)
    return sorted(found)


# ----- the checks -------------------------------------------------------------------------------
def _under(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def violations(root: Path = ROOT, pyproject: Path = PYPROJECT) -> list[str]:
    """Each import that breaks the floors or brings Qt into a Qt-free floor, one line each."""
    allowed = floors(pyproject)
    qt_free, qt = qt_rule(pyproject)
    known = modules(root)
    graph = import_graph(root)

    def floor_of(module: str) -> str | None:
        return max((f for f in allowed if _under(module, [f])), key=len, default=None)

    def where(module: str, line: int) -> str:
        return f"{known[module].relative_to(root.parent)}:{line}"

    found = []
    qt_importers = {}  # module -> (line, Qt module) of its first Qt import
    for name, path in known.items():
        for imp in imports(path, root, known.keys()):
            if imp.target.split(".")[0] in qt:
                qt_importers.setdefault(name, (imp.line, imp.target))
                if _under(name, qt_free) or (imp.at_import and _under(name, QT_AT_CALL_TIME_ONLY)):
                    found.append(f"{where(name, imp.line)}: {name} imports {imp.target} "
                                 f"(its floor must stay Qt-free{' at import' if imp.at_import else ''})")
    for name in known:
        floor = floor_of(name)
        if floor is None:
            continue
        # direct imports, and chains through modules on no floor
        came_from, queue = {name: None}, deque([name])
        while queue:
            node = queue.popleft()
            for target, line in graph[node].items():
                if target in came_from:
                    continue
                came_from[target] = node
                target_floor = floor_of(target)
                if target_floor is None:
                    queue.append(target)
                elif target_floor != floor and target_floor not in allowed[floor]:
                    via = ""
                    if node != name:
                        chain = [node]
                        while came_from[chain[-1]] != name:
                            chain.append(came_from[chain[-1]])
                        via = " via " + " -> ".join(reversed(chain))
                    found.append(f"{where(node, line)}: {name} ({floor}) imports {target} "
                                 f"({target_floor}){via}")
        if _under(name, qt_free):  # Qt through modules outside the Qt-free floors
            for module in came_from:
                if module in qt_importers and not _under(module, qt_free):
                    line, target = qt_importers[module]
                    found.append(f"{where(module, line)}: {name} reaches {target} through {module} "
                                 f"(its floor must stay Qt-free)")
    return found


def cycles(root: Path = ROOT) -> list[list[str]]:
    """Import cycles between explorer modules, imports inside functions included."""
    return _cycles(import_graph(root))


def sibling_cycles(root: Path = ROOT) -> list[str]:
    """Cycles between the children of a package (its subpackages and modules, each with all
    that is inside it), as import-linter's acyclic_siblings finds them; one line each."""
    graph = import_graph(root)
    packages = {name for name, path in modules(root).items() if path.name == "__init__.py"}
    found = []
    for package in sorted(packages):
        prefix = package + "."

        def child(module: str) -> str:
            return prefix + module[len(prefix):].split(".")[0]

        between: dict[str, dict[str, str]] = {}  # child -> {child: "importer -> imported"}
        for importer, targets in graph.items():
            if importer.startswith(prefix):
                for imported in targets:
                    if imported.startswith(prefix) and child(importer) != child(imported):
                        between.setdefault(child(importer), {}).setdefault(
                            child(imported), f"{importer} -> {imported}")
        for cycle in _cycles(between):
            witnesses = ", ".join(between[a][b] for a, b in zip(cycle, cycle[1:]))
            found.append(f"{package}: {' -> '.join(cycle)} ({witnesses})")
    return found


def test_every_floor_imports_only_the_floors_below_it():
    found = violations()
    assert not found, "imports against the floors:\n" + "\n".join(found)


def test_no_import_cycles_between_explorer_modules():
    found = cycles()
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_import_cycles_between_the_children_of_a_package():
    found = sibling_cycles()
    assert not found, "cycles between sibling packages or modules:\n" + "\n".join(found)


def test_pyproject_checks_what_this_test_checks():
    """lint-imports runs the same rules: the floors and Qt here are pyproject's; its
    acyclic_siblings contract covers every package under explorer."""
    acyclic = the_contract("acyclic_siblings")
    assert acyclic["ancestors"] == ["explorer"] and not acyclic.get("skip_descendants")
    assert acyclic.get("depth", 10) >= max(len(name.split(".")) for name in modules())
    assert not acyclic.get("ignore_imports")
    assert all(not c.get("ignore_imports") for c in contracts())
    layered = set(floors())
    assert {"explorer.core", "explorer.app", "explorer.export", "explorer.cli"} <= layered
    assert set(qt_rule()[0]) <= layered


def test_no_folder_holds_more_than_fourteen_modules():
    """A newcomer finds a feature's room: a folder that outgrows this is split into feature
    packages (app/course, app/models, app/lessons; core/files, core/backends)."""
    crowded = {str(d.relative_to(ROOT.parent)): n for d in (ROOT, *ROOT.rglob("*")) if d.is_dir()
               if (n := len([p for p in d.glob("*.py") if p.name != "__init__.py"])) > 14}
    assert crowded == {}


def test_no_view_folder_holds_more_than_a_dozen_modules():
    crowded = {d.name: n for d in (ROOT / "gui").iterdir() if d.is_dir()
               if (n := len([p for p in d.glob("*.py") if p.name != "__init__.py"])) > 12}
    assert crowded == {}


# ----- the checks can fail, and lint-imports agrees ----------------------------------------------
def _lint_imports_command() -> list[str] | None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    return None if exe is None else [exe, "--no-cache", "--no-logo"]


def lint_imports(repo: Path = REPO) -> subprocess.CompletedProcess:
    """`lint-imports` on the explorer/ and pyproject.toml in `repo` (a copy's, not the installed one)."""
    command = _lint_imports_command()
    if command is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    env = dict(os.environ, PYTHONPATH=str(repo))
    return subprocess.run([*command, str(repo / "pyproject.toml")], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)


def test_lint_imports_keeps_every_contract():
    done = lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT, tmp_path / "explorer", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    return tmp_path


def _write(repo: Path, module: str, source: str) -> None:
    """A new module (and its packages) in the copy: `source` under a module name."""
    path = repo.joinpath(*module.split(".")).with_suffix(".py")
    for folder in [p for p in path.parents if p != repo and repo in p.parents][::-1]:
        folder.mkdir(exist_ok=True)
        if not (folder / "__init__.py").exists():
            (folder / "__init__.py").write_text("", encoding="utf-8")
    path.write_text(source, encoding="utf-8")


def _inside_a_function(source: str) -> str:
    return "def _added_by_the_test():\n    " + source.strip() + "\n"


_LAYERS = the_contract("layers")["layers"]
LOWEST, HIGHEST = _LAYERS[-1].strip(), _LAYERS[0].split("|")[0].strip()
QT_FREE_FLOOR = qt_rule()[0][0]
VIEW_A, VIEW_B = next([m.strip() for m in layer.split("|")] for layer in _LAYERS if "|" in layer)[:2]
BAD_IMPORTS = [  # (new module, its source, a line of the test's report expected to name it)
    (f"{QT_FREE_FLOOR}._probe", "from PySide6.QtCore import QObject\n", "must stay Qt-free"),
    (f"{QT_FREE_FLOOR}._probe", _inside_a_function("from PySide6.QtCore import QObject"),
     "must stay Qt-free"),
    (f"{LOWEST}._probe", f"import {HIGHEST}\n", f"imports {HIGHEST} "),
    (f"{LOWEST}._probe", _inside_a_function(f"import {HIGHEST}"), f"imports {HIGHEST} "),
    (f"{QT_FREE_FLOOR}._probe", _inside_a_function("import explorer.gui.dispatch_qt"),
     "through explorer.gui.dispatch_qt"),  # a module on no floor
    (f"{VIEW_A}._probe", f"import {VIEW_B}\n", f"imports {VIEW_B} "),  # independent views
    (f"{QT_AT_CALL_TIME_ONLY[0]}._probe", "from PySide6.QtCore import QObject\n", "Qt-free at import"),
]


@pytest.mark.parametrize("module, source, expected", BAD_IMPORTS)
def test_a_violation_is_caught(tmp_path, module, source, expected):
    """The floor check can fail: a copy of explorer/ with one module more, importing badly."""
    repo = _copy(tmp_path)
    _write(repo, module, source)
    found = violations(repo / "explorer", repo / "pyproject.toml")
    assert any(expected in line for line in found), found


CYCLES = [  # (module, its source) x 2: each imports the other
    ((f"{LOWEST}._probe_a", f"from {LOWEST} import _probe_b\n"),
     (f"{LOWEST}._probe_b", f"from {LOWEST} import _probe_a\n")),
    ((f"{LOWEST}._probe_a", f"from {LOWEST} import _probe_b\n"),
     (f"{LOWEST}._probe_b", _inside_a_function(f"from {LOWEST} import _probe_a"))),
]


@pytest.mark.parametrize("first, second", CYCLES)
def test_a_cycle_is_caught(tmp_path, first, second):
    """The cycle checks can fail too: two modules importing each other, at module level or
    inside a function."""
    repo = _copy(tmp_path)
    _write(repo, *first)
    _write(repo, *second)
    assert [f"{LOWEST}._probe_a", f"{LOWEST}._probe_b", f"{LOWEST}._probe_a"] in cycles(repo / "explorer")
    assert any(line.startswith(f"{LOWEST}: {LOWEST}._probe_a -> {LOWEST}._probe_b")
               for line in sibling_cycles(repo / "explorer"))


def _package_cycle(tmp_path: Path) -> Path:
    """Two packages importing each other through different modules: one.a imports two.b,
    two.c imports one.d."""
    repo = _copy(tmp_path)
    _write(repo, f"{LOWEST}._probe_one.a", _inside_a_function(f"from {LOWEST}._probe_two import b"))
    _write(repo, f"{LOWEST}._probe_one.d", "")
    _write(repo, f"{LOWEST}._probe_two.b", "")
    _write(repo, f"{LOWEST}._probe_two.c", f"from {LOWEST}._probe_one import d\n")
    return repo


def test_a_cycle_between_packages_is_caught_without_a_module_cycle(tmp_path):
    """No module is on a cycle, the packages are (what acyclic_siblings finds)."""
    repo = _package_cycle(tmp_path)
    assert cycles(repo / "explorer") == []
    assert any(line.startswith(f"{LOWEST}: {LOWEST}._probe_one -> {LOWEST}._probe_two")
               for line in sibling_cycles(repo / "explorer"))


@pytest.mark.skipif(_lint_imports_command() is None, reason="import-linter is not installed")
@pytest.mark.parametrize("modules_", [[(m, s)] for m, s, _ in BAD_IMPORTS if not _under(m, QT_AT_CALL_TIME_ONLY)]
                         + [list(pair) for pair in CYCLES] + [None])
def test_lint_imports_agrees_on_each_bad_import(tmp_path, modules_):
    """Each copy this test fails, lint-imports fails too (not the cli rule: this test's own)."""
    if modules_ is None:
        repo = _package_cycle(tmp_path)
    else:
        repo = _copy(tmp_path)
        for module, source in modules_:
            _write(repo, module, source)
    found = violations(repo / "explorer", repo / "pyproject.toml") + sibling_cycles(repo / "explorer")
    assert found
    done = lint_imports(repo)
    assert done.returncode != 0, done.stdout
