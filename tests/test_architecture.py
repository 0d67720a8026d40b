"""Layers import downward only, as the table in docs/ARCHITECTURE.md says.

The test reads the layer table from the page itself, so the page and the code cannot
disagree, and every import of every module under ``src/reactfuzz`` (at the top of the
file or inside a function) with :mod:`ast`. Imports under ``if TYPE_CHECKING:`` are for
annotations only and may point anywhere.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "reactfuzz"
PAGE = ROOT / "docs" / "ARCHITECTURE.md"


def layer_table(text: str) -> dict[str, int]:
    """Table row name (module or package, relative to reactfuzz) -> layer number."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, int] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not (m := re.match(r"(\d+)\.", cells[0])):
            continue
        for name in re.findall(r"`([\w.]+)`", cells[1]):
            assert name not in rows, f"{name} is in two rows of {PAGE.name}"
            rows[name] = int(m.group(1))
    assert rows, f"no layer table in {PAGE.name}"
    return rows


LAYERS = layer_table(PAGE.read_text(encoding="utf-8"))


def module_name(path: Path) -> str:
    """``engine/run.py`` -> ``engine.run``; ``engine/__init__.py`` -> ``engine``."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def layer_of(name: str) -> int | None:
    """The layer of the longest table row that is ``name`` or a package holding it."""
    best = None
    for row, layer in LAYERS.items():
        if (name == row or name.startswith(row + ".")) and (
            best is None or len(row) > len(best[0])
        ):
            best = (row, layer)
    return None if best is None else best[1]


def _exists(name: str) -> bool:
    base = PACKAGE.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The reactfuzz modules ``node`` imports, relative to reactfuzz (root: ``__init__``)."""
    found: list[str] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == "reactfuzz" or alias.name.startswith("reactfuzz."):
                found.append(alias.name.removeprefix("reactfuzz").lstrip("."))
    else:
        if node.level:
            here = [] if module == "__init__" else module.split(".")
            package = here if is_package else here[:-1]
            keep = len(package) - (node.level - 1)
            assert keep >= 0, f"{module}: relative import beyond the package"
            base = [*package[:keep], *(node.module.split(".") if node.module else [])]
        elif node.module and (node.module == "reactfuzz"
                              or node.module.startswith("reactfuzz.")):
            base = node.module.split(".")[1:]
        else:
            return []
        for alias in node.names:
            # ``from . import checks`` imports a module; ``from . import __version__`` a name
            sub = ".".join([*base, alias.name])
            found.append(sub if _exists(sub) else ".".join(base))
    return [name or "__init__" for name in found]


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    missing = [module_name(p) for p in _sources() if layer_of(module_name(p)) is None]
    assert not missing, (f"modules missing from the layer table of docs/ARCHITECTURE.md:"
                         f" {missing}")


@pytest.mark.parametrize("path", _sources(), ids=lambda p: module_name(p))
def test_imports_point_downward(path: Path) -> None:
    module = module_name(path)
    own = layer_of(module)
    if own is None:
        pytest.skip("no layer (test_every_module_has_a_layer names it)")
    upward = []
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        for target in imported(module, path.name == "__init__.py", node):
            layer = layer_of(target)
            if layer is None or layer > own:
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                upward.append(f"{where}: {module} (layer {own}) imports {target}"
                              f" (layer {layer}): {ast.unparse(node)}")
    assert not upward, "\n".join(upward)


# -- the checker itself ---------------------------------------------------------------


def test_the_table_is_read_from_the_page() -> None:
    assert LAYERS["model"] == 0 and LAYERS["engine"] == 7 and LAYERS["cli"] == 8
    assert layer_of("engine.run") == 7 and layer_of("engine") == 7
    assert layer_of("formats.bracket") == layer_of("formats") == 1
    assert layer_of("no_such_module") is None


def _upward(source: str, module: str = "formats", is_package: bool = False) -> list[str]:
    targets = [t for node in _imports(ast.parse(source)) for t in imported(module, is_package, node)]
    return [t for t in targets if (layer := layer_of(t)) is None or layer > 1]


def test_the_checker_sees_function_level_and_package_imports() -> None:
    assert _upward("def f():\n    from .engine import run_fuzz\n") == ["engine"]
    assert _upward("import reactfuzz.cli\n") == ["cli"]
    assert _upward("from reactfuzz.engine.run import x\n") == ["engine.run"]
    assert _upward("from .. import engine\n", module="formats.bracket") == ["engine"]
    assert _upward("from . import __version__\n") == ["__init__"]
    assert _upward("from .model import Step\nfrom . import render\n") == []


def test_imports_under_type_checking_may_point_anywhere() -> None:
    source = ("from typing import TYPE_CHECKING\nimport typing\n"
              "if TYPE_CHECKING:\n    from .engine import FuzzConfig\n"
              "if typing.TYPE_CHECKING:\n    from .cli import main\n"
              "else:\n    from .report import visible\n")
    assert _upward(source) == ["report"]


# -- the test tiers ---------------------------------------------------------------------


def test_the_slow_table_names_tests_that_exist() -> None:
    from conftest import SLOW

    for pattern, why in SLOW.items():
        file, name = pattern.split("::")
        source = (ROOT / "tests" / file).read_text(encoding="utf-8")
        test = name.replace("*", r"\w*")
        assert re.search(rf"def {test}\(", source), f"stale: {pattern}"
        assert why, pattern


def private_imports(tree: ast.AST) -> list[str]:
    """The ``_private`` names a module takes from another module (``from x import _y``)."""
    return [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")]


def test_no_module_takes_another_modules_private_names() -> None:
    """What modules share is public: a ``_name`` is its own module's business alone."""
    offenders = {module_name(path): names for path in _sources()
                 if (names := private_imports(ast.parse(path.read_text(encoding="utf-8"))))}
    assert offenders == {}


def test_the_private_import_check_sees_one() -> None:
    """The check above would fail on a module importing a private helper."""
    tree = ast.parse("from .common import _write, visible\nfrom . import abuses as _abuses\n")
    assert private_imports(tree) == ["_write"]
