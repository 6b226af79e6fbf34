"""docs/architecture.md says which rooms of src/hpckg/ may import which; this holds the code to it.

The doc drifted from the code once already (the server importing rooms its row did not name, seven modules in
no room, an import circle between hpckg.store and hpckg.query kept alive by an import inside a function), so
the doc is the one source of truth and this test reads it: the "| Room | May import | Holds |" table and the
picture above it. Every module is read with `ast`, not imported (fast, and a module that fails to import is
still checked), and every import counts: module-level or inside a function, absolute or relative, and
`from hpckg import x` as an import of hpckg.x when x is a module. Imports by a computed name
(importlib.import_module) are not seen; the two there are, in cli/ and importers/, stay within their room.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "hpckg"
DOC = ROOT / "docs" / "architecture.md"
TABLE_HEADER = "| Room | May import | Holds |"
_NAME = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Module:
    name: str  # dotted: hpckg, hpckg.store, hpckg.serve.app
    path: Path
    is_package: bool

    @property
    def room_name(self) -> str:
        """The top-level name the doc knows it by: `store` for hpckg.store, `serve` for hpckg.serve.app,
        `__init__` for the package itself."""
        parts = self.name.split(".")
        return parts[1] if len(parts) > 1 else "__init__"

    @property
    def shown(self) -> str:
        return str(self.path.relative_to(ROOT))


@dataclass(frozen=True)
class Import:
    importer: Module
    imported: Module
    line: int

    def __str__(self) -> str:
        return f"{self.importer.shown}:{self.line} imports {self.imported.name}"


@dataclass(frozen=True)
class Row:
    line: int  # in docs/architecture.md
    text: str
    room: str  # the row's first two cells, as written
    may: str
    names: tuple[str, ...]  # the top-level names the row's room holds ("validate", not "validate/")
    may_import: frozenset[str] | None  # top-level names; None: everything

    def __str__(self) -> str:
        room = self.room if len(self.room) <= 60 else self.room[:57] + "..."
        return f"docs/architecture.md line {self.line}: | {room} | {self.may} |"


@cache
def modules() -> dict[str, Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = Module(".".join(parts), path, is_package)
    return found


def _resolve(name: str) -> Module | None:
    """The module hpckg.a.b.c means: itself, else the nearest enclosing module (hpckg.a.b for a name in it)."""
    known = modules()
    while name:
        if name in known:
            return known[name]
        name = name.rpartition(".")[0]
    return None


def _imported_names(module: Module, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:  # relative: from the importer's package, one level up per dot after the first
        package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
        base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    # `from hpckg import store` imports the module hpckg.store; `from hpckg.store import Store`, hpckg.store
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules() else base for alias in node.names]


@cache
def imports() -> tuple[Import, ...]:
    found: dict[tuple[str, str, int], Import] = {}  # one per line: `from hpckg.x import a, b` is one import
    for module in modules().values():
        tree = ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in _imported_names(module, node):
                if name == "hpckg" or name.startswith("hpckg."):
                    target = _resolve(name)
                    assert target is not None, f"{module.shown}:{node.lineno} imports {name}, which is no module"
                    found.setdefault((module.name, target.name, node.lineno), Import(module, target, node.lineno))
    return tuple(found.values())


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


@cache
def rows() -> tuple[Row, ...]:
    """The table's rows: a room cell of backquoted names (`serve/` a package, `build` a module; "core: ..." the
    core's modules), a "May import" cell of backquoted names, `core` and `everything` (what is in parentheses is
    a remark), or "each other" for a room whose modules import one another."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    assert TABLE_HEADER in lines, f"docs/architecture.md has no table starting {TABLE_HEADER!r}"
    start = lines.index(TABLE_HEADER) + 2  # after the header and its |---| line
    parsed = []
    for number, line in enumerate(lines[start:], start + 1):
        if not line.startswith("|"):
            break
        room, may, _holds = _cells(line)
        names = tuple(name.rstrip("/") for name in _NAME.findall(room))
        assert names, f"docs/architecture.md line {number}: the room cell names no module: {room!r}"
        said = re.sub(r"\([^)]*\)", "", may)
        allowed: set[str] | None = None if said.strip() == "everything" else set(
            name.rstrip("/") for name in _NAME.findall(said))
        if allowed is not None and re.search(r"(?<!`)\bcore\b", said):
            allowed.add("core")
        if allowed is not None and "each other" in said:
            allowed.update(names)
        parsed.append(Row(number, line, room, may, names, None if allowed is None else frozenset(allowed)))
    core = [row for row in parsed if row.text.startswith("| core")]
    assert len(core) == 1, "docs/architecture.md: the table needs one row whose room is `core: ...`"
    core_names = set(core[0].names)
    return tuple(
        row if row.may_import is None or "core" not in row.may_import
        else Row(row.line, row.text, row.room, row.may, row.names, (row.may_import - {"core"}) | core_names)
        for row in parsed)


