"""Real-shaped tool specs: OpenAI with nested objects, MCP tools/list, read with jsonschema.

Arguments are validated by ``jsonschema`` against the schema as written ($ref inlined) and
drawn by ``hypothesis-jsonschema`` where no value pool of ours covers the schema.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import ValidationError

from reactfuzz.dispatch import Executed
from reactfuzz.errors import InputFileError
from reactfuzz.model import Call
from reactfuzz.oracle import judge, oracle
from reactfuzz.strategies.values import prop_kind, valid_calls
from reactfuzz.tools import default_registry, load_tools_json

DATA = Path(__file__).parent / "data"
OPENAI = DATA / "tools-openai-nested.json"
MCP = DATA / "tools-mcp-list.json"

ORDER: dict[str, Any] = {
    "customer": {"id": "cus_1", "email": None,
                 "address": {"street": "Main St 1", "city": "Berlin", "country": "DE"}},
    "items": [{"sku": "a-1", "quantity": 2}],
    "delivery": "express",
    "note": None,
    "deliver_on": "2026-07-01",
}


def _drop_city(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_city(v) for k, v in value.items() if k != "city"}
    if isinstance(value, list):
        return [_drop_city(v) for v in value]
    return value


def test_an_openai_spec_with_nested_objects_validates_nested_arguments() -> None:
    registry = load_tools_json(OPENAI)
    tool = registry["create_order"]
    schema = tool.json_schema()
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema  # inlined
    assert schema["properties"]["customer"]["properties"]["address"]["required"] == [
        "street", "city", "country"]
    call = registry.validate("create_order", ORDER)
    assert call.kwargs()["customer"] == ORDER["customer"]
    for bad in (_drop_city(ORDER), ORDER | {"items": []},
                ORDER | {"items": [{"sku": "a", "quantity": 0}]},
                ORDER | {"customer": ORDER["customer"] | {"id": "nope"}},
                ORDER | {"deliver_on": "July"}, ORDER | {"extra": 1}):
        with pytest.raises(ValidationError):
            registry.validate("create_order", bad)


def test_the_oracle_catches_a_parser_that_drops_a_nested_key() -> None:
    registry = load_tools_json(OPENAI)
    intent = Call.named("create_order", **ORDER)
    acceptable = oracle(intent, "json-args", registry)
    assert judge(Executed(intent), acceptable, registry).ok
    dropped = Call.named("create_order", **_drop_city(ORDER))
    verdict = judge(Executed(dropped), acceptable, registry)
    assert not verdict.ok and "city" in str(verdict)


@pytest.mark.parametrize("path", [OPENAI, MCP], ids=["openai", "mcp"])
def test_generated_calls_are_valid_and_deterministic(path: Path) -> None:
    registry = load_tools_json(path)
    seen: list[Call] = []

    @settings(max_examples=6, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(valid_calls(registry))
    def draw(call: Call) -> None:
        registry.validate(call.tool, call.kwargs())  # never raises: drawn valid
        seen.append(call)

    draw()
    first = list(seen)
    seen.clear()
    draw()
    assert [c.key() for c in seen] == [c.key() for c in first]
    assert {c.tool for c in first} == set(registry.names())


def test_valid_calls_is_one_strategy_object_per_registry_tools_and_optional() -> None:
    # the operators ask for calls at every draw: a new object each time was validated
    # by Hypothesis each time, about an eighth of the cost of generating a scenario
    registry, other = default_registry(), default_registry()
    calls = valid_calls(registry, tools=["search", "get_time"])
    assert valid_calls(registry, tools=("search", "get_time")) is calls
    assert valid_calls(registry) is valid_calls(registry, tools=list(registry.names()))
    assert valid_calls(registry, tools=["search"]) is not calls
    assert valid_calls(registry, tools=["search", "get_time"], optional=False) is not calls
    assert valid_calls(other, tools=["search", "get_time"]) is not calls


def test_nested_values_are_plain_words_and_declared_keys_only() -> None:
    registry = load_tools_json(OPENAI)
    calls: list[Call] = []

    @settings(max_examples=8, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(valid_calls(registry, tools=["create_order"]))
    def draw(call: Call) -> None:
        calls.append(call)

    draw()
    for call in calls:
        customer = call.kwargs()["customer"]
        assert set(customer) == {"id", "email", "address"}
        for item in call.kwargs()["items"]:
            assert set(item) == {"sku", "quantity"}
            assert all(ch.isprintable() for ch in item["sku"])


def test_mcp_tools_list_shapes_are_read(tmp_path: Path) -> None:
    registry = load_tools_json(MCP)
    assert registry.names() == ("search_issues", "add_comment")
    assert registry["search_issues"].description == "Search the issue tracker."
    assert registry.validate("add_comment", {"issue": "core#12", "body": "x"}).args == (
        "core#12", "x")
    with pytest.raises(ValidationError):  # oneOf: neither an id nor a reference
        registry.validate("add_comment", {"issue": "12", "body": "x"})
    bare = json.loads(MCP.read_text())["result"]
    (tmp_path / "bare.json").write_text(json.dumps(bare))
    assert load_tools_json(tmp_path / "bare.json").names() == registry.names()
    anthropic = [{"name": t["name"], "description": t["description"],
                  "input_schema": t["inputSchema"]} for t in bare["tools"]]
    (tmp_path / "anthropic.json").write_text(json.dumps(anthropic))
    loaded = load_tools_json(tmp_path / "anthropic.json")
    assert [t.json_schema() for t in loaded] == [t.json_schema() for t in registry]


def test_reading_a_tools_file_never_fetches_or_imports(tmp_path: Path) -> None:
    spec = [{"name": "t", "parameters": {"type": "object", "properties": {
        "x": {"$ref": "http://127.0.0.1:9/evil.json"},
        "y": {"$ref": "os.py"}}}}]
    (tmp_path / "t.json").write_text(json.dumps(spec))
    before = set(sys.modules)
    with pytest.raises(InputFileError, match=r"nothing is fetched.*\$\[0\]\.parameters"):
        load_tools_json(tmp_path / "t.json")
    assert not {m for m in set(sys.modules) - before if m in ("os.py", "evil")}


def test_pool_kinds_of_the_default_tools_are_unchanged() -> None:
    kinds = {(t.name, n): prop_kind(p) for t in default_registry()
             for n, p in t.json_schema().get("properties", {}).items()}
    assert "json" not in kinds.values()
    assert kinds[("list_invoices", "since")] == "date"
    assert kinds[("refund", "reason")] == "enum"


@pytest.mark.parametrize(("schema", "kind"), [
    ({"type": "object", "properties": {}}, "json"),
    ({"type": "array", "items": {"type": "object"}}, "json"),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "json"),
    ({"type": "string", "format": "email"}, "json"),
    ({"type": "integer", "multipleOf": 2}, "json"),
    ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "int"),
    ({"type": "array", "items": {"type": "string"}}, "list"),
])
def test_schemas_no_pool_covers_go_to_the_generator(schema: dict[str, Any], kind: str) -> None:
    assert prop_kind(schema) == kind


def _fuzz(*args: str, cwd: Path) -> Any:
    import subprocess

    return subprocess.run([sys.executable, "-m", "reactfuzz", "fuzz", *args, "--no-corpus",
                           "--max-examples", "5", "--seed", "1", "-q"],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("path", [OPENAI, MCP], ids=["openai", "mcp"])
def test_real_specs_fuzz_without_error(path: Path, tmp_path: Path) -> None:
    r = _fuzz("--parser", "grammar", "--format", "json-args", "--tools", str(path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 findings" in r.stdout


@pytest.mark.slow
def test_a_parser_dropping_a_nested_key_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "dropper.py").write_text(textwrap.dedent('''
        import dataclasses
        from reactfuzz.formats.grammars import grammar_parse

        def _drop(v):
            if isinstance(v, dict):
                return {k: _drop(x) for k, x in v.items() if k != "city"}
            return [_drop(x) for x in v] if isinstance(v, list) else v

        def parse(text):
            step = grammar_parse(text, "json-args")
            action = getattr(step, "action", None)
            if action is None or action.args is None:
                return step
            args = tuple(_drop(a) for a in action.args)
            return dataclasses.replace(step, action=dataclasses.replace(action, args=args))
    '''))
    r = _fuzz("--target", "dropper:parse", "--format", "json-args", "--tools", str(OPENAI),
              "--abuse", "clean.render", "--no-fit-check", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "city" in r.stdout


@pytest.mark.slow
def test_a_tool_whose_free_strings_are_all_optional_never_crashes_an_operator(
        tmp_path: Path) -> None:
    """Operators that quote into a free-text argument skip calls that left it out (they
    once indexed an empty list and killed the run)."""
    from hypothesis.errors import Unsatisfiable

    from reactfuzz.strategies import ABUSES, for_each_example, scenarios

    spec = [{"type": "function", "function": {
        "name": "lookup", "description": "look up a record",
        "parameters": {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer"}, "note": {"type": "string"}}}}}]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(spec))
    registry = load_tools_json(path)
    for op in ("malformed.unbalanced-quote", "injected.delimiter", "injected.label-in-argument",
               "size.long-argument", "json.label-in-string"):
        if not ABUSES[op].applies_to("json-args"):
            continue
        try:
            for_each_example(scenarios(registry, "json-args", abuses=[op]), lambda s: None,
                             examples=5, seed=0)
        except Unsatisfiable:
            pass  # no call with the optional string: the operator skips, as the engine says
