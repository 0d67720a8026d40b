"""Formats: dialects of the text protocol, as data.

A :class:`Format` says which labels a dialect uses, how an action is written, how
its arguments are encoded, how a final answer is written and which stop sequences
the client sends. Each built-in has a Lark grammar in ``grammars/``; a user format is
a TOML file that starts from a built-in (``base = "bracket"``) and changes labels,
stop sequences or numbering, or names its own grammar file.

Decisions shared by every built-in format (each format's ``notes`` repeats what is
specific to it):

* A label counts only at the start of a line (column 1). ``Answer:`` in the middle of a
  thought is text; an indented ``  Action:`` is text.
* Only ``\\n`` (and ``\\r\\n``) ends a line. ``\\r``, ``\\x85``, ``\\u2028`` and the other
  Unicode line breaks are ordinary characters inside a line, so a label after one of
  them is never a label.
* Any number of blank lines may stand between blocks; a blank line ends a value, so
  text after a blank line must start with a label (answers and ``Action Input`` are
  the exception: they run to the end, blank lines included).
* A label may be followed by its value on the same line (any spacing after the colon,
  also none) or on the next line(s).
* A completion may start with unlabelled text: the thought that continues a prompt
  ending in ``Thought:``.
* Exactly one action or one final answer per completion, and it comes last. A second
  action, an action after an answer, or a model-written ``Observation:`` is rejected
  with a reason saying so.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from .errors import FormatError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "BUILTIN_FORMATS",
    "Format",
    "Labels",
    "get_format",
    "load_format",
]

Syntax = Literal["bracket", "action-input", "json-args"]
Arguments = Literal["comma", "single", "json"]

_LABEL_RE = re.compile(r"^[^\W\d][\w .\-]*$")


class Labels(BaseModel):
    """The label words of a format (without the colon)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    thought: str = "Thought"
    action: str = "Action"
    action_input: str | None = None
    observation: str = "Observation"
    answer: str | None = "Answer"
    headers: tuple[str, ...] = ("Question",)

    @field_validator("thought", "action", "action_input", "observation", "answer")
    @classmethod
    def _word(cls, v: str | None) -> str | None:
        if v is not None and not _LABEL_RE.match(v):
            raise ValueError(
                f"label {v!r} must start with a letter and use letters, digits, spaces, '.' or '-'"
                " (write it without the colon)"
            )
        return v

    @field_validator("headers")
    @classmethod
    def _headers(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for h in v:
            cls._word(h)
        return v

    def all(self) -> dict[str, str]:
        """Every label this format uses, by role."""
        out = {
            "thought": self.thought,
            "action": self.action,
            "observation": self.observation,
        }
        if self.action_input:
            out["action_input"] = self.action_input
        if self.answer:
            out["answer"] = self.answer
        for i, h in enumerate(self.headers):
            out[f"header{i}"] = h
        return out


class Format(BaseModel):
    """A dialect of the text protocol, as data (see the module docstring for shared rules)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    notes: str = ""
    syntax: Syntax = "bracket"
    arguments: Arguments = "comma"
    labels: Labels = Field(default_factory=Labels)
    numbered: StrictBool = False
    finish_action: str | None = None
    stop: tuple[str, ...] = ("Observation:",)
    grammar: str | None = None
    source: str | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _consistent(self) -> Format:
        pairs = {
            "bracket": {"comma", "single"},
            "action-input": {"single"},
            "json-args": {"json"},
        }
        if self.arguments not in pairs[self.syntax]:
            raise ValueError(
                f"syntax {self.syntax!r} does not go with arguments {self.arguments!r}"
                f" (use one of {sorted(pairs[self.syntax])})"
            )
        if self.syntax == "action-input" and not self.labels.action_input:
            raise ValueError(
                "syntax 'action-input' needs labels.action_input (e.g. 'Action Input')"
            )
        if self.labels.answer is None and self.finish_action is None:
            raise ValueError(
                "a format needs labels.answer or finish_action to write a final answer"
            )
        if any(not s for s in self.stop):
            raise ValueError("stop sequences must not be empty strings")
        return self

    @property
    def family(self) -> str:
        """The built-in grammar family this format's data maps to."""
        if self.syntax == "bracket":
            return "bracket" if self.arguments == "comma" else "paper"
        return "action_input" if self.syntax == "action-input" else "json_args"

    def label(self, role: str, n: int | None = None) -> str:
        """The label text for ``role`` as a writer puts it, colon included."""
        word = getattr(self.labels, role)
        if word is None:
            raise ValueError(f"format {self.name!r} has no {role} label")
        if self.numbered and role in ("thought", "action", "observation") and n is not None:
            return f"{word} {n}:"
        return f"{word}:"


_BRACKET_NOTES = """\
Action line: `Action: name[arg1, arg2]`, one line, nothing after `]` but spaces.
Arguments are split on commas and trimmed; `name[]` has no arguments. An argument
that contains `,` `[` `]` `"` or must keep outer spaces is written as a JSON string
(`search["Paris, France"]`); models rarely quote, so an unquoted comma makes two
arguments and the intent is reported as not representable unquoted.
Final answer: `Answer: text` (may run over several lines). Stop: `Observation:`.
Headers: `Question:`. Labels are unnumbered; a numbered label (`Thought 1:`) is
rejected with a reason."""

_PAPER_NOTES = """\
The ReAct paper's shape. Labels are numbered (`Thought 3:`, `Action 3:`,
`Observation 3:`); one step's labels share a number and numbers go up by one; an
unnumbered label is rejected with a reason. `Action N:` may be followed by blank lines
before the action (real runs do this). An action is `Tool[argument]`: one argument, all
text between the first `[` and the last `]` on the line, kept exactly (commas and
brackets included); text after `]` is rejected. The final answer is the action
`Finish[answer]` (also `finish[...]`). Headers: `Question:` or `Claim:`. Stop:
`\\nObservation` (as the paper's harness)."""

_ACTION_INPUT_NOTES = """\
`Action: tool` (the rest of the line, trimmed, is the tool name) followed by
`Action Input: text` (blank lines may stand between them). The input is one argument;
it runs to the end of the completion, over several lines and blank lines, trimmed; an
empty input means no argument. A missing `Action Input:` line is rejected. Final answer:
`Final Answer: text`, to the end. Stop: `\\nObservation:`."""

_JSON_NOTES = """\
The hardened text form: `Action: name` followed by one JSON object of named arguments,
on the same line or starting on the next; the object may span lines. Anything but an
object, invalid JSON, a duplicate key or text after the closing `}` is rejected.
Final answer: `Answer: text`. Stop: `Observation:`."""


BUILTIN_FORMATS: dict[str, Format] = {
    "bracket": Format(
        name="bracket",
        description="Thought/Action: name[a, b]/Observation/Answer, comma-separated arguments",
        notes=_BRACKET_NOTES,
        syntax="bracket",
        arguments="comma",
        labels=Labels(),
        stop=("Observation:",),
        grammar="bracket.lark",
    ),
    "paper": Format(
        name="paper",
        description="the ReAct paper: numbered labels, Search[x] single argument, Finish[answer]",
        notes=_PAPER_NOTES,
        syntax="bracket",
        arguments="single",
        labels=Labels(answer=None, headers=("Question", "Claim")),
        numbered=True,
        finish_action="Finish",
        stop=("\nObservation",),
        grammar="paper.lark",
    ),
    "action-input": Format(
        name="action-input",
        description="Action: tool / Action Input: text / Final Answer: text (LangChain MRKL style)",
        notes=_ACTION_INPUT_NOTES,
        syntax="action-input",
        arguments="single",
        labels=Labels(action_input="Action Input", answer="Final Answer"),
        stop=("\nObservation:",),
        grammar="action_input.lark",
    ),
    "json-args": Format(
        name="json-args",
        description="Action: name followed by a JSON object of named arguments; Answer: text",
        notes=_JSON_NOTES,
        syntax="json-args",
        arguments="json",
        labels=Labels(),
        stop=("Observation:",),
        grammar="json_args.lark",
    ),
}


def get_format(name_or_path: str | Format) -> Format:
    """A built-in format by name, or a user format from a ``.toml`` file path."""
    if isinstance(name_or_path, Format):
        return name_or_path
    if name_or_path in BUILTIN_FORMATS:
        return BUILTIN_FORMATS[name_or_path]
    if name_or_path.endswith(".toml") or Path(name_or_path).is_file():
        return load_format(name_or_path)
    raise FormatError(
        f"unknown format {name_or_path!r}: use one of {', '.join(BUILTIN_FORMATS)} "
        "or the path of a .toml format file"
    )


def load_format(path: str | Path) -> Format:
    """Load a user format from a TOML file; every mistake names the file and the key."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(f"{p}: format file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(f"{p}: cannot read format file: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FormatError(f"{p}: not valid TOML: {e}") from None
    if "format" in data and isinstance(data["format"], dict) and len(data) == 1:
        data = data["format"]
    base_name = data.pop("base", None)
    merged: dict = {}
    if base_name is not None:
        if not isinstance(base_name, str) or base_name not in BUILTIN_FORMATS:
            raise FormatError(
                f"{p}: key 'base': {base_name!r} is not a built-in format"
                f" (use one of {', '.join(BUILTIN_FORMATS)})"
            )
        merged = BUILTIN_FORMATS[base_name].model_dump(exclude={"notes", "source", "name"})
        if "labels" in data and isinstance(data["labels"], dict):
            merged["labels"] = {**merged["labels"], **data.pop("labels")}
        # a user format that changes labels must not silently keep the base grammar file
        merged["grammar"] = None
        merged["description"] = ""
    merged.update(data)
    if "name" not in merged:
        merged["name"] = p.stem
    grammar = merged.get("grammar")
    if grammar:
        gpath = Path(grammar)
        if not gpath.is_absolute():
            gpath = (p.parent / gpath).resolve()
        if not gpath.is_file():
            raise FormatError(f"{p}: key 'grammar': grammar file {str(gpath)!r} not found")
        merged["grammar"] = str(gpath)
    merged["source"] = str(p)
    try:
        return Format.model_validate(merged)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            allowed = ", ".join([*sorted(Format.model_fields.keys() - {"source"}), "base"])
            msg = f"unknown key (allowed: {allowed})"
        more = f" (and {len(e.errors()) - 1} more)" if len(e.errors()) > 1 else ""
        raise FormatError(f"{p}: key '{key}': {msg}{more}") from None
