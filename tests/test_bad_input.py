"""Bad input: every malformed input the command line takes is one line, exit 2, no traceback.

A table of malformed inputs over every input kind (options, formats, tools, corpus files,
JSON Lines, grammars, regexes, targets, plugins, output paths, pytest options), each run
through the CLI's ``main(argv)`` in this process (a subprocess each would cost minutes)
with a time limit. Each must exit 2 with exactly one line on stderr that names the input,
raise nothing, and finish in time. A handful run as a user runs them, in a subprocess.
The figures of the whole table are in docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reactfuzz.cli import main

pytest_plugins = ["pytester"]

LIMIT = 10.0
"""Seconds one bad input may take before it counts as a hang."""

FIFO, DEVZERO, DIR = "<fifo>", "<dev/zero>", "<dir>"
"""Special files a case can ask for instead of content."""

ROOT = Path(__file__).resolve().parent.parent
GOOD_FINDING: dict[str, Any] = json.loads(
    (ROOT / "fuzz_corpus" / "no-crash-extra.positional-8941da71f324aa7a.json").read_text())
GOOD_TOOLS = [{"name": "search", "description": "search the web",
               "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                              "required": ["q"]}}]
BASE_FILES: dict[str, Any] = {
    "ok.txt": "Thought: t\nAction: search[x]\n",
    "ok.jsonl": json.dumps({"text": "Thought: t\nAction: search[x]"}) + "\n",
    "tools.json": json.dumps(GOOD_TOOLS),
    "good/good.json": json.dumps(GOOD_FINDING),
    "afile": "a regular file",
    "adir/.keep": "",
}
FUZZ = ("fuzz", "--parser", "classic-bracket", "--no-corpus", "--no-replay",
        "--max-examples", "1", "--abuse", "extra.positional")


@dataclass(frozen=True)
class Bad:
    """One malformed input: the command line, the files it needs, what the error names."""

    kind: str
    name: str
    argv: tuple[str, ...]
    names: str
    files: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    entry: str = "reactfuzz"  # or "harness": ``python -m reactfuzz.fuzzing``

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _finding(**changes: Any) -> str:
    data = json.loads(json.dumps(GOOD_FINDING))
    for key, value in changes.items():
        if value is _DROP:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data)


_DROP = object()


# --------------------------------------------------------------------------- the table


def _option_cases() -> Iterator[Bad]:
    numbers = {
        ("fuzz", "--time-budget"): ["-1", "0", "nan", "inf", "-inf", "abc", "", "1e309",
                                    "1e9"],
        ("fuzz", "--time-limit"): ["0", "-1", "nan", "inf", "abc", "", "-0.0", "1e12"],
        ("fuzz", "--explore"): ["0", "-1", "abc", "1.5", ""],
        ("fuzz", "--guided-scenarios"): ["-1", "abc", "1.5", "", "1e3", "99999999999"],
        ("fuzz", "--max-examples"): ["0", "-5", "abc", "1.5", "", "1e3", "nan"],
        ("fuzz", "--workers"): ["0", "-1", "abc", "100000", "", "2.0"],
        ("fuzz", "--seed"): ["abc", "1.5", "", str(2**70), "nan", "1" * 5000],
        ("replay", "--time-limit"): ["0", "-1", "nan", "inf", "abc"],
        ("study", "--examples"): ["0", "-1", "abc", "nan"],
        ("study", "--seed"): ["abc", "1.5"],
        ("bench", "--rounds"): ["0", "-1", "abc"],
    }
    for (cmd, opt), values in numbers.items():
        head = FUZZ if cmd == "fuzz" else (cmd,)
        for v in values:
            yield Bad("option", f"{cmd} {opt} {v!r}", (*head, f"{opt}={v}"), opt)
    for v in ["-1", "abc", "1.5", ""]:
        yield Bad("option", f"conform --show {v!r}",
                  ("conform", "-f", "bracket", f"--show={v}", "ok.jsonl"), "--show")
    for v in ["nan", "-1", "101", "abc", "inf", ""]:
        yield Bad("option", f"conform --min-rate {v!r}",
                  ("conform", "-f", "bracket", f"--min-rate={v}", "ok.jsonl"), "--min-rate")
    words = [
        ("fuzz --format", (*FUZZ, "--format", "nosuch"), "nosuch"),
        ("parse --format", ("parse", "--format", "nosuch", "ok.txt"), "nosuch"),
        ("conform --format", ("conform", "--format", "nosuch", "ok.jsonl"), "nosuch"),
        ("bench --format", ("bench", "--format", "nosuch", "--target", "classic-bracket"),
         "nosuch"),
        ("fuzz --dispatcher", (*FUZZ, "--dispatcher", "nosuch"), "--dispatcher"),
        ("replay --dispatcher", ("replay", "--dispatcher", "nosuch", "good"), "--dispatcher"),
        ("fuzz --stream", (*FUZZ, "--stream", "nosuch"), "--stream"),
        ("fuzz --color", (*FUZZ, "--color", "nosuch"), "--color"),
        ("fuzz --check", (*FUZZ, "--check", "nosuch"), "nosuch"),
        ("fuzz --check list", (*FUZZ, "--check", "no-crash,nosuch"), "nosuch"),
        ("fuzz --exclude-check", (*FUZZ, "--exclude-check", "nosuch"), "nosuch"),
        ("fuzz --exclude-check all", (*FUZZ, "--check", "no-crash", "--exclude-check",
                                      "no-crash"), "--exclude-check"),
        ("fuzz --abuse", (*FUZZ, "--abuse", "nosuch"), "nosuch"),
        ("fuzz --abuse family", (*FUZZ, "--abuse", "nosuch.*"), "nosuch"),
        ("study --abuse", ("study", "--abuse", "nosuch"), "nosuch"),
        ("study --design", ("study", "--design", "nosuch", "--out", "o"), "nosuch"),
        ("fuzz --parser", ("fuzz", "--parser", "nosuch", "--no-corpus"), "nosuch"),
        ("parse --parser", ("parse", "--parser", "nosuch", "ok.txt"), "nosuch"),
        ("fuzz nothing", ("fuzz", "--no-corpus"), "--parser"),
        ("fuzz --explore two targets", (*FUZZ, "--parser", "classic-json", "--explore", "5"),
         "--explore"),
        ("fuzz --guided without --explore", (*FUZZ, "--guided"), "--explore"),
        ("fuzz unknown option", (*FUZZ, "--nosuch"), "--nosuch"),
        ("parse unknown option", ("parse", "--nosuch", "ok.txt"), "--nosuch"),
        ("replay unknown option", ("replay", "--nosuch"), "--nosuch"),
        ("unknown command", ("nosuch",), "nosuch"),
        ("replay missing path", ("replay", "missing-dir"), "missing-dir"),
        ("parse missing file", ("parse", "missing.txt"), "missing.txt"),
        ("parse completion dir", ("parse", "adir"), "adir"),
        ("parse completion non-utf8", ("parse", "bin.txt"), "bin.txt"),
        ("parse completion fifo", ("parse", "fifo.txt"), "fifo.txt"),
        ("fuzz --baseline file", (*FUZZ, "--baseline", "afile"), "afile"),
    ]
    files = {"bin.txt": b"Thought: \xff\xfe", "fifo.txt": FIFO}
    for name, argv, names in words:
        yield Bad("option", name, argv, names, files=files)


_TOML: dict[str, Any] = {
    "grammar-number": "grammar = 123",
    "grammar-list": 'grammar = ["a.lark"]',
    "label-trailing-newline": 'base = "bracket"\n[labels]\nthought = "Thought\\n"',
    "answer-trailing-newline": '[labels]\nanswer = "Answer\\n"',
    "label-nul": 'base = "bracket"\n[labels]\nthought = "Thought\\u0000"',
    "label-colon": 'base = "bracket"\n[labels]\naction = "Action:"',
    "label-empty": 'base = "bracket"\n[labels]\nthought = ""',
    "label-digit": 'base = "bracket"\n[labels]\nthought = "1abc"',
    "label-number": 'base = "bracket"\n[labels]\nthought = 5',
    "labels-not-table": 'base = "bracket"\nlabels = 5',
    "identical-labels": 'base = "bracket"\n[labels]\nthought = "Action"',
    "identical-answer": 'base = "bracket"\n[labels]\nanswer = "Observation"',
    "identical-headers": 'base = "bracket"\n[labels]\nheaders = ["Question", "Question"]',
    "identical-action-input": 'base = "action-input"\n[labels]\naction_input = "Action"',
    "not-toml": "this is [not toml",
    "binary": bytes(range(256)),
    "non-utf8": b'name = "\xff\xfe"',
    "deep-5000": "x = " + _deep(5000),
    "deep-300": "x = " + _deep(300),
    "deep-tables": "".join(f"[{'a.' * i}b]\n" for i in range(1, 3)) + "a = " + _deep(400),
    "unknown-key": "colour = 1",
    "base-unknown": 'base = "nosuch"',
    "base-number": "base = 5",
    "syntax-unknown": 'syntax = "nosuch"',
    "arguments-unknown": 'arguments = "nosuch"',
    "syntax-arguments-mismatch": 'syntax = "bracket"\narguments = "json"',
    "stop-empty": 'base = "bracket"\nstop = [""]',
    "stop-number": 'base = "bracket"\nstop = 5',
    "grammar-missing": 'base = "bracket"\ngrammar = "missing.lark"',
    "grammar-not-compiling": 'base = "bracket"\ngrammar = "broken.lark"',
    "grammar-binary": 'base = "bracket"\ngrammar = "binary.lark"',
    "grammar-import-missing": 'base = "bracket"\ngrammar = "imports.lark"',
    "grammar-fifo": 'base = "bracket"\ngrammar = "fifo.lark"',
    "grammar-dir": 'base = "bracket"\ngrammar = "adir"',
    "family-unknown": 'family = "nosuch"',
    "family-number": "family = 3",
    "family-contradicts": 'family = "json-blob"\nsyntax = "bracket"',
    "numbered-string": 'base = "bracket"\nnumbered = "yes"',
    "fence-backticks": 'base = "json-blob"\nfence = "```"',
    "fence-on-bracket": 'base = "bracket"\nfence = "json"',
    "tag-space": 'base = "tool-call"\ntag = "a b"',
    "tag-newline": 'base = "tool-call"\ntag = "tool_call\\n"',
    "tool-key-equals-args-key": 'base = "json-blob"\ntool_key = "x"\nargs_key = "x"',
    "template-placeholder": 'family = "template-json"\naction_template = "{nosuch}"',
    "name-number": "name = 5",
    "format-table-and-more": '[format]\nname = "x"\n[other]\na = 1',
    "no-answer": 'base = "bracket"\n[labels]\nanswer = false',
    "finish-action-number": 'base = "bracket"\nfinish_action = 5',
}
_TOML_FILES: dict[str, Any] = {
    "broken.lark": "completion: (",
    "binary.lark": bytes(range(256)),
    "imports.lark": "%import nosuch_module.X\ncompletion: X\ntranscript: X\n",
    "fifo.lark": FIFO,
}


def _format_cases() -> Iterator[Bad]:
    specials = {"fifo": FIFO, "dev-zero": DEVZERO, "dir": DIR, "huge": "#" * (1 << 20) + "\n"}
    entries = {name: text for name, text in _TOML.items()} | specials
    for name, content in [*entries.items(), ("missing", None)]:
        f = f"{name}.toml"
        files = dict(_TOML_FILES)
        if content is not None:
            files[f] = content
        for how, argv in [("parse", ("parse", "--format", f, "ok.txt")),
                          ("fuzz", (*FUZZ, "--format", f)),
                          ("conform", ("conform", "--format", f, "ok.jsonl"))]:
            yield Bad("format", f"{how} {name}", argv, f, files)


_TOOLS: dict[str, Any] = {
    "empty-list": "[]",
    "empty-tools": '{"tools": []}',
    "empty-object": "{}",
    "string": '"x"',
    "number": "5",
    "null": "null",
    "empty-file": "",
    "list-of-null": "[null]",
    "list-of-list": "[[]]",
    "nan-default": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "number", "default": NaN}'),
    "infinity-maximum": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "number", "maximum": Infinity}'),
    "nan-top": "NaN",
    "deep-10000": '[{"name": "s", "description": ' + _deep(10000) + "}]",
    "deep-300": '[{"name": "s", "description": ' + _deep(300) + "}]",
    "invalid-json": "[{",
    "duplicate-key": '[{"name": "a", "name": "b"}]',
    "non-utf8": b'[{"name": "\xff"}]',
    "binary": bytes(range(256)),
    "bom-invalid": "\ufeff[{",
    "no-name": '[{"description": "x", "parameters": {"type": "object"}}]',
    "name-space": '[{"name": "a b", "parameters": {"type": "object"}}]',
    "name-number": '[{"name": 5, "parameters": {"type": "object"}}]',
    "name-empty": '[{"name": "", "parameters": {"type": "object"}}]',
    "name-100kb": json.dumps([{"name": "a" * 100_000, "parameters": {"type": "object"}}]),
    "duplicate-names": json.dumps(GOOD_TOOLS * 2),
    "remote-ref": json.dumps(GOOD_TOOLS).replace('{"type": "string"}', '{"$ref": "x.json"}'),
    "type-unknown": json.dumps(GOOD_TOOLS).replace('"string"', '"nosuch"'),
    "type-number": json.dumps(GOOD_TOOLS).replace('"string"', "5"),
    "required-not-list": json.dumps(GOOD_TOOLS).replace('["q"]', '"q"'),
    "required-unknown": json.dumps(GOOD_TOOLS).replace('["q"]', '["nosuch"]'),
    "pattern-invalid": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "string", "pattern": "("}'),
    "enum-empty": json.dumps(GOOD_TOOLS).replace('{"type": "string"}', '{"enum": []}'),
    "parameters-not-object": '[{"name": "s", "parameters": 5}]',
    "properties-list": '[{"name": "s", "parameters": {"type": "object", "properties": []}}]',
    "prefix-items": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "array", "prefixItems": [{"type": "object"}]}'),
    "min-length-string": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "string", "minLength": "x"}'),
    "description-number": '[{"name": "s", "description": 5, "parameters": {"type": "object"}}]',
    # bounds no value meets and sizes no run should wait for: before the run, not a
    # traceback in the middle of one, nor a run that never ends
    "min-over-max-length": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "string", "minLength": 5, "maxLength": 2}'),
    "min-length-1e9": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "string", "minLength": 1e9}'),
    "min-over-max-items": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "array", "minItems": 3, "maxItems": 1}'),
    "minimum-over-maximum": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "number", "minimum": 3, "maximum": 1}'),
    "nested-min-over-max": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', '{"type": "array", "items": {"type": "string", "minLength": 9,'
        ' "maxLength": 1}}'),
    "enum-200000": json.dumps(GOOD_TOOLS).replace(
        '{"type": "string"}', json.dumps({"enum": [str(i) for i in range(200_000)]})),
    "fifo": FIFO,
    "dev-zero": DEVZERO,
    "dir": DIR,
    "huge": " " * (16 * 1024 * 1024 + 1) + "[]",
}


def _tools_cases() -> Iterator[Bad]:
    for name, content in [*_TOOLS.items(), ("missing", None)]:
        f = f"{name}.json"
        files = {} if content is None else {f: content}
        yield Bad("tools", f"fuzz {name}", (*FUZZ, "--tools", f), f, files)
        if name in {"empty-list", "nan-default", "deep-10000", "fifo", "dev-zero", "missing",
                    "invalid-json", "duplicate-names"}:
            yield Bad("tools", f"explore {name}",
                      ("fuzz", "--parser", "classic-bracket", "--no-corpus", "--explore", "5",
                       "--tools", f), f, files)
            yield Bad("tools", f"replay {name}", ("replay", "good", "--tools", f), f, files)
    for spec in ["badmod_nosuch:TOOLS", "tools_mod:NOSUCH", "tools_mod:NUMBER", "tools_mod:",
                 ":TOOLS", "tools.toml"]:
        yield Bad("tools", f"fuzz {spec}", (*FUZZ, "--tools", spec), spec,
                  {"tools_mod.py": "NUMBER = 5\n", "tools.toml": "x = 1"})


def _corpus_cases() -> Iterator[Bad]:
    call = {"kind": "call", "tool": "search", "args": ["a", "b"], "names": ["q"],
            "text": None}
    bad: dict[str, Any] = {
        "invalid-json": "{",
        "list": "[]",
        "string": '"x"',
        "empty": "",
        "schema-2": _finding(schema_version=2),
        "schema-missing": _finding(schema_version=_DROP),
        "no-completion": _finding(completion=_DROP),
        "b64-mismatch": _finding(completion_b64="eA=="),
        "intent-kind": _finding(intent={"kind": "nope"}),
        "intent-list": _finding(intent=[]),
        "names-args-lengths": _finding(intent=call),
        "acceptable-names-args": _finding(acceptable={"calls": [call]}),
        "deep-10000": _finding(intent={"kind": "call", "tool": "s", "args": []}).replace(
            '"args": []', '"args": ' + _deep(10000)),
        "deep-300": _finding(intent={"kind": "call", "tool": "s", "args": []}).replace(
            '"args": []', '"args": ' + _deep(300)),
        "nan-args": _finding(intent={"kind": "call", "tool": "s", "args": []}).replace(
            '"args": []', '"args": [NaN]'),
        "extra-key": _finding(nosuch=1),
        "non-utf8": b'{"schema_version": 1, "target": "\xff"}',
        "binary": bytes(range(256)),
        "check-colon": _finding(check="no:crash"),
        "check-nul": _finding(check="no\u0000crash"),
        "check-backslash": _finding(check="no\\crash"),
        "check-long": _finding(check="c" * 300),
        "abuse-tmp": _finding(abuse=".tmp-x"),
        "abuse-newline": _finding(abuse="extra\npositional"),
        "severity-number": _finding(severity=5),
        "seed-string": _finding(seed="abc"),
        "target-number": _finding(target=5),
        "cause-unknown": _finding(cause="nosuch"),
        "format-unknown": _finding(format="nosuch"),
        "dispatcher-unknown": _finding(dispatcher="nosuch"),
        "check-unknown": _finding(check="nosuch-check"),
        "tools-missing": _finding(tools="missing.json"),
        "fifo": FIFO,
        "dev-zero": DEVZERO,
        "huge": " " * (16 * 1024 * 1024 + 1),
    }
    # names a run of another target or format skips, or a plugin could register: bad for
    # replay, which runs every finding, not for a fuzz run that replays only its own
    names_only = {"format-unknown", "dispatcher-unknown", "check-unknown", "tools-missing"}
    for name, content in bad.items():
        f = f"corp/{name}.json"
        files = {f: content}
        yield Bad("corpus", f"replay file {name}", ("replay", f), f"{name}.json", files)
        yield Bad("corpus", f"replay dir {name}", ("replay", "corp"), f"{name}.json", files)
        if name in names_only:
            continue
        yield Bad("corpus", f"fuzz {name}",
                  ("fuzz", "--parser", "classic-bracket", "--corpus", "corp", "--max-examples",
                   "1", "--abuse", "extra.positional"), f"{name}.json", files)


def _jsonl_cases() -> Iterator[Bad]:
    bad: dict[str, Any] = {
        "not-json": "{\n",
        "array-line": "[1, 2]\n",
        "null-line": "null\n",
        "no-field": '{"other": "x"}\n',
        "field-number": '{"text": 5}\n',
        "field-null": '{"text": null}\n',
        "deep-10000": '{"text": "x", "more": ' + _deep(10000) + "}\n",
        "non-utf8": b'{"text": "\xff"}\n',
        "binary": bytes(range(256)),
        "second-line-bad": '{"text": "Thought: a"}\n{\n',
        "empty": "",
        "blank-lines": "\n\n  \n",
        "fifo": FIFO,
        "dev-zero": DEVZERO,
        "dir": DIR,
    }
    for name, content in [*bad.items(), ("missing", None)]:
        f = f"{name}.jsonl"
        files = {} if content is None else {f: content}
        yield Bad("jsonl", f"conform {name}", ("conform", "-f", "bracket", f), f, files)
        yield Bad("jsonl", f"bench {name}", ("bench", "--quick", "--completions", f), f,
                  files)
    yield Bad("jsonl", "conform --field nosuch",
              ("conform", "-f", "bracket", "--field", "nosuch", "ok.jsonl"), "nosuch")


_GRAMMARS: dict[str, Any] = {
    "binary": bytes(range(256)),
    "non-utf8": b"completion: \"\xff\"\n",
    "nul": "completion: \"a\"\x00\ntranscript: \"b\"\n",
    "import-missing": "%import nosuch_module.X\ncompletion: X\ntranscript: X\n",
    "import-missing-name": "%import common.NOSUCH\ncompletion: NOSUCH\ntranscript: NOSUCH\n",
    "syntax-error": "completion: (\n",
    "no-rules": 'start: "a"\n',
    "empty": "",
    "only-completion": 'completion: "a"\n',
    "missing-family-rules": 'completion: "a"\ntranscript: "b"\n',
    "bad-regexp": "completion: /[/\ntranscript: /a/\n",
    "override-missing": "%override NOSUCH: /a/\ncompletion: \"a\"\ntranscript: \"a\"\n",
    "undefined-rule": "completion: nosuch\ntranscript: nosuch\n",
    "deep-parens": "completion: " + "(" * 3000 + '"a"' + ")" * 3000 + '\ntranscript: "b"\n',
    "reduce-conflict": 'completion: a | b\na: "x"\nb: "x"\ntranscript: "t"\n',
    "huge": "// " + "x" * (1 << 20) + "\n",
    "fifo": FIFO,
    "dev-zero": DEVZERO,
    "dir": DIR,
}


def _grammar_cases() -> Iterator[Bad]:
    for name, content in [*_GRAMMARS.items(), ("missing", None)]:
        f = f"{name}.lark"
        files = {} if content is None else {f: content}
        yield Bad("grammar", f"fuzz {name}", (*FUZZ[:1], "--grammar", f, *FUZZ[3:]), f, files)
        yield Bad("grammar", f"parse {name}", ("parse", "-p", f"grammar:{f}", "ok.txt"), f,
                  files)


_REGEXES = [
    "a{1000000000}", r"(?P<tool>\w+)a{1000000000}", r"(?P<tool>x{100000}){100000}",
    r"(?P<tool>(?:(?:a{100}){100}){100})", r"(?P<tool>\w+)x{99999999,}", "(", "[", "*",
    r"(\w+)", "(?P<tool>", "\\", "a{5,3}(?P<tool>x)",
    r"(?P<tool>\w+)\2", r"(?P<tool>x)(?P<answer>", r"(?P<tool>\w+)(?P<args>[)",
    "(?P<tool>x)(?P<answer)", "(?<nope", r"(?P<tool>\w+)(?#", "(?P<1tool>x)",
]


def _regex_cases() -> Iterator[Bad]:
    for i, pattern in enumerate(_REGEXES):
        shown = pattern[:8]
        yield Bad("regex", f"fuzz {i} {pattern[:30]!r}", (*FUZZ[:1], "--regex", pattern,
                                                          *FUZZ[3:]), "regex", {})
        yield Bad("regex", f"parse {i} {pattern[:30]!r}",
                  ("parse", "-p", f"regex:{pattern}", "ok.txt"), "regex", {})
        del shown
    yield Bad("regex", "parse empty", ("parse", "-p", "regex:", "ok.txt"), "regex")


_MODULES = {
    "badmod_raises.py": "raise RuntimeError('boom at import')\n",
    "badmod_syntax.py": "def parse(:\n",
    "badmod_value.py": "parse = 5\n",
    "badmod_ok.py": "def parse(text):\n    return None\n",
}


def _target_cases() -> Iterator[Bad]:
    specs = ["nocolon", "badmod_missing:parse", "badmod_ok:nosuch", "badmod_value:parse",
             "badmod_raises:parse", "badmod_syntax:parse", ":parse", "badmod_ok:",
             "a b:c", "../x:parse", "grammar:missing.lark", "badmod_ok:parse:extra",
             "badmod_missing.sub:parse", "regex:", "grammar:"]
    for spec in specs:
        yield Bad("target", f"fuzz {spec}", (*FUZZ[:1], "--target", spec, *FUZZ[3:]),
                  spec.split(":")[0] or spec, _MODULES)
        yield Bad("target", f"parse {spec}", ("parse", "-p", spec, "ok.txt"),
                  spec.split(":")[0] or spec, _MODULES)
        yield Bad("target", f"replay {spec}", ("replay", "good", "--target", spec),
                  spec.split(":")[0] or spec, _MODULES)


def _plugin_cases() -> Iterator[Bad]:
    reg = "from reactfuzz.engine.checks import check\n\n@check({!r}, 'd')\ndef f(inp):\n" \
          "    return None\n"
    abuse = "from reactfuzz.strategies import ABUSES\nABUSES.add({!r}, object())\n"
    plugins = {
        "badmod_missing": None,
        "badmod_raises": None,
        "badmod_syntax": None,
        "badmod_missing.sub": None,
        "badmod_dup": reg.format("no-crash"),
        "badmod_colon": reg.format("bad:id"),
        "badmod_nul": reg.format("bad\0id"),
        "badmod_backslash": reg.format("bad\\id"),
        "badmod_long": reg.format("c" * 300),
        "badmod_tmp": reg.format(".tmp-check"),
        "badmod_space": reg.format("bad id"),
        "badmod_newline": reg.format("bad\nid"),
        "badmod_abuse_colon": abuse.format("bad:abuse"),
        "badmod_abuse_tmp": abuse.format(".tmp-abuse"),
        "badmod_abuse_long": abuse.format("a" * 300),
    }
    for name, source in plugins.items():
        files = dict(_MODULES)
        if source is not None:
            files[f"{name}.py"] = source
        yield Bad("plugin", name, (*FUZZ, "--plugin", name), name, files)


def _output_cases() -> Iterator[Bad]:
    places = {"a-dir": "adir", "parent-is-file": "afile/out.x", "proc-new": "/proc/nope/out.x",
              "proc-file": "/proc/version", "deep-parent-file": "afile/a/b/c.x",
              "empty": "", "blank": " "}
    for opt in ["--json", "--html", "--junit", "--events", "--markdown", "--sarif"]:
        for where, path in places.items():
            yield Bad("output", f"fuzz {opt} {where}", (*FUZZ, opt, path), opt)
    corpus_places = {"file": "afile", "under-file": "afile/corpus", "proc": "/proc/corpus",
                     "empty": ""}
    for where, path in corpus_places.items():
        yield Bad("output", f"fuzz --corpus {where}",
                  ("fuzz", "--parser", "classic-bracket", "--no-replay", "--corpus", path,
                   "--max-examples", "1", "--abuse", "extra.positional"), "--corpus")
    for where, path in places.items():
        yield Bad("output", f"replay --json {where}", ("replay", "good", "--json", path),
                  "--json")
        yield Bad("output", f"bench --markdown {where}",
                  ("bench", "--quick", "--markdown", path), "--markdown")
    for where, path in corpus_places.items():
        yield Bad("output", f"study --out {where}", ("study", "--out", path), "--out")


def _rest_cases() -> Iterator[Bad]:
    """The options and commands no other table reaches: a flag given a value, a command
    that takes no argument given one, and the value options left."""
    from reactfuzz.cli.arguments import build_parser

    heads = {"fuzz": FUZZ, "conform": ("conform", "-f", "bracket", "ok.jsonl"),
             "parse": ("parse", "ok.txt"), "replay": ("replay", "good"), "loop": LOOP,
             "serve": SERVE}
    for cmd, sub in _subcommands(build_parser()).items():
        head = heads.get(cmd, (cmd,))
        yield Bad("option", f"{cmd} extra argument", (*head, "--nosuch-option"),
                  "--nosuch-option")
        for action in sub._actions:
            if action.option_strings and action.nargs == 0 and "-h" not in \
                    action.option_strings:
                opt = action.option_strings[0]
                yield Bad("option", f"{cmd} {opt}=value", (*head, f"{opt}=1"), opt)
    for cmd in ("demo", "parsers", "abuses", "checks", "formats"):
        yield Bad("option", f"{cmd} positional", (cmd, "surplus"), "surplus")
    for where, path in {"file": "afile", "empty": "", "proc": "/proc/db"}.items():
        yield Bad("output", f"fuzz --hypothesis-db {where}", (*FUZZ, "--hypothesis-db", path),
                  "--hypothesis-db")
    yield Bad("plugin", "replay nosuch plugin", ("replay", "good", "--plugin",
                                                 "badmod_missing"), "badmod_missing", _MODULES)
    yield Bad("option", "study --color", ("study", "--color", "nosuch"), "--color")
    yield Bad("option", "bench --field", ("bench", "--completions", "ok.jsonl", "--field",
                                          "nosuch", "--target", "classic-bracket"), "nosuch")


LOOP = ("loop", "--target", "badmod_loop:run", "--no-corpus", "--max-examples", "1",
        "--kind", "loop.clean")
_LOOP_FILES = {**{}, "badmod_loop.py": "def run(llm, tools, task):\n    return llm(task)\n",
               "badmod_loopvalue.py": "run = 5\n"}


def _loop_cases() -> Iterator[Bad]:
    """``reactfuzz loop``: its target, numbers, names and outputs."""
    values: dict[str, list[str]] = {
        "--seed": ["abc", "1.5", str(2**70)],
        "--max-examples": ["0", "-1", "abc", "2000000"],
        "--max-calls": ["1", "0", "abc", "100000"],
        "--time-limit": ["0", "nan", "-1"],
        "--check": ["nosuch", "no-crash"],
        "--kind": ["nosuch", "nosuch.*"],
        "--format": ["nosuch", ""],
        "--tools": ["missing.json", "afile"],
        "--color": ["nosuch"],
    }
    for opt, vs in values.items():
        for v in vs:
            names = v if opt in ("--check", "--kind", "--tools") or (opt == "--format" and v) \
                else "format" if opt == "--format" else opt
            yield Bad("option", f"loop {opt} {v!r}", (*LOOP, f"{opt}={v}"), names,
                      {**_MODULES, **_LOOP_FILES})
    for spec, names in [("nosuch_loop_mod:run", "nosuch_loop_mod"), ("badmod_loop:nosuch",
                        "nosuch"), ("badmod_loopvalue:run", "not callable"),
                        ("badmod_raises:run", "badmod_raises"), ("nocolon", "nocolon")]:
        yield Bad("target", f"loop {spec}", ("loop", "--target", spec, "--no-corpus"), names,
                  {**_MODULES, **_LOOP_FILES})
    for opt in ["--json", "--html", "--junit", "--markdown", "--sarif", "--events"]:
        for where, path in {"a-dir": "adir", "empty": "", "proc": "/proc/nope/x"}.items():
            yield Bad("output", f"loop {opt} {where}", (*LOOP, opt, path), opt, _LOOP_FILES)
    for where, path in {"file": "afile", "empty": ""}.items():
        yield Bad("output", f"loop --corpus {where}",
                  ("loop", "--target", "badmod_loop:run", "--corpus", path), "--corpus",
                  _LOOP_FILES)
    yield Bad("option", "loop --no-replay unknown", (*LOOP, "--no-replay", "--bogus"),
              "--bogus", _LOOP_FILES)


SERVE = ("serve", "--command", "true", "--no-corpus", "--max-examples", "1", "--kind",
         "loop.clean")


def _serve_cases() -> Iterator[Bad]:
    """``reactfuzz serve``: its command, port, numbers, names and outputs."""
    values: dict[str, list[str]] = {
        "--command": ["", "no_such_program_xyz --flag", "'unclosed"],
        "--port": ["-1", "65536", "abc"],
        "--seed": ["abc"],
        "--max-examples": ["0", "1000000"],
        "--max-calls": ["1"],
        "--time-limit": ["0", "nan"],
        "--check": ["loop-tool-call", "nosuch"],
        "--kind": ["nosuch"],
        "--format": ["nosuch"],
        "--tools": ["missing.json"],
        "--color": ["nosuch"],
    }
    for opt, vs in values.items():
        for v in vs:
            names = v if opt in ("--check", "--kind", "--tools", "--format") else opt
            if opt == "--command" and v:
                names = "--command"
            yield Bad("option", f"serve {opt} {v!r}", (*SERVE, f"{opt}={v}"), names)
    for opt in ["--json", "--html", "--junit", "--markdown", "--sarif", "--events"]:
        yield Bad("output", f"serve {opt} a-dir", (*SERVE, opt, "adir"), opt)
    yield Bad("output", "serve --corpus file", ("serve", "--command", "true", "--corpus",
                                                "afile"), "--corpus")


def _harness_cases() -> Iterator[Bad]:
    """``python -m reactfuzz.fuzzing``: every subcommand and option given a bad value."""
    run = ("run", "classic-bracket", "--format", "bracket", "--driver", "python",
           "--findings", "found", "--seconds", "0.2")
    bad_values: dict[tuple[str, ...], list[str]] = {
        (*run, "--seconds"): ["nan", "-1", "0", "inf", "abc", ""],
        (*run, "--per-operator"): ["0", "-1", "abc", "100000000"],
        (*run, "--seed"): ["abc", "1.5", str(2**70)],
        (*run, "--time-limit"): ["0", "nan", "-1"],
        (*run, "--driver"): ["nosuch"],
        (*run, "--dispatcher"): ["nosuch"],
        (*run, "--check"): ["nosuch"],
        (*run, "--format"): ["nosuch"],
        (*run, "--tools"): ["missing.json", "afile"],
        (*run, "--inputs"): ["afile", "/proc/inputs", ""],
        (*run, "--corpus"): ["afile", "missing-dir"],
        (*run, "--findings"): ["afile", "/proc/found", ""],
        (*run, "--instrument"): ["nosuch_package_xyz"],
        ("seeds", "sd", "--format"): ["nosuch"],
        ("seeds", "sd", "--seed"): ["abc", ""],
        ("seeds", "sd", "--per-operator"): ["0", "100000000"],
        ("seeds", "sd", "--corpus"): ["afile"],
        ("seeds", "sd", "--tools"): ["missing.json"],
        ("dict", "--format"): ["nosuch", ""],
        ("dict", "--tools"): ["missing.json"],
        ("shrink", "classic-bracket", "afile", "--findings"): ["afile"],
        ("shrink", "classic-bracket", "afile", "--format"): ["nosuch"],
        ("shrink", "classic-bracket", "afile", "--time-limit"): ["nan"],
        ("shrink", "classic-bracket", "afile", "--dispatcher"): ["nosuch"],
        ("shrink", "classic-bracket", "afile", "--check"): ["nosuch"],
        ("shrink", "classic-bracket", "afile", "--tools"): ["missing.json"],
    }
    for head, values in bad_values.items():
        opt = head[-1]
        for v in values:
            named = opt in ("--format", "--tools", "--instrument", "--check")
            names = (v or opt.lstrip("-")) if named else opt
            yield Bad("harness", f"{head[0]} {opt} {v!r}", (*head[:-1], f"{opt}={v}"), names,
                      entry="harness")
    others: list[tuple[str, tuple[str, ...], str]] = [
        ("no command", (), "command"),
        ("run no target", ("run",), "target"),
        ("run target missing", ("run", "badmod_missing:parse", "--findings", "found"),
         "badmod_missing"),
        ("run target raises", ("run", "badmod_raises:parse", "--findings", "found"),
         "badmod_raises"),
        ("seeds directory is a file", ("seeds", "afile"), "afile"),
        ("seeds directory in /proc", ("seeds", "/proc/seeds"), "/proc/seeds"),
        ("shrink missing file", ("shrink", "classic-bracket", "missing.bin"), "missing.bin"),
        ("shrink a directory", ("shrink", "classic-bracket", "adir"), "adir"),
        ("shrink target missing", ("shrink", "badmod_missing:parse", "afile"),
         "badmod_missing"),
        ("dict unknown option", ("dict", "--nosuch"), "--nosuch"),
        ("legacy without Atheris", ("classic-bracket", "bracket"), "Atheris"),
    ]
    for name, argv, names in others:
        yield Bad("harness", name, argv, names, _MODULES, entry="harness")


def _subcommands(parser: Any) -> dict[str, Any]:
    import argparse

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


CASES: list[Bad] = [*_option_cases(), *_format_cases(), *_tools_cases(), *_corpus_cases(),
                    *_jsonl_cases(), *_grammar_cases(), *_regex_cases(), *_target_cases(),
                    *_plugin_cases(), *_output_cases(), *_rest_cases(), *_loop_cases(),
                    *_serve_cases(), *_harness_cases()]


# --------------------------------------------------------------------------- running one


class _Hang(BaseException):
    """The time limit of one bad input ran out."""


@dataclass
class Ran:
    """What one bad input did."""

    code: int | None
    stderr: str
    seconds: float
    raised: str | None = None  # the exception main let through (a traceback to a user)
    hung: bool = False


def write_files(root: Path, files: dict[str, Any]) -> None:
    for rel, content in {**BASE_FILES, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == FIFO:
            os.mkfifo(path)
        elif content == DEVZERO:
            path.symlink_to("/dev/zero")
        elif content == DIR:
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def hang(signum: int, frame: Any) -> None:
        raise _Hang()

    old = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_bad(case: Bad, root: Path) -> Ran:
    """Run one bad input through ``main`` in ``root``; nothing it registers outlives it."""
    from reactfuzz.engine.checks import CHECKS
    from reactfuzz.strategies import ABUSES

    write_files(root, case.files)
    before = (set(CHECKS), set(ABUSES), set(sys.modules), list(sys.path))
    cwd, env = os.getcwd(), dict(os.environ)
    err = io.StringIO()
    start = time.perf_counter()
    ran = Ran(None, "", 0.0)
    try:
        os.chdir(root)
        os.environ.update(case.env)
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
                _time_limit(LIMIT):
            try:
                if case.entry == "harness":
                    from reactfuzz.fuzzing.cli import main as harness_main

                    harness_main(list(case.argv))
                ran.code = main(list(case.argv)) if case.entry == "reactfuzz" else 0
            except SystemExit as e:
                ran.code = e.code if isinstance(e.code, int) else 2
    except _Hang:
        ran.hung = True
    except Exception as e:  # what a user would see as a traceback
        ran.raised = f"{type(e).__name__}: {e}"[:300]
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        for name in set(CHECKS) - before[0]:
            CHECKS.remove(name)
        for name in set(ABUSES) - before[1]:
            ABUSES.remove(name)
        for name in set(sys.modules) - before[2]:
            if name.startswith(("badmod_", "tools_mod")):
                del sys.modules[name]
        sys.path[:] = before[3]
    ran.seconds = time.perf_counter() - start
    ran.stderr = err.getvalue()
    return ran


def problems(case: Bad, ran: Ran) -> list[str]:
    """What is wrong with how one bad input was refused (empty: refused well)."""
    out: list[str] = []
    if ran.hung:
        return [f"hung (over {LIMIT:g}s)"]
    if ran.raised:
        return [f"traceback: {ran.raised}"]
    if ran.code != 2:
        out.append(f"exit {ran.code}, not 2")
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    if "Traceback" in ran.stderr:
        out.append("a traceback on stderr")
    if len(lines) != 1:
        out.append(f"{len(lines)} lines on stderr, not 1: {ran.stderr[:300]!r}")
    elif case.names not in lines[0]:
        out.append(f"the line does not name {case.names!r}: {lines[0][:300]!r}")
    elif len(lines[0]) > MAX_LINE:  # a 100 kB tool name is not echoed whole
        out.append(f"the line is {len(lines[0])} characters long, over {MAX_LINE}")
    return out


MAX_LINE = 1000
"""The longest error line a bad input may produce."""


# --------------------------------------------------------------------------- the tests

FAST_SAMPLE = 30
"""Every FAST_SAMPLE-th case runs in the fast tier; the slow tier runs them all."""


def test_the_table_covers_every_input_kind() -> None:
    kinds = {c.kind for c in CASES}
    assert kinds == {"option", "format", "tools", "corpus", "jsonl", "grammar", "regex",
                     "target", "plugin", "output", "harness"}
    assert len(CASES) >= 300
    assert len({c.id for c in CASES}) == len(CASES)


def _options_in_cases(entry: str) -> dict[str, set[str]]:
    """Each subcommand's options that some case of ``entry`` gives (as ``--x`` or ``--x=``)."""
    seen: dict[str, set[str]] = {}
    for c in CASES:
        if c.entry == entry and c.argv:
            seen.setdefault(c.argv[0], set()).update(
                a.split("=")[0] for a in c.argv if a.startswith("-"))
    return seen


