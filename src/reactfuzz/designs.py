"""Designs: a format, a parser and a dispatcher together -- what an agent actually ships.

The built-in designs are the ones the toolkit compares: the classic loops (regex parser
+ positional dispatch), the hardened regex with typed dispatch, and the grammar with typed
dispatch in a bracket and in a JSON format. :func:`decision_table` runs the abuses that
decide between a parser and a schema through each of them; ``docs/concepts.md`` shows
that table, written by ``python -m reactfuzz.docgen`` (a test keeps it current).

:func:`decide` is how every part of reactfuzz turns one completion into an outcome (parse
once, then dispatch): the designs here, each step of the ReAct loop, and the engine's
example pipeline, which adds the oracle's verdict and the checks on top. :class:`Reading`
is the format's reference reading of a completion (grammar + typed dispatch), computed on
first use and at most once, for whoever needs it (the oracle's cause, the checks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .dispatch import Crashed, Dispatcher, Outcome, bind_typed, get_dispatcher
from .errors import ReactfuzzError
from .formats import FAMILIES, Format, get_format
from .formats.grammars import grammar_parse
from .model import Call, Intent, Step
from .oracle import STRICT, Policy, Verdict, judge, oracle
from .parsers import get_parser
from .render import render
from .tools import ToolRegistry, default_registry

__all__ = [
    "BUILTIN_DESIGNS",
    "DECISION_CASES",
    "DESIGN_ALIASES",
    "Decision",
    "Design",
    "ParserFailed",
    "Reading",
    "Trial",
    "decide",
    "decision_table",
    "design_name",
]


class ParserFailed(Exception):
    """A parser failure already described as data (a worker's crash, a timeout).

    Raised by a parse function handed to :func:`decide`, it becomes a ``crashed`` outcome
    named ``exc_type`` rather than one named after this class.
    """

    def __init__(self, exc_type: str, message: str) -> None:
        super().__init__(f"{exc_type}: {message}")
        self.exc_type = exc_type
        self.message = message


@dataclass(frozen=True)
class Decision:
    """What a design made of one completion: the Step (``None`` if parsing failed) and the
    Outcome."""

    step: Step | None
    outcome: Outcome


def decide(
    text: str, parse: Callable[[str], Step], dispatch: Dispatcher, registry: ToolRegistry
) -> Decision:
    """Parse ``text`` once and dispatch the Step against ``registry``.

    An exception from the parser or the dispatcher is the design crashing (a ``crashed``
    outcome), except reactfuzz's own usage errors, which are the caller's to see.
    """
    try:
        step = parse(text)
    except ReactfuzzError:
        raise
    except ParserFailed as e:
        return Decision(None, Crashed(e.exc_type, e.message))
    except Exception as e:
        return Decision(None, Crashed(type(e).__name__, str(e)))
    try:
        return Decision(step, dispatch(step, registry))
    except ReactfuzzError:
        raise
    except Exception as e:
        return Decision(step, Crashed(type(e).__name__, str(e)))


class Reading:
    """The format's reference reading of one completion, each part computed once, on use.

    ``step`` is the grammar's Step; ``outcome`` is what typed dispatch makes of it
    (nothing runs). A caller that already holds the grammar's Step (the grammar is the
    parser under test) hands it in and no second parse happens.
    """

    def __init__(self, completion: str, fmt: Format, registry: ToolRegistry,
                 step: Step | None = None) -> None:
        self.completion = completion
        self.fmt = fmt
        self.registry = registry
        self._step = step
        self._outcome: Outcome | None = None

    @property
    def parsed(self) -> bool:
        """Whether the grammar's Step is at hand (given, or parsed already)."""
        return self._step is not None

    @property
    def step(self) -> Step:
        """The grammar's Step (parsed on first use)."""
        if self._step is None:
            self._step = grammar_parse(self.completion, self.fmt)
        return self._step

    def outcome(self) -> Outcome:
        """What typed dispatch decides for the grammar's Step (bound on first use)."""
        if self._outcome is None:
            self._outcome = bind_typed(self.step, self.registry)
        return self._outcome


