"""The read core knows nothing of HTTP: planning a read (app/plan.py), running it
(app/reads.py), the feed (app/feed.py) and the MCP tools over them (app/mcp_tools.py) import,
through every module of app/ they import in turn, nothing of the web framework. Read from
the source, so that a new import anywhere below them fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"
WEB = {"flask", "flask_smorest", "werkzeug", "webargs", "apispec"}
CORE = ("plan", "reads", "feed", "mcp_tools", "problems", "params", "filters", "queries",
        "db", "summaries")


def imports(module: str) -> tuple[set[str], set[str]]:
    """(modules of app/, top-level packages of anything else) that `module` imports."""
    tree = ast.parse((APP / f"{module}.py").read_text(encoding="utf-8"))
    own, other = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            own |= {node.module} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            other.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            other |= {a.name.split(".")[0] for a in node.names}
    return {m.split(".")[0] for m in own}, other


def reached(module: str) -> set[str]:
    """`module` and every module of app/ it imports, directly or not."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += imports(name)[0]
    return seen


@pytest.mark.parametrize("module", CORE)
def test_the_core_imports_nothing_of_the_web(module: str) -> None:
    web = {m: sorted(imports(m)[1] & WEB) for m in sorted(reached(module))}
    assert {m: found for m, found in web.items() if found} == {}


def test_the_check_sees_a_web_import() -> None:
    """The HTTP face does import Flask: the check above reads what it should."""
    assert "flask" in imports("answers")[1]
    assert "answers" in reached("views") and "flask" in imports("views")[1]
