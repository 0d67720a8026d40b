"""A slow parse is one bug per place its time goes: keyed by the function a profile puts it in.

Every slow parse of a parser used to share one bug key ("slow parse"), so a second
quadratic mechanism of the same parser was folded into the first finding and never shown.
The parse is now run again under a sampling profiler (``targets.origin.sampled_call``):
the function of the target's code that holds most samples keys the finding, and its
busiest line is the line the report shows.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.targets import function_target
from reactfuzz.targets.origin import last_hot, sampled_call

# two quadratic mechanisms in one parser, each in a function of its own: a long thought
# and a long argument (sleeps, so the time and where it goes do not depend on the machine)
TWO_SLOW = '''
import re, time

def slow_thought(thought):
    time.sleep(0.03 * (len(thought) / 16384) ** 2)

def slow_argument(argument):
    time.sleep(0.03 * (len(argument) / 16384) ** 2)

def parse(completion):
    m = re.search(r"^Action: (\\w+)\\[(.*)\\]\\s*$", completion, re.M | re.S)
    head = completion[:m.start()] if m else completion
    if len(head) > 4096:
        slow_thought(head)
    if m is None:
        raise ValueError("no action")
    if len(m.group(2)) > 4096:
        slow_argument(m.group(2))
    return ("action", (m.group(1), {"query": m.group(2)}))
'''


def _busy(seconds: float) -> None:
    time.sleep(seconds)


def test_the_profile_names_the_function_the_time_goes_to() -> None:
    def parse(text: str) -> str:
        _busy(0.05)
        return text

    assert sampled_call(lambda: parse("a")) == "a"
    hot = last_hot()
    assert hot is not None and hot.function == "_busy" and hot.file.endswith(
        "test_slow_keys.py")
    assert "time.sleep" in hot.code


def _scan(text: str) -> list[str]:
    return re.findall(r"<a>(.*?)</a>", text, re.S)  # from every unclosed <a> to the end


def _spin(seconds: float) -> None:
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pass


def test_time_inside_one_long_regex_call_counts_for_the_line_that_called_it() -> None:
    # the regex holds the interpreter for its whole call (a few tenths of a second): no
    # sample lands inside it, while a tenth of a second of Python loop takes hundreds
    def parse(text: str) -> list[str]:
        _spin(0.05)
        return _scan(text)

    assert sampled_call(lambda: parse("<a>" * 3000)) == []
    hot = last_hot()
    assert hot is not None and hot.function == "_scan" and "findall" in hot.code


def test_the_profile_is_kept_when_the_parse_raises() -> None:
    def parse(text: str) -> str:
        _busy(0.03)
        raise KeyError(text)

    try:
        sampled_call(lambda: parse("a"))
    except KeyError:
        pass
    hot = last_hot()
    assert hot is not None and hot.function == "_busy"
    assert sys.getswitchinterval() > 0.001  # the interval the profile shortened is back


def test_a_worker_target_profiles_in_its_own_process(tmp_path: Path) -> None:
    (tmp_path / "two_slow_worker.py").write_text(TWO_SLOW)
    with function_target("two_slow_worker:parse", "bracket", cwd=tmp_path) as target:
        thought = target.hotspot("Thought: " + "a " * 8000 + "\nAction: search[a]")
        argument = target.hotspot("Thought: a\nAction: search[" + "a " * 8000 + "]")
        quick = target.hotspot("Thought: a\nAction: search[a]")
    assert thought is not None and thought.function == "slow_thought"
    assert argument is not None and argument.function == "slow_argument"
    assert quick is None  # no sample: nothing to key on


def test_two_slow_mechanisms_of_one_parser_are_two_findings(tmp_path: Path) -> None:
    (tmp_path / "two_slow.py").write_text(TWO_SLOW)
    config = FuzzConfig(targets=["two_slow:parse"], format="bracket", cwd=str(tmp_path),
                        checks=["bounded-time"],
                        abuses=["size.long-thought", "size.long-argument"],
                        seed=1, max_examples=30, time_limit=0.1, format_fit=False,
                        replay_corpus=False)
    findings = run_fuzz(config).findings
    where = sorted(f.origin.hot.function for f in findings
                   if f.origin is not None and f.origin.hot is not None)
    assert where == ["slow_argument", "slow_thought"], [
        json.dumps(f.model_dump(mode="json"))[:300] for f in findings]
    for f in findings:
        assert f.signature.startswith("slow parse @ time in two_slow.py:")
        assert f.origin is not None and f.origin.describe().startswith(
            "time spent at two_slow.py:")


# a tag-format reader whose lexer slices the rest of the text at every '<': quadratic in an
# answer (or argument) dense in tags, the shape of vLLM 0.34's shared parser-engine lexer
# (sleeps again: 0.09 s for 16 kB of HTML rows, a sixteenth of that for its quarter)
LEXER = '''
import json, time

def lex(text):
    time.sleep(0.03 * (text.count("<") / 1500) ** {power})

def parse(completion):
    lex(completion)
    if "<tool_call>" in completion:
        body = completion.split("<tool_call>")[1].split("</tool_call>")[0]
        call = json.loads(body)
        return ("action", (call["name"], call["arguments"]))
    return ("final", completion.rpartition("</think>")[2].strip())
'''


def _long_text_findings(power: int, module: str, tmp_path: Path) -> list[str]:
    (tmp_path / f"{module}.py").write_text(LEXER.format(power=power))
    config = FuzzConfig(targets=[f"{module}:parse"], format="tool-call", cwd=str(tmp_path),
                        checks=["bounded-time"], abuses=["size.long-domain-text"], seed=1,
                        time_limit=0.1, format_fit=False, replay_corpus=False)
    return [f.completion for f in run_fuzz(config).findings]


def test_a_long_markup_text_times_a_lexer_quadratic_in_its_tags(tmp_path: Path) -> None:
    found = _long_text_findings(2, "lexer_quadratic", tmp_path)
    assert len(found) == 1 and found[0].count("<") > 1500
    assert _long_text_findings(1, "lexer_linear", tmp_path) == []


# a parser whose second parse of a text runs out of time (a loaded machine, a slow parser
# near its limit): the streamed reading is not a reading at all
SECOND_PARSE_SLOW = '''
import time
calls = {}

def parse(completion):
    n = calls[completion] = calls.get(completion, 0) + 1
    if n == 2:
        time.sleep(0.5)
    if "Answer:" in completion:
        return ("final", completion.rpartition("Answer:")[2].strip())
    raise ValueError("no answer")
'''


def test_a_streamed_parse_that_ran_out_of_time_is_no_stream_variance(tmp_path: Path) -> None:
    (tmp_path / "second_slow.py").write_text(SECOND_PARSE_SLOW)
    config = FuzzConfig(targets=["second_slow:parse"], format="bracket", cwd=str(tmp_path),
                        checks=["stream-invariance"], abuses=["clean.render"], seed=1,
                        max_examples=5, time_limit=0.1, format_fit=False,
                        replay_corpus=False)
    assert run_fuzz(config).findings == []