@dataclass(frozen=True)
class Design:
    """A format, the parser that reads it and the dispatcher that acts on the Step."""

    name: str
    format: str
    parser: str
    dispatcher: str
    description: str = ""

    @property
    def fmt(self) -> Format:
        """The design's Format."""
        return get_format(self.format)

    def decide(self, completion: str, registry: ToolRegistry) -> Decision:
        """Parse and dispatch one completion (see :func:`decide`)."""
        return decide(completion, get_parser(self.parser, self.fmt).parse,
                      get_dispatcher(self.dispatcher), registry)

    def run(self, completion: str, registry: ToolRegistry) -> tuple[Step | None, Outcome]:
        """Parse and dispatch one completion: the Step and the Outcome."""
        d = self.decide(completion, registry)
        return d.step, d.outcome


BUILTIN_DESIGNS: dict[str, Design] = {
    d.name: d
    for d in [
        Design("classic-bracket", "bracket", "classic-bracket", "positional",
               "tutorial loop: regex, split on commas, call positionally"),
        Design("classic-unanchored", "bracket", "classic-unanchored", "positional",
               "unanchored regex anywhere in the text, positional call"),
        Design("classic-action-input", "action-input", "classic-action-input", "positional",
               "MRKL regexes, the input passed as one positional argument"),
        Design("hardened-bracket", "bracket", "hardened-bracket", "typed",
               "careful regex, then schema validation"),
        Design("grammar-bracket", "bracket", "grammar", "typed",
               "the bracket grammar, then schema validation"),
        Design("grammar-json-args", "json-args", "grammar", "typed",
               "named JSON arguments, the grammar, then schema validation"),
        Design("grammar-paper", "paper", "grammar", "typed",
               "the paper grammar (one argument), then schema validation"),
        Design("grammar-action-input", "action-input", "grammar", "typed",
               "the action-input grammar (one argument), then schema validation"),
    ]
}

# The newer families: each format whose family declares its classic parser (the family's
# usual mistake, the tool called as ``tool(**args)``), then each one's grammar with schema
# validation.
_FAMILY_DESIGNS: tuple[tuple[str, str], ...] = tuple(
    (fmt, mistake) for family in FAMILIES.values() for fmt, mistake in family.classic.items())
for _fmt, _mistake in _FAMILY_DESIGNS:
    BUILTIN_DESIGNS[f"classic-{_fmt}"] = Design(
        f"classic-{_fmt}", _fmt, f"classic-{_fmt}", "positional", f"{_mistake}; tool(**args)")
for _fmt, _ in _FAMILY_DESIGNS:
    BUILTIN_DESIGNS[f"grammar-{_fmt}"] = Design(
        f"grammar-{_fmt}", _fmt, "grammar", "typed",
        f"the {_fmt} grammar, then schema validation")
del _fmt, _mistake

DESIGN_ALIASES: dict[str, str] = {
    "classic": "classic-bracket", "hardened": "hardened-bracket",
    "grammar": "grammar-bracket", "json-args": "grammar-json-args",
}
"""Names the designs had before each took its parser's name (``reactfuzz parsers``): a
classic or hardened design is named after its parser, a grammar design ``grammar-FORMAT``.
``--design`` still takes the old names."""


def design_name(name: str) -> str:
    """A design's name as ``BUILTIN_DESIGNS`` keys it, the old names read as their new ones."""
    return DESIGN_ALIASES.get(name, name)


@dataclass(frozen=True)
class Trial:
    """One intent written in one design's format, and what the design did with it."""

    case: str
    design: str
    completion: str
    step: Step | None
    outcome: Outcome
    verdict: Verdict