@pytest.mark.parametrize("entry", ["reactfuzz", "harness"])
def test_the_table_covers_every_subcommand_and_option(entry: str) -> None:
    """A new option or command without a bad-input case fails here, not in a user's CI."""
    if entry == "reactfuzz":
        from reactfuzz.cli.arguments import build_parser

        parser = build_parser()
    else:
        from reactfuzz.fuzzing.cli import _parser

        parser = _parser()
    seen = _options_in_cases(entry)
    missing = []
    for cmd, sub in _subcommands(parser).items():
        if cmd not in seen:
            missing.append(cmd)
            continue
        for action in sub._actions:
            if action.option_strings and "-h" not in action.option_strings and \
                    not set(action.option_strings) & seen[cmd]:
                missing.append(f"{cmd} {action.option_strings[0]}")
    assert not missing, f"no bad-input case for: {', '.join(missing)}"


@pytest.mark.parametrize("case", CASES[::FAST_SAMPLE], ids=lambda c: c.id)
def test_bad_input_sample(case: Bad, tmp_path: Path) -> None:
    ran = run_bad(case, tmp_path)
    assert not problems(case, ran), (case.argv, ran)


@pytest.mark.slow
def test_every_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    failed: dict[str, list[str]] = {}
    for i, case in enumerate(CASES):
        ran = run_bad(case, tmp_path / str(i))
        if bad := problems(case, ran):
            failed[case.id] = bad
    assert not failed, "\n".join(f"{k}: {v}" for k, v in failed.items())


