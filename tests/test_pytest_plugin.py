"""The pytest integration, run the way a user's suite runs it (pytester)."""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]

BROKEN = '''
import re

def parse(text):
    if "Answer:" in text:
        return ("final", text.split("Answer:")[-1].strip())
    m = re.search(r"^Action:\\s*(\\w+)\\[(.*)\\]\\s*$", text, re.MULTILINE)
    return ("action", (m.group(1), [a.strip() for a in m.group(2).split(",")]))
'''

SUITE = '''
from reactfuzz.testing import parser_suite

TestAgent = parser_suite("agent:parse", format="bracket",
                         checks=["no-crash", "no-hijacked-answer", "bounded-time"],
                         abuses=["injected.answer-label-in-thought", "clean.render", "label.case"],
                         max_examples=10)
'''


def test_one_line_suite_collects_one_test_per_check(pytester) -> None:
    pytester.makepyfile(agent=BROKEN, test_agent=SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--reactfuzz-seed", "5", "-v")
    result.stdout.fnmatch_lines([
        "reactfuzz: seed 5 (rerun with --reactfuzz-seed 5)",
        "*TestAgent::test_no_crash FAILED*",
        "*TestAgent::test_no_hijacked_answer FAILED*",
        "*TestAgent::test_bounded_time PASSED*",
    ])
    result.stdout.fnmatch_lines([
        "*finding(s) of no-hijacked-answer against agent:parse (seed 5;"
        " rerun with --reactfuzz-seed 5)*",
    ])
    # each finding: how to replay it, and a test to paste (no corpus: the finding inline)
    result.stdout.fnmatch_lines(["    replay: reactfuzz fuzz --target agent:parse *--seed 5*",
                                 "    a test for your suite (passes once the parser is fixed):",
                                 "        def test_no_*",
                                 "            from reactfuzz.testing import assert_fixed",
                                 "            assert_fixed('{*, target='agent:parse')"])
    result.assert_outcomes(passed=1, failed=2)


def test_a_fixed_parser_passes(pytester) -> None:
    fixed = textwrap.dedent('''
        from reactfuzz.parsers import get_parser
        _grammar = get_parser("grammar", "bracket")

        def parse(text):
            return _grammar.parse(text)
    ''')
    pytester.makepyfile(agent=fixed, test_agent=SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_options_are_in_one_group(pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*property tests of agent parsers*", "*--reactfuzz-seed*",
                                 "*--reactfuzz-max-examples*", "*--reactfuzz-corpus*"])


def test_seed_header_reads_the_environment(pytester, monkeypatch) -> None:
    monkeypatch.setenv("REACTFUZZ_SEED", "17")
    pytester.makepyfile(test_nothing="def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["reactfuzz: seed 17 (rerun with --reactfuzz-seed 17)"])
    result.assert_outcomes(passed=1)


def test_default_seed_matches_the_testing_module() -> None:
    from reactfuzz import pytest_plugin, testing

    assert pytest_plugin._DEFAULT_SEED == testing.DEFAULT_SEED


def test_plugin_loads_nothing_heavy(python_run) -> None:
    # the plugin is loaded in every pytest session where reactfuzz is installed
    code = (
        "import sys, reactfuzz.pytest_plugin;"
        "heavy = {'hypothesis', 'lark', 'pydantic', 'regex'};"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy"
        " or m.startswith('reactfuzz.') and m != 'reactfuzz.pytest_plugin'))"
    )
    r = python_run("-c", code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.slow  # three pytest sessions: about 2 s
def test_a_failure_shows_the_replay_command_and_a_test_to_paste(pytester) -> None:
    """Each finding in a failure comes with its replay command and a test function; pasted
    into the suite, the test fails against the broken parser and passes on a fixed one.
    Nothing is left in a ``.hypothesis`` folder."""
    pytester.makepyfile(agent=BROKEN, test_agent=SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--reactfuzz-seed", "5",
                                "--reactfuzz-corpus", "corpus")
    out = result.stdout.str()
    assert "    replay: reactfuzz replay corpus/no-hijacked-answer-" in out
    assert "--target agent:parse" in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("        def test_"))
    body = [lines[start]]
    for line in lines[start + 1:]:
        if line and not line.startswith("            "):
            break
        body.append(line)
    pasted = textwrap.dedent("\n".join(body)) + "\n"
    assert "assert_fixed('corpus/" in pasted and "target='agent:parse'" in pasted
    pytester.makepyfile(test_pasted=pasted)
    again = pytester.runpytest("-p", "no:cacheprovider", "test_pasted.py")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["*still reproduces*"])
    fixed = textwrap.dedent('''
        from reactfuzz.parsers import get_parser
        _grammar = get_parser("grammar", "bracket")

        def parse(text):
            return _grammar.parse(text)
    ''')
    pytester.makepyfile(agent=fixed)
    pytester.runpytest("-p", "no:cacheprovider", "test_pasted.py").assert_outcomes(passed=1)
    assert not (pytester.path / ".hypothesis").exists()


def test_a_finding_without_a_corpus_is_pasted_inline() -> None:
    """Without a corpus the test carries the finding itself: it compiles, names the
    target, and replays against it."""
    from reactfuzz.engine import FuzzConfig, run_fuzz
    from reactfuzz.testing import assert_fixed, regression_test

    run = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=5,
                              abuses=["injected.second-action"], checks=["no-wrong-call"]))
    finding = run.findings[0]
    source = regression_test(finding)
    compile(source, "<pasted>", "exec")
    assert "assert_fixed('{" in source and "target='classic-bracket'" in source
    namespace: dict = {}
    exec(compile(source, "<pasted>", "exec"), namespace)  # the test text, not model text
    test = next(v for k, v in namespace.items() if k.startswith("test_"))
    with pytest.raises(AssertionError, match="still reproduces"):
        test()
    assert_fixed(finding, target="grammar")  # the grammar parser does not repeat it
