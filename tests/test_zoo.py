"""The zoo of real parsers: every adapter reads its own format, and the known defects are found.

The zoo (``zoo/`` at the top of the checkout, ``docs/zoo.md``) wraps parsers of agent
frameworks from PyPI. The fast tests hold its tables together without any framework; the
fuzz runs need the ``zoo`` extra (``pip install -e '.[zoo]'``) and are skipped, saying so,
where a framework is not installed, or where the parser's protocol has no format yet.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reactfuzz.formats import get_format

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the zoo package sits at the top of the checkout
    sys.path.insert(0, str(ROOT))

from zoo import ZOO, ZooParser  # noqa: E402
from zoo.run import RunResult, format_path, fuzz  # noqa: E402
from zoo.triage import TRIAGE, classify  # noqa: E402

MODULES = {p.module: p for p in ZOO}


def _ready(parser: ZooParser) -> None:
    """Skip, with the reason, unless the parser's framework and format are both there."""
    if importlib.util.find_spec(parser.imports) is None:
        pytest.skip(f"{parser.framework} is not installed (pip install -e '.[zoo]')")
    if parser.format is None or parser.waiting:
        pytest.skip(f"no format yet: waiting for {parser.waiting}")


@cache
def _run(module: str, scale: str, out: Path) -> RunResult:
    return fuzz(MODULES[module], scale, out)


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("zoo-runs")


# ------------------------------------------------------------------ the tables (fast)


@pytest.mark.parametrize("parser", ZOO, ids=lambda p: p.module)
def test_every_zoo_parser_has_a_module_and_a_format_or_a_reason(parser: ZooParser) -> None:
    assert (ROOT / "zoo" / f"{parser.module}.py").is_file()
    if parser.format is None or parser.waiting:
        assert parser.waiting, "a parser without a format says which family it waits for"
    else:
        assert get_format(format_path(parser)).name


def test_every_zoo_format_file_is_used_and_loads_once_ready() -> None:
    used = {p.format: p for p in ZOO if p.format}
    for path in sorted((ROOT / "zoo" / "formats").glob("*.toml")):
        assert path.name in used, f"{path.name} is no zoo parser's format"
        if not used[path.name].waiting:
            assert get_format(str(path)).name == path.stem


def test_triage_rows_name_zoo_parsers_and_known_classes() -> None:
    for row in TRIAGE:
        assert row.module in MODULES, row
        assert row.klass in ("defect", "judgement", "false-alarm"), row
        assert row.mechanism, row


# ------------------------------------------------------------------ the runs (slow)


@pytest.mark.slow
@pytest.mark.parametrize("parser", ZOO, ids=lambda p: p.module)
def test_adapter_accepts_every_clean_rendering(parser: ZooParser, runs_dir: Path) -> None:
    _ready(parser)
    result = _run(parser.module, "default", runs_dir)
    clean = [op for op in result.report["operators"] if op["abuse"] == "clean.render"]
    assert clean and clean[0]["examples"] > 0
    known = [r for r in TRIAGE if r.module == parser.module and r.abuse == "clean.render"]
    failed = [f for f in result.findings if f["abuse"] == "clean.render"]
    if known and failed:
        # triaged: the framework's documented answer, or a reactfuzz false alarm to fix
        assert all(any(f["check"] == r.check for r in known) for f in failed), failed
        pytest.xfail("; ".join(f"{r.klass} {r.bug}: {r.mechanism}" for r in known))
    assert result.clean_failures() == 0, [f["completion"] for f in failed]


TEN_X = {
    # found by the 10x run only (docs/zoo.md): a rare combination of piece and writing, a
    # quadratic parse that only the longer inputs of a larger budget make slow enough to
    # time beside its quarter, or a nesting deeper than C json's recursion
    ("camel_function", "camel-function-quadratic"): "size.repeated-call-start",
    ("griptape_actions", "griptape-actions-quadratic"): "size.repeated-call-start",
    ("camel_hermes", "camel-hermes-quadratic"): "size.repeated-call-start",
    ("sglang_qwen3_coder", "sglang-qwen3-coder-quadratic"): "size.repeated-call-start",
    ("qwen_react", "qwen-json5-fallback-surrogates"): "content.lenient-json",
    ("dspy_chat", "json-repair-surrogate-pairs"): "content.lenient-json",
    ("dspy_chat", "json-repair-kept-escape"): "content.lenient-json",
    ("dspy_chat", "json-repair-deep-recursion"): "size.deep-nesting",
    ("camel_function", "camel-function-deep-recursion"): "size.deep-nesting",
    ("xinference_qwen", "xinf-qwen-quadratic"): "size.repeated-call-start",
    ("xinference_minimax", "xinf-minimax-quadratic"): "size.repeated-call-start",
    ("xinference_qwen", "xinf-tag-in-string"): "content.mixed-text",
    ("xinference_llama3", "llama3-literal-eval-json-escapes"): "content.lenient-json",
    ("vllm_hermes", "vllm-hermes-tag-in-string"): "content.mixed-text",
    ("vllm_llama3", "vllm-llama3-recursion-escapes"): "size.deep-nesting",
    ("vllm_minimax", "vllm-engine-lexer-quadratic"): "size.long-domain-text",
}
DEFECTS = sorted({(row.module, row.bug) for row in TRIAGE if row.klass == "defect"} - set(TEN_X))


def _finds(found: list[dict[str, Any]], module: str, bug: str) -> None:
    # pinned by check and mechanism (the operator that writes it), not by exact text: the
    # finding is classified as the docs' tables classify it
    rows = [r for r in TRIAGE if r.module == module and r.bug == bug]
    assert any(classify(module, f)[1] == bug for f in found), \
        f"{bug}: no finding from {[r.abuse for r in rows]}"


@pytest.mark.slow
@pytest.mark.parametrize(("module", "bug"), DEFECTS, ids=lambda x: str(x))
def test_default_run_finds_the_real_defect(module: str, bug: str, runs_dir: Path) -> None:
    _ready(MODULES[module])
    _finds(_run(module, "default", runs_dir).findings, module, bug)


@pytest.mark.slow
@pytest.mark.parametrize(("module", "bug"), sorted(TEN_X), ids=lambda x: str(x))
def test_ten_times_the_budget_finds_the_deeper_bug(module: str, bug: str,
                                                   runs_dir: Path) -> None:
    """The operator that reaches it, alone, at the 10x budget (as the 10x run does)."""
    _ready(MODULES[module])
    result = fuzz(MODULES[module], "10x", runs_dir, abuses=(TEN_X[module, bug],))
    _finds(result.findings, module, bug)
