"""The layers: engine at the ground, the service above it, the entry points on top.

    engine  <  service  <  worker  <  CLI

- `engine/` imports nothing of the project above it.
- `service/` imports the engine, never `worker/` (tasks are sent by name) and never the CLI.
- The entry points sit on top: `worker/` (the Celery tasks, which call the service) and
  above it the CLI (`service.cli`, `service.commands`: it lives in the service package
  for the `dicepost` script, and may import `worker` to start it). Nothing below imports
  them.
- The web blueprints are the service's entry points for HTTP: only the app factory
  (`service/__init__.py`) and other blueprint modules import them.
- No import circles. Flask's blueprint idiom is the one allowance: a package's
  `__init__` that makes a blueprint and imports its own submodules (which import the
  blueprint back) so that their routes register.
- The same at the scale of folders: each folder of `service/` (at any depth) counts as
  one unit, each module directly in `service/` as one of its own; no circle runs between
  the units.
- Mail by direction: `service/mail/` holds what the whole house uses (the outbox, its
  kinds and `enqueue`, settings, headers, tokens) and imports nothing of the domain;
  `service/outbound/` (compose and send, the worker's side) and
  `service/inbound/` (receive and answer, beside the web) are entry points: only
  the app factory, the blueprints, the sweeper, the CLI, the worker and each other import
  them.

Every import counts, also one inside a function, except those under `if TYPE_CHECKING:`
(never run). Importing `a.b` counts as importing `a.b` only: running the package
`__init__` on the way is Python's doing, not a dependency the module chose.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("engine", "service", "worker")
CLI = ("service.cli", "service.commands")
# The blueprint modules (and the web package's page helpers).
BLUEPRINTS = ("service.web", "service.api", "service.gm.api", "service.gm.pages", "service.inbound.web",
              "service.verify_page", "service.dashboard", "service.dashboard.pages")
APP_FACTORY = "service"
LAYER = {"engine": 0, "service": 1, "worker": 2, "cli": 3}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports (the longest known module each import names)."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"

    def resolve(dotted: str) -> None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        if dotted and dotted != name:
            found.add(dotted)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for rest in child.orelse:
                    visit(rest)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    resolve(alias.name)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[:len(anchor) - (child.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in child.names:
                    resolve(f"{base}.{alias.name}")  # a submodule, else the module itself
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, set(modules)) for name, path in modules.items()}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _is_blueprint(name: str) -> bool:
    return name in BLUEPRINTS or _within(name, ("service.web",))


def _layer(name: str) -> str:
    return "cli" if _within(name, CLI) else name.split(".")[0]


def _blueprint_idiom(importer: str, imported: str, modules: dict[str, Path]) -> bool:
    """A package's __init__ importing its own submodule (so that the submodule's routes
    register on the package's blueprint)."""
    return modules[importer].name == "__init__.py" and imported.startswith(importer + ".")


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return [f"{importer} -> {target}" for importer, imported in sorted(graph.items())
            for target in sorted(imported) if LAYER[_layer(target)] > LAYER[_layer(importer)]]


def test_nothing_imports_upward() -> None:
    wrong = _upward(_graph())
    assert wrong == [], "imports from a lower layer into a higher one:\n" + "\n".join(wrong)


def test_only_the_app_factory_and_blueprints_import_blueprints() -> None:
    wrong = []
    for importer, imported in sorted(_graph().items()):
        if importer == APP_FACTORY or _is_blueprint(importer) or _within(importer, CLI):
            continue
        wrong += [f"{importer} -> {t}" for t in sorted(imported) if _is_blueprint(t)]
    assert wrong == [], "the service's core imports its web surfaces:\n" + "\n".join(wrong)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_circles() -> None:
    modules = _modules()
    graph = {m: {t for t in imported if not _blueprint_idiom(m, t, modules)}
             for m, imported in _graph().items()}
    circles = _circles(graph)
    assert circles == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_checks_see_a_circle_and_an_upward_import() -> None:
    """The checks themselves: a made-up circle and a made-up upward import are found."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _upward({"service.rounds": {"worker.tasks", "engine"}, "worker.tasks": {"service.cli"},
                    "service.cli": {"worker.tasks"}, "engine": set()}) == [
        "service.rounds -> worker.tasks", "worker.tasks -> service.cli"]
    graph = _graph()
    assert {"service.resolution", "service.db"} <= graph["worker.tasks"]  # a real import is seen
    assert _unit("service.web.play") == "service.web" and _unit("service.games") == "service.games"
    assert "service.mail" in _folder_graph()["service.inbound"]  # a real folder import is seen


def _unit(name: str) -> str:
    """A module's folder of service/ (service.web for service.web.play), or the module
    itself when it sits directly in service/."""
    return ".".join(name.split(".")[:2])


def _folder_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for importer, imported in _graph().items():
        if not _within(importer, ("service",)) or importer == APP_FACTORY:
            continue  # the app factory imports every blueprint (the idiom above)
        unit = _unit(importer)
        graph.setdefault(unit, set()).update(
            _unit(t) for t in imported if _within(t, ("service",)) and t != APP_FACTORY
            and not _blueprint_idiom(importer, t, modules))
    return {u: {t for t in targets if t != u and t in graph} for u, targets in graph.items()}


def test_no_circles_between_folders() -> None:
    circles = _circles(_folder_graph())
    assert circles == [], "circles between the folders of service/:\n" + "\n".join(
        " <-> ".join(c) for c in circles)


MAIL_SIDES = ("service.inbound", "service.outbound")
# Who may import the two sides of mail: they are entry points, like the blueprints.
MAIL_ENTRIES = (APP_FACTORY, *BLUEPRINTS, *CLI, *MAIL_SIDES, "service.sweeper", "worker", "bench")


def test_mail_by_direction() -> None:
    graph = _graph()
    wrong = [f"{importer} -> {t}" for importer, imported in sorted(graph.items())
             if not (importer == APP_FACTORY or _within(importer, MAIL_ENTRIES))
             for t in sorted(imported) if _within(t, MAIL_SIDES)]
    low = [f"{importer} -> {t}" for importer, imported in sorted(graph.items())
           if _unit(importer) == "service.mail"
           for t in sorted(imported) if _within(t, ("service",)) and not _within(t, ("service.mail",))
           and t not in MAIL_LOW_USES]
    assert wrong + low == [], "mail imported against its direction:\n" + "\n".join(wrong + low)


# What the low mail folder may use of the house: the rows, and the doorbell after COMMIT.
MAIL_LOW_USES = {"service.models", "service.tasks"}