def room_rows() -> dict[str, Row]:
    by_name: dict[str, Row] = {}
    for row in rows():
        for name in row.names:
            assert name not in by_name, f"`{name}` is in two rows of the table:\n  {by_name[name]}\n  {row}"
            by_name[name] = row
    return by_name


def top_level_names() -> dict[str, Module]:
    """Each top-level module and package of src/hpckg/, by the name the doc knows it by."""
    return {module.room_name: module for module in modules().values()
            if module.name == "hpckg" or module.name.count(".") == 1}


def picture() -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"^```\n(.*?)^```", text, re.S | re.M)
    assert found, "docs/architecture.md has no picture (a ``` block) of its rooms"
    return found[1]


def test_every_module_is_in_a_room_of_the_doc() -> None:
    by_name = room_rows()
    unassigned = [f"{module.shown} ({module.name})" for name, module in top_level_names().items()
                  if name not in by_name]
    assert not unassigned, ("in no room of the table in docs/architecture.md (add it to a row, with what it "
                            "holds, and to the picture):\n  " + "\n  ".join(unassigned))


def test_every_room_the_doc_names_is_in_the_code() -> None:
    names = top_level_names()
    problems = []
    for row in rows():
        for name in row.names:
            if name not in names:
                problems.append(f"`{name}` is no module or package under src/hpckg/ ({row})")
            elif f"`{name}/`" in row.text and not names[name].is_package:
                problems.append(f"`{name}/` is written as a package but is a module ({row})")
        for name in sorted(row.may_import or ()):
            if name not in names and not (PACKAGE / name).is_dir():  # templates/: read as files, not imported
                problems.append(f"May import names `{name}`, which is nothing under src/hpckg/ ({row})")
    assert not problems, "\n".join(problems)


def test_the_picture_shows_every_room_and_the_same_core() -> None:
    drawn = picture()
    missing = [name for name in room_rows() if not re.search(rf"(?<![\w.]){re.escape(name)}\b", drawn)]
    assert not missing, f"the picture in docs/architecture.md does not show: {', '.join(missing)}"
    core_line = re.search(r"core:(.*)", drawn, re.S)
    assert core_line, "the picture in docs/architecture.md has no `core: ...` list"
    drawn_core = set(re.findall(r"[\w]+", core_line[1]))
    table_core = {name for name, row in room_rows().items() if row.text.startswith("| core")}
    assert drawn_core == table_core, (
        "the picture's core list and the table's core row differ: only in the picture: "
        f"{sorted(drawn_core - table_core)}, only in the table: {sorted(table_core - drawn_core)}")


def test_every_import_is_one_the_doc_allows() -> None:
    by_name = room_rows()
    refused = []
    for found in imports():
        importer, imported = found.importer.room_name, found.imported.room_name
        row = by_name.get(importer)
        if importer == imported or row is None or imported not in by_name:
            continue  # a module in no row fails test_every_module_is_in_a_room_of_the_doc
        if row.may_import is None or imported in row.may_import:
            continue
        refused.append(f"{found.importer.name} imports {found.imported.name} ({found.importer.shown}:{found.line}),"
                       f" and `{importer}`'s row does not allow `{imported}`:\n    {row}")
    assert not refused, ("imports docs/architecture.md does not allow (change the code, or the row if the doc is "
                         "what is wrong):\n  " + "\n  ".join(refused))


