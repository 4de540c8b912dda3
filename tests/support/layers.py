"""The layers of the package: a module imports its own part and the floors below it, never
a floor above nor a part beside it (docs/architecture.md, "Layers"). Imports are read from the
source with ast, imports inside functions included, so that a lazy import up the layers is
found too, and the modules a module has the workers' fork server import for it
(`preload("scorekeeper....")`, workers.py); and none may import what only a checkout has
(testing/, tests/, bench/, scripts/).
tests/policy/test_layers.py holds the package to it;

    python -m tests.test_layers [PACKAGE_FOLDER]   # the floors, then every import up them
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import scorekeeper

PACKAGE = Path(scorekeeper.__file__).parent
ROOT = "scorekeeper"
# The checkout's own folders: an installed copy has none of them.
CHECKOUT_ONLY = ("testing", "tests", "bench", "scripts")
# workers.preload: the modules named in a call of it are imported by the fork server.
PRELOAD = "preload"

# The floors, lowest first; on each, its parts and the top-level modules or packages of
# each. Parts on one floor stand side by side: neither imports the other.
FLOORS: tuple[dict[str, tuple[str, ...]], ...] = (
    # The game itself, pure; beside it, the worker processes and the fair queues in front of
    # them, which know nothing of the game, and the small cache every floor above uses.
    {"rules": ("rules",), "processes": ("fairness", "workers"), "lru": ("lru",)},
    {"store": ("store",), "advisor": ("advisor",)},
    # The PDFs, drawn from games loaded by their caller; beside them, playing a stored game:
    # a turn checked, scored and written once, between the store and the pages; and the
    # coach, which counts finished games against the Conseil in the background.
    {"sheets": ("sheets",), "play": ("play",), "coach": ("coach",)},
    # The pages, and this machine's address on the home network that they show.
    {"web": ("web", "net")},
    # The application factory and the list of its settings.
    {"app": ("app", "config")},
    # What starts the app: the `scorekeeper` command (its entry point and its subcommands),
    # and the app for a WSGI server and that server's configuration.
    {"cli": ("__main__", "cli"), "wsgi": ("wsgi", "gunicorn_conf", "gunicorn_streams_conf")},
)
PART_OF = {top: part for floor in FLOORS for part, tops in floor.items() for top in tops}
FLOOR_OF = {part: number for number, floor in enumerate(FLOORS) for part in floor}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, as a path inside the package
    line: int
    target: str  # the dotted name of the imported module

    def __str__(self) -> str:
        return (
            f"{ROOT}/{self.module}:{self.line} ({describe(part_of_path(self.module))}) "
            f"imports {self.target} ({describe(part_of(self.target))})"
        )


def describe(part: str | None) -> str:
    if part in CHECKOUT_ONLY:
        return "a checkout's only, not installed"
    return f"{part}, floor {FLOOR_OF[part]}" if part in FLOOR_OF else "on no floor"


def part_of(target: str) -> str | None:
    """The part of a dotted module name: its floor's part, the folder of a checkout it is
    in, or None for the package itself and for a module on no floor."""
    names = target.split(".")
    if names[0] in CHECKOUT_ONLY:
        return names[0]
    return PART_OF.get(names[1]) if len(names) > 1 else None


def part_of_path(module: str) -> str | None:
    return PART_OF.get(Path(module).parts[0].removesuffix(".py"))


def imports_of(source: str, module: str, package: Path) -> Iterator[Import]:
    """Every import of a module of the package or of the checkout in `source`, wherever it
    is written."""
    # Relative imports start from the module's package (an __init__.py's is its own).
    package_name = [ROOT, *Path(module).parts[:-1]]
    for node in sorted(ast.walk(ast.parse(source)), key=lambda node: getattr(node, "lineno", 0)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.Call) and _called(node.func) == PRELOAD:
            # The fork server imports what is named: an import all the same.
            targets = [
                argument.value
                for argument in node.args
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
            ]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package_name[: len(package_name) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from scorekeeper import cli` imports the module scorekeeper.cli.
            targets = [
                f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}", package) else base
                for alias in node.names
            ]
        else:
            continue
        for target in dict.fromkeys(targets):  # one line may name a module twice
            if target.split(".")[0] in (ROOT, *CHECKOUT_ONLY):
                yield Import(module, node.lineno, target)


def _called(function: ast.expr) -> str | None:
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else None


def is_module(dotted: str, package: Path) -> bool:
    path = package.joinpath(*dotted.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def modules(package: Path) -> list[str]:
    return [path.relative_to(package).as_posix() for path in sorted(package.rglob("*.py"))]


def imports_up(package: Path) -> list[Import]:
    """Every import of a floor above, of a part beside, of a module on no floor or of one
    that only a checkout has."""
    found = []
    for module in modules(package):
        importer = part_of_path(module)
        if importer is None:  # the package's own __init__.py, or a module on no floor
            continue
        source = (package / module).read_text(encoding="utf-8")
        for found_import in imports_of(source, module, package):
            target = part_of(found_import.target)
            if found_import.target == ROOT or target == importer:
                continue
            if target not in FLOOR_OF or FLOOR_OF[target] >= FLOOR_OF[importer]:
                found.append(found_import)
    return found


def module_path(dotted: str, package: Path) -> str | None:
    """The file of the package a dotted name imports (a package's __init__.py)."""
    parts = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    if (package / parts).with_suffix(".py").is_file():
        return parts.with_suffix(".py").as_posix()
    if (package / parts / "__init__.py").is_file():
        return (parts / "__init__.py").as_posix()
    return None


def import_circles(package: Path) -> list[list[str]]:
    """Every set of modules that import one another, round a circle: each module and the
    package files it imports, wherever the import is written (in a function too), strongly
    connected components of more than one module."""
    graph = {}
    for module in modules(package):
        source = (package / module).read_text(encoding="utf-8")
        targets = (
            module_path(found.target, package) for found in imports_of(source, module, package)
        )
        graph[module] = {target for target in targets if target not in (None, module)}
    # Tarjan's algorithm, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def blueprint_imports(package: Path) -> list[Import]:
    """Every import of a module of web/ that defines a blueprint by another that does: a
    page's module draws on web/'s helpers, never on another page's."""
    web = package / "web"
    pages = {
        path.relative_to(package).as_posix()
        for path in web.glob("*.py")
        if "Blueprint(" in path.read_text(encoding="utf-8")
    }
    found = []
    for module in sorted(pages):
        source = (package / module).read_text(encoding="utf-8")
        for found_import in imports_of(source, module, package):
            target = module_path(found_import.target, package)
            if target in pages and target != module:
                found.append(found_import)
    return found


def main(package: Path) -> int:
    print("Floors, highest first; a part imports itself and the floors below:")
    for number, floor in reversed(list(enumerate(FLOORS))):
        parts = "   ".join(f"{part}: {', '.join(tops)}" for part, tops in floor.items())
        print(f"  {number}  {parts}")
    found = imports_up(package)
    print(f"Imports up the layers in {package.name}/: {len(found)}")
    for found_import in found:
        print(f"  {found_import}")
    return 1 if found else 0