# The abuses that decide between a parser and a schema, on the default registry.
# (case id, what the model meant); a case id ending in "(quoted)" is written with the
# bracket format's JSON-string quoting, the way a model told to quote would write it.
DECISION_CASES: list[tuple[str, Intent]] = [
    ("valid call", Call.named("list_invoices", customer_id="cus_8812", since="2026-07-01")),
    ("malformed: a date that is not a date",
     Call.named("list_invoices", customer_id="cus_8812", since="last July")),
    ("malformed: an id that breaks its pattern", Call.named("get_charge", charge_id="INV-2041")),
    ("malformed: path traversal", Call.named("read_file", path="../../etc/passwd")),
    ("missing: a required argument left out", Call.named("list_invoices", customer_id="cus_8812")),
    ("missing: the only argument left out", Call.named("get_charge")),
    ("undeclared: one argument too many",
     Call.named("get_charge", charge_id="ch_1", expand="true")),
    ("comma inside the only argument", Call.named("search", query="Paris, France")),
    ("comma inside, optional parameter after", Call.named("get_weather", city="Paris, France")),
    ("comma inside, optional string after",
     Call.named("send_email", to="bob@example.com", subject="Hi, Bob")),
    ("comma inside, optional string after (quoted)",
     Call.named("send_email", to="bob@example.com", subject="Hi, Bob")),
]

TABLE_DESIGNS = ("classic-bracket", "hardened-bracket", "grammar-bracket", "grammar-json-args")


def decision_table(
    designs: tuple[str, ...] = TABLE_DESIGNS,
    cases: list[tuple[str, Intent]] | None = None,
    policy: Policy = STRICT,
) -> list[Trial]:
    """Run every case through every design (each on a fresh default registry)."""
    trials = []
    for case, intent in cases or DECISION_CASES:
        for name in designs:
            design = BUILTIN_DESIGNS[name]
            registry = default_registry()
            quoted = case.endswith("(quoted)")
            text = render(intent, design.fmt, thought="I will use a tool.", quote=quoted)
            decision = design.decide(text, registry)
            acceptable = oracle(intent, design.fmt, registry, policy, quoted=quoted)
            verdict = judge(decision.outcome, acceptable, registry, completion=text,
                            fmt=design.fmt)
            trials.append(Trial(case, name, text, decision.step, decision.outcome, verdict))
    return trials


def decision_table_markdown(trials: list[Trial] | None = None) -> str:
    """The table as Markdown: one row per case, one verdict cell per design."""
    trials = trials if trials is not None else decision_table()
    designs = list(dict.fromkeys(t.design for t in trials))
    cases = list(dict.fromkeys(t.case for t in trials))
    cell = {(t.case, t.design): t for t in trials}
    head = "| what the model meant | as written (bracket) | " + " | ".join(
        f"{d}<br>`{BUILTIN_DESIGNS[d].parser}` + {BUILTIN_DESIGNS[d].dispatcher}" for d in designs
    ) + " |"
    lines = [head, "|" + "---|" * (len(designs) + 2)]
    for case in cases:
        first = next(t for t in trials if t.case == case)
        bracket = next(
            (t.completion for t in trials if t.case == case and BUILTIN_DESIGNS[t.design].format
             == "bracket"), first.completion,
        ).split("\n")[-1]
        row = [case, f"`{bracket}`"]
        for d in designs:
            t = cell[(case, d)]
            mark = "ok" if t.verdict.ok else f"**{t.verdict.kind}**"
            if t.verdict.cause == "protocol":
                mark += " (protocol)"
            what = _outcome_short(t.outcome)
            row.append(f"{mark}: {what}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _outcome_short(outcome: Outcome) -> str:
    kind = outcome.kind
    if kind == "executed":
        c = outcome.call  # type: ignore[union-attr]
        inner = ", ".join(
            f"{n}={a!r}" for n, a in zip(c.names or (), c.args)
        )
        return f"ran {c.tool}({inner})".replace("|", "\\|")
    if kind == "rejected":
        return f"refused [{outcome.reason}]"  # type: ignore[union-attr]
    if kind == "crashed":
        return f"{outcome.exc_type}"  # type: ignore[union-attr]
    return f"answered {outcome.answer!r}"  # type: ignore[union-attr]
