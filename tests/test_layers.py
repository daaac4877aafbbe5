"""The read core knows nothing of HTTP: every module of the packages below the faces
(app/model/, app/ops/, app/database/, app/formats/ and app/core/: planning a read, running
it, the feed, the logs and the metrics) and the MCP tools over them (app/mcp/tools.py)
import, through every module of app/ they import in turn, nothing of the web framework.
Read from the source, so that a new import anywhere below them fails here. And no package
imports a package its entry of LAYERS does not name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
WEB = {"flask", "flask_smorest", "werkzeug", "webargs", "apispec"}
# The packages whose every module must stay free of the web, and single modules besides.
CORE_PACKAGES = ("model", "ops", "database", "formats", "core")
CORE_MODULES = ("app.mcp.tools",)
# Each package and the packages it may import: the ground floor (model, ops), the database
# and the formats over it, the read core over those; then the faces (http, mcp) and the
# commands side by side over the core, a face reaching the database only through the
# runner (app/core/reads.py), never app/database/ itself; the MCP face uses the HTTP face's
# error shape for its HTTP transport. Then the factory (app/__init__.py, FACTORY here), which
# imports them all, and the `jembatan` command (console), the only package that imports the
# factory.
FACTORY = ""
GROUND = {"model", "ops"}
CORE_LAYERS = GROUND | {"database", "formats", "core"}
LAYERS: dict[str, set[str]] = {
    "model": set(),
    "ops": {"model"},
    "database": GROUND,
    "formats": GROUND,
    "core": GROUND | {"database", "formats"},
    "commands": CORE_LAYERS,
    "http": GROUND | {"formats", "core"},
    "mcp": GROUND | {"formats", "core", "http"},
    FACTORY: CORE_LAYERS | {"commands", "http", "mcp"},
    # The company's pipeline (a client of the plants' HTTP API): the model's collections only.
    "warehouse": {"model"},
    "console": CORE_LAYERS | {"commands", "http", "mcp", "warehouse", FACTORY},
}
PACKAGES = tuple(p for p in LAYERS if p != FACTORY)


def layer_of(module: str) -> str:
    """app.core.plan -> core; app (the factory) -> FACTORY."""
    return module.split(".")[1] if "." in module else FACTORY


def path_of(module: str) -> Path:
    """app.core.plan -> app/core/plan.py; app.core -> app/core/__init__.py."""
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def is_module(module: str) -> bool:
    return path_of(module).is_file()


def imports(module: str) -> tuple[set[str], set[str]]:
    """(modules of app/, top-level packages of anything else) that `module` imports."""
    path = path_of(module)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    own, other = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(package[:len(package) - node.level + 1]
                            + ([node.module] if node.module else []))
            # `from . import x` names a module when there is one, else a name of `base`
            own |= {f"{base}.{a.name}" if is_module(f"{base}.{a.name}") else base
                    for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] == "app":
                own |= {f"{node.module}.{a.name}" if is_module(f"{node.module}.{a.name}")
                        else node.module for a in node.names}
            else:
                other.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            other |= {a.name.split(".")[0] for a in node.names}
    return {m for m in own if is_module(m)}, other - {"app"}


def reached(module: str) -> set[str]:
    """`module` and every module of app/ it imports, directly or not."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += imports(name)[0]
    return seen


def modules_of(package: str) -> list[str]:
    return sorted(f"app.{package}.{p.stem}" for p in (APP / package).glob("*.py")
                  if p.name != "__init__.py")


CORE = [m for p in CORE_PACKAGES for m in modules_of(p)] + list(CORE_MODULES)


@pytest.mark.parametrize("module", CORE)
def test_the_core_imports_nothing_of_the_web(module: str) -> None:
    web = {m: sorted(imports(m)[1] & WEB) for m in sorted(reached(module))}
    assert {m: found for m, found in web.items() if found} == {}


def test_every_package_is_in_a_layer() -> None:
    packages = {p.name for p in APP.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(PACKAGES)
    assert not [p.name for p in APP.glob("*.py") if p.name != "__init__.py"]


@pytest.mark.parametrize("package", (*PACKAGES, FACTORY))
def test_no_package_imports_one_it_may_not(package: str) -> None:
    own = modules_of(package) if package else ["app"]
    beyond = {f"{m} -> {i}" for m in own for i in imports(m)[0]
              if layer_of(i) not in LAYERS[package] | {package}}
    assert sorted(beyond) == []


def test_the_layers_are_a_graph_without_a_cycle() -> None:
    """Every edge points down: following them from any package never comes back to it."""
    def below(package: str, path: tuple[str, ...]) -> None:
        assert package not in path, " -> ".join((*path, package))
        for lower in LAYERS[package]:
            below(lower, (*path, package))
    for package in LAYERS:
        below(package, ())
    assert set().union(*LAYERS.values()) <= set(LAYERS)


def test_the_faces_reach_the_database_through_the_runner_only() -> None:
    """The graph holds app/database/ from the faces, and the check sees such an import."""
    assert "database" not in LAYERS["http"] | LAYERS["mcp"]
    assert "commands" not in LAYERS["http"] | LAYERS["mcp"]
    assert "app.database.db" in imports("app.core.reads")[0]


def test_the_check_sees_a_web_import() -> None:
    """The HTTP face does import Flask: the checks above read what they should."""
    assert "flask" in imports("app.http.answers")[1]
    assert "app.http.answers" in reached("app.http.views")
    assert "flask" in imports("app.http.views")[1]
    assert "app.model.params" in reached("app.core.plan")


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_is_the_attribute_of_its_name(package: str) -> None:
    """`import app.<package>.<module> as m` reaches the module: nothing in app/__init__.py
    binds a package's name to anything else (as `from .mcp import protocol as mcp` would)."""
    import importlib

    import app

    found = importlib.import_module(f"app.{package}")
    assert getattr(app, package) is found
    for module in modules_of(package):
        imported = importlib.import_module(module)
        assert getattr(getattr(app, package), module.rsplit(".", 1)[1]) is imported


def test_the_services_are_read_through_their_accessor() -> None:
    """What create_app built is read with `services(app)` (app/core/services.py), typed;
    no module but the factory and that one looks into the app's extensions for it."""
    looking = sorted(str(p.relative_to(ROOT)) for p in APP.rglob("*.py")
                     if re.search(r"extensions\[(KEY|\"jembatan\")\]", p.read_text("utf-8")))
    assert looking == ["app/__init__.py", "app/core/services.py"]