# --------------------------------------------------------------------------- pytest options

PYTEST_BAD = [
    (("--reactfuzz-max-examples", "-5"), {}, "--reactfuzz-max-examples"),
    (("--reactfuzz-max-examples", "0"), {}, "--reactfuzz-max-examples"),
    (("--reactfuzz-max-examples", "abc"), {}, "--reactfuzz-max-examples"),
    (("--reactfuzz-max-examples", "1.5"), {}, "--reactfuzz-max-examples"),
    (("--reactfuzz-seed", "abc"), {}, "--reactfuzz-seed"),
    (("--reactfuzz-seed", "1.5"), {}, "--reactfuzz-seed"),
    (("--reactfuzz-seed", str(2**70)), {}, "--reactfuzz-seed"),
    ((), {"REACTFUZZ_SEED": "abc"}, "REACTFUZZ_SEED"),
    ((), {"REACTFUZZ_SEED": "1.5"}, "REACTFUZZ_SEED"),
    ((), {"REACTFUZZ_SEED": "nan"}, "REACTFUZZ_SEED"),
    (("--reactfuzz-corpus", "test_one.py"), {}, "--reactfuzz-corpus"),
]


@pytest.mark.parametrize(("argv", "env", "names"), [
    pytest.param(*bad, marks=() if i in (0, 7) else pytest.mark.slow, id=" ".join(
        [*bad[0], *(f"{k}={v}" for k, v in bad[1].items())]))
    for i, bad in enumerate(PYTEST_BAD)])