def _cycles(edges: dict[str, dict[str, Import]]) -> list[list[str]]:
    """The shortest cycle in each strongly connected group of more than one node (Tarjan), as a path back to
    its start: fixing one shows the next."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for after in sorted(edges.get(node, {})):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in on_stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [min((_shortest_cycle(edges, group, start) for start in sorted(group)), key=len) for group in groups]


def _shortest_cycle(edges: dict[str, dict[str, Import]], group: set[str], start: str) -> list[str]:
    """The shortest way from start back to it within its group (breadth first); there is one, the group being
    strongly connected."""
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for after in sorted(edges.get(node, {})):
            if after == start:
                return paths[node] + [start]
            if after in group and after not in paths:
                paths[after] = paths[node] + [after]
                queue.append(after)
    raise AssertionError(f"no way back to {start} in {sorted(group)}")


def test_no_import_cycle_between_rooms() -> None:
    """Between top-level modules and packages, so also between two core modules."""
    edges: dict[str, dict[str, Import]] = defaultdict(dict)
    for found in imports():
        importer, imported = found.importer.room_name, found.imported.room_name
        if importer != imported:
            edges[importer].setdefault(imported, found)
    cycles = _cycles(edges)
    described = []
    for cycle in cycles:
        steps = "\n    ".join(str(edges[a][b]) for a, b in pairwise(cycle))
        described.append(f"{' -> '.join(cycle)}, for example:\n    {steps}")
    assert not cycles, "import cycles between rooms:\n  " + "\n  ".join(described)


# --- the project is passed, never held ------------------------------------------------------------------
# hpckg.cli.main chooses the project once per command and passes the Project value (or the folder a function
# needs) down; no module keeps a current project for library code to read (issue 33). A module-level one
# made the CLI unsafe to call twice in one process and made the tests swap it around every call.


def _mentions_project(node: ast.AST | None) -> bool:
    return node is not None and any(isinstance(n, ast.Name) and n.id == "Project"
                                    or isinstance(n, ast.Constant) and isinstance(n.value, str)
                                    and re.search(r"\bProject\b", n.value) is not None
                                    for n in ast.walk(node))


def current_project_holders(package: Path = PACKAGE) -> list[str]:
    """Where a module under `package` keeps or reads a current project: a ContextVar or module-level variable
    typed Project, a module-level Project made at import (discover(...), load(...)), a `global` rebinding of
    one, current() or using() in hpckg.project, a read of project.current / project.using, or an import of
    hpckg.paths (the functions over the current project that went with it)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        shown = str(path.relative_to(package.parent))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

        def where(node: ast.AST, shown: str = shown) -> str:
            return f"{shown}:{node.lineno}"

        for node in tree.body:
            if isinstance(node, ast.AnnAssign) and _mentions_project(node.annotation):
                found.append(f"{where(node)}: a module-level variable typed Project")
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
                called = node.value.func
                name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                if name in ("discover", "load"):
                    found.append(f"{where(node)}: a project chosen at import ({name}(...))")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "ContextVar" \
                    and any(_mentions_project(arg) for arg in [*node.args, *(k.value for k in node.keywords)]):
                found.append(f"{where(node)}: a ContextVar of a project")
            if isinstance(node, ast.Subscript) and getattr(node.value, "id", getattr(node.value, "attr", "")) \
                    == "ContextVar" and _mentions_project(node.slice):
                found.append(f"{where(node)}: a ContextVar[Project]")
            if isinstance(node, ast.Attribute) and node.attr in ("current", "using") \
                    and isinstance(node.value, ast.Name) and node.value.id in ("project", "projects"):
                found.append(f"{where(node)}: reads project.{node.attr}")
            if isinstance(node, ast.Global) and path.name != "project.py":
                found.extend(f"{where(node)}: rebinds the module-level {name}" for name in node.names
                             if "project" in name.lower())
            if isinstance(node, ast.ImportFrom) and (node.module == "hpckg.paths" or node.module == "hpckg"
                                                     and any(alias.name == "paths" for alias in node.names)) \
                    or isinstance(node, ast.Import) and any(alias.name == "hpckg.paths" for alias in node.names):
                found.append(f"{where(node)}: imports hpckg.paths")
        if path == package / "project.py":
            defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
            found += [f"{shown}: defines {name}()" for name in sorted(defined & {"current", "using"})]
    return found


