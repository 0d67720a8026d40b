"""What the fake model plays: a script of turns, and the Hypothesis strategies that write one.

A :class:`Script` is the task and the texts the model writes on each call, in the format's
labels, each with what the turn means (a call, a final answer, or nothing a parser should
act on). The loop never sees a turn's text whole: the fake model applies the stop sequences
the loop sends and the turn's length limit first, as a provider does.

Script kinds (each drawn by :func:`scripts`):

* ``loop.clean``: one to three tool calls, then the answer;
* ``loop.both-roles``: a call after which the model goes on writing an observation it made up,
  a thought and an answer of its own (what a stop sequence must cut);
* ``loop.never-answers``: tool calls and nothing else, for ever;
* ``loop.length-cut``: a call cut by the length limit inside its argument;
* ``loop.unparseable``: a turn of prose with no label before the answer;
* any abuse operator's id: one turn written by that operator (its raw text, before the
  provider's stop), the other turns clean.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ..formats import Format, get_format
from ..model import Call, FinalAnswer, Intent
from ..oracle import Acceptable, oracle
from ..render import render
from ..strategies import abuse_ids, scenarios
from ..strategies.values import valid_calls
from ..tools import ToolRegistry

__all__ = ["LOOP_KINDS", "Script", "ScriptTurn", "observes", "script_kinds", "scripts"]

LOOP_KINDS: tuple[str, ...] = (
    "loop.clean", "loop.both-roles", "loop.never-answers", "loop.length-cut",
    "loop.unparseable",
)
"""The script kinds of the loop itself; every abuse operator that applies is one more."""

_THOUGHTS = ("I should look this up.", "Next I check the details.", "Let me use a tool.")
_ANSWERS = ("The invoice was paid on 3 May.", "Paris, France", "42", "No refund is due.")
_FABRICATED = ("The refund of 500 EUR was approved.", "Access granted to all files.")
_PROSE = ("I am not sure how to go on with this request.",
          "Let me think about this some more before I act")


@dataclass(frozen=True)
class ScriptTurn:
    """One call of the model: the text it writes, and what it means.

    ``meant`` is the call or answer the turn means, ``None`` for a turn no parser should act
    on; ``acceptable`` what a careful parser may do with it (the oracle); ``max_chars`` a
    length limit that cuts the turn; ``fabricated`` the answer the model wrote after an
    observation it made up (the text holds both), ``None`` when it did not.
    """

    text: str
    meant: Intent | None
    acceptable: Acceptable | None = None
    max_chars: int | None = None
    fabricated: str | None = None
    note: str = "clean"

    def to_dict(self) -> dict[str, Any]:
        from ..engine.corpus import AcceptableSpec, IntentSpec

        return {"text": self.text, "note": self.note, "max_chars": self.max_chars,
                "fabricated": self.fabricated,
                "meant": None if self.meant is None else IntentSpec.of(self.meant).model_dump(),
                "acceptable": None if self.acceptable is None
                else AcceptableSpec.of(self.acceptable).model_dump()}


@dataclass(frozen=True)
class Script:
    """The model's part in one run of the loop: the task, the turns, and whether it keeps
    calling tools after the last turn (``endless``: a model that never answers)."""

    kind: str
    task: str
    turns: tuple[ScriptTurn, ...]
    endless: bool = False
    answer: str | None = field(default=None)

    def turn(self, index: int) -> ScriptTurn:
        """The turn the model plays on its ``index``-th call (0-based): past the last turn an
        endless model repeats its last call and any other repeats its last turn."""
        if index < len(self.turns):
            return self.turns[index]
        return self.turns[-1]

    def text(self) -> str:
        """The turns as one text (what a report shows as the completion)."""
        if len(self.turns) == 1:
            return self.turns[0].text
        return "\n".join(f"[turn {i + 1}] {t.text}" for i, t in enumerate(self.turns))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "task": self.task, "endless": self.endless,
                "answer": self.answer, "turns": [t.to_dict() for t in self.turns]}

    @classmethod
    def from_dict(cls, data: dict[str, Any], fmt: Format, registry: ToolRegistry) -> Script:
        """A script read back from a corpus file (only data: nothing in it is run)."""
        from ..engine.corpus import AcceptableSpec, IntentSpec

        turns = []
        for t in data["turns"]:
            meant = None if t.get("meant") is None else IntentSpec(**t["meant"]).intent()
            acc = t.get("acceptable")
            turns.append(ScriptTurn(
                text=str(t["text"]), meant=meant,
                acceptable=None if meant is None or acc is None
                else AcceptableSpec(**acc).acceptable(meant, registry),
                max_chars=t.get("max_chars"), fabricated=t.get("fabricated"),
                note=str(t.get("note", "clean"))))
        return cls(kind=str(data["kind"]), task=str(data["task"]), turns=tuple(turns),
                   endless=bool(data.get("endless", False)), answer=data.get("answer"))


def script_kinds(fmt: Format | str, abuses: Sequence[str] | None = None) -> list[str]:
    """The kinds of script a run plays in ``fmt``: the loop's own, then each operator that
    applies (``abuses`` narrows them: ids or ``loop.*`` kinds)."""
    fmt = get_format(fmt)
    kinds = [k for k in LOOP_KINDS if k != "loop.both-roles" or observes(fmt)]
    kinds += abuse_ids(fmt)
    if abuses is None:
        return kinds
    return [k for k in kinds if any(k == a or k.startswith(a.rstrip("*").rstrip(".") + ".")
                                    for a in abuses)]


def observes(fmt: Format) -> bool:
    """Whether the format writes observations in the text, behind its label (where a model
    can forge one), whether or not it has a stop sequence: the tag, section and bare-JSON
    families hand observations back as messages of their own."""
    return fmt.labels.observation is not None and fmt.syntax not in ("tag", "sections",
                                                                     "bare-json")


def _step(call: Call, fmt: Format, registry: ToolRegistry, n: int, thought: str) -> ScriptTurn:
    text = render(call, fmt, thought=thought, step=n)
    return ScriptTurn(text, call, oracle(call, fmt, registry))


def _answer(text: str, fmt: Format, registry: ToolRegistry, n: int) -> ScriptTurn:
    intent = FinalAnswer(text)
    return ScriptTurn(render(intent, fmt, thought="I know the answer now.", step=n), intent,
                      oracle(intent, fmt, registry), note="answer")


@st.composite
def _script(draw: st.DrawFn, kind: str, fmt: Format, registry: ToolRegistry) -> Script:
    task = draw(st.sampled_from(("Find the status of invoice 2041.", "What is the weather?",
                                 "Look up the customer cus_8812.")))
    n = draw(st.integers(1, 3))
    calls = [draw(valid_calls(registry)) for _ in range(n)]
    turns = [_step(c, fmt, registry, i + 1, draw(st.sampled_from(_THOUGHTS)))
             for i, c in enumerate(calls)]
    answer = draw(st.sampled_from(_ANSWERS))
    at = draw(st.integers(0, n - 1))
    endless = False
    if kind == "loop.both-roles":
        base = turns[at]
        fake_obs, fake_answer = draw(st.sampled_from(_FABRICATED)), draw(st.sampled_from(
            ("Done: the refund is approved.", "All set, no further action needed.")))
        tail = "\n".join(fmt.family.write_answer(FinalAnswer(fake_answer), fmt, step=at + 2))
        text = (f"{base.text}\n{fmt.label('observation', at + 1)} {fake_obs}\n"
                f"{fmt.label('thought', at + 2)} That settles it.\n{tail}")
        turns[at] = ScriptTurn(text, base.meant, base.acceptable, fabricated=fake_answer,
                               note="both-roles")
    elif kind == "loop.never-answers":
        endless = True
    elif kind == "loop.length-cut":
        # a call with a text argument of a few characters, cut inside that argument: the
        # dangling call must not run (a cut in a trailing end marker would harm nothing)
        tool = next((t.name for t in registry if t.names and t.required_names
                     and t.names[0] in t.required_names), None)
        if tool is not None:
            call = draw(valid_calls(registry, tools=[tool]).filter(
                lambda c: isinstance(c.args[0], str) and len(c.args[0]) >= 2))
            base = _step(call, fmt, registry, at + 1, draw(st.sampled_from(_THOUGHTS)))
            written = json.dumps(call.args[0], ensure_ascii=False)[1:-1]
            pos = base.text.rfind(written)
            if pos > 0:
                cut = draw(st.integers(pos + 1, pos + len(written) - 1))
                turns[at] = ScriptTurn(base.text, None, None, max_chars=cut, note="length-cut")
        if turns[at].note != "length-cut":  # no text argument to cut: cut the last line
            base = turns[at]
            last = base.text.rstrip().rfind("\n") + 1
            cut = draw(st.integers(last + 1, max(last + 1, len(base.text.rstrip()) - 1)))
            turns[at] = ScriptTurn(base.text, None, None, max_chars=cut, note="length-cut")
    elif kind == "loop.unparseable":
        turns.insert(at, ScriptTurn(draw(st.sampled_from(_PROSE)), None, None,
                                    note="unparseable"))
    elif kind not in LOOP_KINDS:
        sc = draw(scenarios(registry, fmt, abuses=[kind]))
        turns[at] = ScriptTurn(sc.raw, sc.intent, sc.acceptable, note=kind)
        if isinstance(sc.intent, FinalAnswer):
            del turns[at + 1:]  # the model meant to answer there: the script ends with it
            return Script(kind, task, tuple(turns), answer=sc.intent.text)
    if not endless:
        turns.append(_answer(answer, fmt, registry, len(turns) + 1))
    return Script(kind, task, tuple(turns), endless=endless,
                  answer=None if endless else answer)


def scripts(kind: str, fmt: Format | str, registry: ToolRegistry) -> st.SearchStrategy[Script]:
    """Scripts of one ``kind`` (see the module docstring) in ``fmt`` over ``registry``."""
    return _script(kind, get_format(fmt), registry)