def test_bad_pytest_option_is_a_usage_error(pytester: pytest.Pytester, argv: tuple[str, ...],
                                            env: dict[str, str], names: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *argv)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if names in line and "error" in line.lower()]


# --------------------------------------------------------------------------- as a user runs it

SUBPROCESS = ["option:fuzz --time-budget '-1'", "tools:fuzz fifo", "corpus:replay file dev-zero",
              "regex:fuzz 0 'a{1000000000}'", "output:fuzz --json a-dir",
              "format:parse label-trailing-newline"]


@pytest.mark.parametrize("case_id", [
    pytest.param(c, marks=() if i == 0 else pytest.mark.slow) for i, c in enumerate(SUBPROCESS)])
def test_bad_input_in_a_subprocess(case_id: str, tmp_path: Path, python_run: Any) -> None:
    case = next(c for c in CASES if c.id == case_id)
    write_files(tmp_path, case.files)
    env = {**os.environ, **case.env, "PYTHONPATH": str(ROOT / "src")}
    r = python_run("-m", "reactfuzz", *case.argv, cwd=tmp_path, env=env, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and case.names in lines[0], r.stderr
    assert "Traceback" not in r.stderr


# --------------------------------------------------------------------------- the bounds themselves


def test_regex_size_counts_written_out_repeats() -> None:
    from reactfuzz.limits import MAX_REGEX_SIZE, regex_size

    assert regex_size(r"^Action:\s*(\w+)\[(.*)\]\s*$") < 30
    assert regex_size(r".{0,1000000}") < 10  # a bound is a loop, not written out
    assert regex_size(r"\{1000000000\}") < 20  # escaped braces are text
    for big in ["a{1000000000}", r"(a{1000}){1000}", r"(?:(?:a{100}){100}){100}",
                "[ab]{200000}", "a{999999,}"]:
        assert regex_size(big) > MAX_REGEX_SIZE, big


def test_special_files_are_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    from reactfuzz.errors import InputFileError
    from reactfuzz.limits import read_user_file

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "big").write_bytes(b"x" * 11)
    for name, says in [("fifo", "a FIFO"), ("zero", "a device"), (".", "a directory"),
                       ("big", "over the limit"), ("missing", "not found")]:
        with pytest.raises(InputFileError, match=says):
            read_user_file(tmp_path / name, "test file", limit=10)
    assert read_user_file(tmp_path / "big", "test file", limit=11) == b"x" * 11