def test_no_module_keeps_or_reads_a_current_project() -> None:
    found = current_project_holders()
    assert not found, ("a current project kept in module state; pass the Project (or the folder needed) instead:\n  "
                       + "\n  ".join(found))


def test_the_check_finds_a_current_project(tmp_path) -> None:
    """The check above is not blind: each shape that was removed (a ContextVar of the project and its
    current()/using(), a project discovered at import, a read of project.current, hpckg.paths) is found in a
    package that has it (written to a temporary folder: the source tree is never touched)."""
    package = tmp_path / "hpckg"
    package.mkdir()
    (package / "project.py").write_text(
        "from contextvars import ContextVar\n\n\nclass Project:\n    pass\n\n\n"
        "_current: ContextVar[Project | None] = ContextVar('p', default=None)\n\n\n"
        "def current():\n    return _current.get()\n\n\ndef using(chosen):\n    return chosen\n", encoding="utf-8")
    (package / "user.py").write_text(
        "from hpckg import paths, project\nfrom hpckg.project import discover\n\nHERE = discover()\n\n\n"
        "def read():\n    return project.current(), paths\n", encoding="utf-8")
    found = "\n".join(current_project_holders(package))
    for said in ("hpckg/project.py:8: a module-level variable typed Project",
                 "hpckg/project.py:8: a ContextVar[Project]", "hpckg/project.py: defines current()",
                 "hpckg/project.py: defines using()",
                 "hpckg/user.py:4: a project chosen at import", "hpckg/user.py:8: reads project.current",
                 "hpckg/user.py:1: imports hpckg.paths"):
        assert said in found, (said, found)


def test_two_in_process_commands_in_two_projects_each_see_their_own(tmp_path) -> None:
    """hpckg.cli.main run in this process with --root A, then --root B, then A again: each command reads its
    own project's files (B's extra canned query is listed for B only) and the data it builds from (B's
    extra system is counted in B only); nothing of one call is left for the next."""
    from conftest import call_hpckg, copy_project

    first, second = copy_project(tmp_path / "a"), copy_project(tmp_path / "b")
    (second / "queries" / "only-in-b.rq").write_text("# Only in project B.\nSELECT * WHERE { ?s ?p ?o } LIMIT 1\n",
                                                     encoding="utf-8")
    (second / "data" / "ttl" / "systems" / "only-in-b.ttl").write_text(
        "@prefix hpc: <https://w3id.org/hpckg/ontology#> .\n@prefix sys: <https://w3id.org/hpckg/id/system/> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\n"
        'sys:only-in-b a hpc:System ;\n    rdfs:label "Only in B"@en ;\n    hpc:slug "only-in-b" .\n',
        encoding="utf-8")
    count = 'SELECT (COUNT(?s) AS ?n) WHERE { ?s a hpc:System }'

    def listed(root: Path) -> str:
        completed = call_hpckg(["--root", str(root), "query", "--list"], tmp_path)
        assert completed.returncode == 0, completed.stderr.decode()
        return completed.stdout.decode()

    def systems(root: Path) -> int:
        completed = call_hpckg(["--root", str(root), "query", "--memory", "--format", "csv", "-e", count], tmp_path)
        assert completed.returncode == 0, completed.stderr.decode()
        return int(completed.stdout.decode().split()[-1])

    assert "only-in-b" not in listed(first)
    assert "only-in-b" in listed(second)
    assert "only-in-b" not in listed(first)
    in_first = systems(first)
    assert systems(second) == in_first + 1
    assert systems(first) == in_first
