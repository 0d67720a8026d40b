"""``json.template-braces`` and ``json.python-set`` catch a Python-literal fallback.

The parser below is the mechanism of a real one (a Llama 3 reader in a model server):
``json.loads``, then ``ast.literal_eval`` under ``except (ValueError, SyntaxError)``, and the
arguments written back with ``json.dumps``. Doubled template braces make ``literal_eval``
raise TypeError (a set cannot hold a dict); a set of words decodes and ``json.dumps``
raises later. A strict reader of the same format is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reactfuzz.engine import FuzzConfig, run_fuzz

LITERAL_FALLBACK = '''
import ast, json
def parse(completion):
    try:
        data = json.loads(completion)
    except json.JSONDecodeError:
        try:
            data = ast.literal_eval(completion)
        except (ValueError, SyntaxError):
            return ("final", completion)
    try:
        name, args = data["name"], data["parameters"]
    except (KeyError, TypeError):
        return ("final", completion)
    return ("action", (name, json.loads(json.dumps(args))))
'''

STRICT = '''
import json
def parse(completion):
    try:
        data = json.loads(completion)
    except ValueError as e:
        raise ValueError(f"not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("parameters"), dict):
        raise ValueError("no call object")
    return ("action", (data["name"], data["parameters"]))
'''


def _findings(source: str, module: str, abuse: str, tmp_path: Path) -> list[dict[str, object]]:
    (tmp_path / f"{module}.py").write_text(source)
    config = FuzzConfig(targets=[f"{module}:parse"], format="json-bare", cwd=str(tmp_path),
                        abuses=[abuse], seed=1, max_examples=20, format_fit=False,
                        replay_corpus=False)
    return [f.model_dump(mode="json") for f in run_fuzz(config).findings]


@pytest.mark.parametrize("abuse", ["json.template-braces", "json.python-set"])
def test_a_literal_fallback_crashes_and_is_found(abuse: str, tmp_path: Path) -> None:
    found = _findings(LITERAL_FALLBACK, "literal_" + abuse.split(".")[1].replace("-", "_"),
                      abuse, tmp_path)
    crashes = [f for f in found if f["check"] == "no-crash"]
    assert crashes and "TypeError" in json.dumps(crashes[0]), found


@pytest.mark.parametrize("abuse", ["json.template-braces", "json.python-set"])
def test_a_strict_reader_is_left_alone(abuse: str, tmp_path: Path) -> None:
    found = _findings(STRICT, "strict_" + abuse.split(".")[1].replace("-", "_"), abuse, tmp_path)
    assert found == []