def test_json_depth_and_nan_are_one_line_errors() -> None:
    from reactfuzz.errors import InputFileError
    from reactfuzz.limits import load_json_text

    assert load_json_text(_deep(50), "f") is not None
    for text in [_deep(300), _deep(100000), "[NaN]", '{"a": -Infinity}']:
        with pytest.raises(InputFileError, match=r"^f: "):
            load_json_text(text, "f")
    assert load_json_text("[NaN]", "f", allow_nan=True) != [0]


def test_the_grammar_reads_deep_json_as_invalid_not_a_crash() -> None:
    from reactfuzz.formats.grammars import grammar_parse, parse_transcript

    deep = _deep(1500)
    for fmt, text in [("json-args", f'Action: search{{"q": {deep}}}'),
                      ("tool-call", f'<tool_call>{{"name": "search", "arguments": {{"q": {deep}}}'
                                    "}</tool_call>")]:
        for fast in (True, False):
            step = grammar_parse(text, fmt, fast=fast)
            assert step.invalid is not None and step.invalid.code == "too-deep"
    assert grammar_parse('Action: search{"q": [[1]]}', "json-args").action is not None
    log = f'Thought: x\nAction: search{{"q": {deep}}}\nObservation: y\nAnswer: z'
    assert parse_transcript(log, "json-args").invalid.code == "too-deep"  # type: ignore[union-attr]


def test_a_good_run_still_writes_its_reports_after_the_checks(tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir"
    ran = run_bad(Bad("good", "run", (*FUZZ, "--json", str(out / "r.json"), "--junit",
                                       str(out / "r.xml"), "-q"), ""), tmp_path)
    assert ran.code in (0, 1) and not ran.raised
    assert (out / "r.json").is_file() and (out / "r.xml").is_file()
    assert not list(tmp_path.rglob(".tmp-check-*"))


@pytest.mark.parametrize("ident", ["a:b", ".tmp-x", "x" * 300, "a b", "a\\b", "nul\x00"])
def test_a_bad_check_or_abuse_id_is_refused_where_it_is_registered(ident: str) -> None:
    """Ids name corpus files: the library refuses a bad one as the CLI does."""
    from reactfuzz.engine.checks import check
    from reactfuzz.errors import UsageError
    from reactfuzz.strategies.catalogue import register_abuse

    with pytest.raises(UsageError):
        check(ident, "a check")
    with pytest.raises(UsageError):
        register_abuse(ident, family="x", description="d", why="w", expects="e")
