"""``import reactfuzz`` is lazy: one table says where each public name lives."""

from __future__ import annotations

import importlib
import subprocess
from collections.abc import Callable

import reactfuzz


def test_all_is_exactly_the_table_of_exports() -> None:
    assert set(reactfuzz.__all__) == {*reactfuzz._EXPORTS, "__version__"}
    assert len(reactfuzz.__all__) == len(set(reactfuzz.__all__))


def test_every_name_is_its_home_modules_object() -> None:
    for name, home in reactfuzz._EXPORTS.items():
        module = importlib.import_module(f"reactfuzz.{home}")
        assert getattr(reactfuzz, name) is getattr(module, name), f"{name} from {home}"


def test_dir_lists_every_public_name() -> None:
    assert set(reactfuzz.__all__) <= set(dir(reactfuzz))


def test_unknown_names_raise_attribute_error() -> None:
    try:
        reactfuzz.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("expected AttributeError")


Run = Callable[..., subprocess.CompletedProcess[str]]


def _out(python_run: Run, code: str) -> str:
    r = python_run("-c", code)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_functions_named_like_their_module_stay_functions(python_run: Run) -> None:
    # loading a submodule binds it on the package; the public function of that name wins
    code = (
        "import reactfuzz, reactfuzz.oracle, reactfuzz.render, reactfuzz.engine;"
        "from reactfuzz import oracle;"
        "print(reactfuzz.oracle.__module__, reactfuzz.render.__module__, callable(oracle))"
    )
    assert _out(python_run, code) == "reactfuzz.oracle reactfuzz.render True"


def test_import_loads_no_submodule_until_a_name_is_used(python_run: Run) -> None:
    code = (
        "import sys, reactfuzz;"
        "print(sorted(m for m in sys.modules if m.startswith('reactfuzz.')"
        " or m.split('.')[0] in {'hypothesis', 'lark', 'pydantic'}))"
    )
    assert _out(python_run, code) == "[]"
    code = "import sys; from reactfuzz import Call; print('reactfuzz.model' in sys.modules)"
    assert _out(python_run, code) == "True"
