"""Formats: dialects of the text protocol, as data.

A :class:`Format` says which labels a dialect uses, how an action is written, how
its arguments are encoded, how a final answer is written and which stop sequences
the client sends. ``syntax`` + ``arguments`` select the format's protocol family
(:attr:`Format.family`, an object from :mod:`reactfuzz.formats.family`), the code that
writes, reads and abuses that action shape. Each built-in has a Lark grammar in
``grammars/``; a user format is a TOML file that starts from a built-in
(``base = "bracket"``) and changes labels, stop sequences or numbering, or names its own
grammar file.

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
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .family import FAMILIES, Family, family_for, line_start_re, syntax_pairs

__all__ = ["Format", "Labels"]

_LABEL_RE = re.compile(r"^[^\W\d][\w .\-]*$")
_TAG_RE = re.compile(r"^[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?$")
JSON_FIELDS = ("fence", "fence_optional", "tool_key", "args_key", "answer_key", "think",
               "xml_style", "wrapped")
"""The JSON, tag and xml families' fields (a format of another family keeps their defaults)."""


class Labels(BaseModel):
    """The label words of a format (without the colon)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    thought: str = "Thought"
    action: str = "Action"
    action_input: str | None = None
    observation: str = "Observation"
    answer: str | None = "Answer"
    headers: tuple[str, ...] = ("Question",)

    @field_validator("thought", "action", "action_input", "answer")
    @classmethod
    def _word(cls, v: str | None) -> str | None:
        if v is not None and not _LABEL_RE.fullmatch(v):
            raise ValueError(
                f"label {v!r} must start with a letter and use letters, digits, spaces, '.' or '-'"
                " (write it without the colon)"
            )
        return v

    @field_validator("observation")
    @classmethod
    def _observation(cls, v: str) -> str:
        """The observation label may be any printable token (griptape's ``<|Response|>``):
        the model never writes it as part of an intent, only the client and a fabricated
        observation do, and every reader escapes it; a colon, a line break or outer
        spaces would make the label's own end ambiguous."""
        if _LABEL_RE.match(v):
            return v
        if not v or not v.isprintable() or v != v.strip() or ":" in v:
            raise ValueError(
                f"observation label {v!r} must be printable, without a colon or outer spaces"
                " (write it without the colon)"
            )
        return v

    @field_validator("headers")
    @classmethod
    def _headers(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for h in v:
            cls._word(h)
        return v

    @model_validator(mode="after")
    def _distinct(self) -> Labels:
        every = self.all()
        for role, word in every.items():
            first = next(r for r, w in every.items() if w == word)
            if first != role:
                raise ValueError(f"labels {first} and {role} are both {word!r}: a reader"
                                 " could not tell them apart")
        return self

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
    syntax: str = "bracket"
    arguments: str = "comma"
    labels: Labels = Field(default_factory=Labels)
    numbered: StrictBool = False
    finish_action: str | None = None
    stop: tuple[str, ...] = ("Observation:",)
    grammar: str | None = None
    parallel_calls: StrictBool = False
    """Whether the protocol lets one completion hold several calls that all run (Hermes
    and Qwen tool calls do): a second call is then no ambiguity, and running the first is
    right."""
    answer_scope: Literal["text", "message"] = "text"
    """What the client hands over as the final answer: ``text``, the answer's own text;
    ``message``, the whole completion (thought and labels included), as a chat agent that
    shows its trace does. With ``message`` a returned whole completion that the format
    reads as the intended answer is that answer."""

    # ---- JSON protocol families (action-input-json, json-blob): see their modules
    fence: str | None = None
    """Info string of the ``` code fence written around the JSON (``"json"``; ``""``: a
    bare fence); ``None``: no fence, and a fenced JSON is refused."""
    fence_optional: StrictBool = False
    """The JSON may also stand without the fence (the writer still writes ``fence``)."""
    tool_key: str = "name"
    """json-blob: the key whose string names the tool (``action`` in the chat style)."""
    args_key: str = "arguments"
    """json-blob: the key holding the arguments object (``action_input``, ``parameters``)."""
    answer_key: str | None = "answer"
    """json-blob with a ``finish_action``: the argument holding the answer text; ``None``:
    the arguments value itself is the answer string (``"action_input": "..."``)."""
    # ---- end of the JSON families' fields

    # ---- tag protocols and template writers ---------------------------------------------
    # Fields of the `tag` family (<tool_call>{"name": ..., "arguments": {...}}</tool_call>,
    # or <function=NAME>{...}</function>; its JSON keys are `tool_key` and `args_key`) and
    # of the `template` family (a user grammar format written from templates).
    tag: str = "tool_call"
    """The element around a call (``tool_call`` writes ``<tool_call>...</tool_call>``)."""
    tag_style: Literal["json", "attribute"] = "json"
    """``json``: the tool name is a key of the JSON inside the tag; ``attribute``: it is
    written in the opening tag (``<function=NAME>{arguments}</function>``)."""
    think_tag: str = "think"
    """The element that holds a thought before the call or answer (``<think>...</think>``)."""
    think: Literal["always", "calls", "never"] = "calls"
    """Where the tag family writes a thought: ``calls``, in a think block before a call and
    not before an answer (the answer is the message's whole text, as frameworks hand it
    over); ``always``, a think block before calls and answers (a reasoning model whose
    client keeps the block in the message); ``never``, as free text before a call and not
    before an answer. Read either way: a think block is optional before both."""
    xml_style: Literal["invoke", "equals", "element"] = "invoke"
    """How the ``xml`` family writes a call: ``invoke``, ``<invoke name="T"><parameter
    name="k">v</parameter></invoke>``; ``equals``, ``<function=T><parameter=k>v</parameter>
    </function>``; ``element``, the tool's name as the tag and one child tag per parameter,
    ``<T><k>v</k></T>``."""
    wrapped: StrictBool = True
    """The ``xml`` family: every call sits inside the ``tag`` element
    (``<minimax:tool_call>...</minimax:tool_call>``); ``False``: calls stand alone."""
    action_template: str | None = None
    """How the ``template`` family writes an action (placeholders ``{tool}``, ``{args}``,
    ``{arguments_json}``, ``{arg1}``...)."""
    answer_template: str | None = None
    """How the ``template`` family writes a final answer (placeholder ``{answer}``)."""

    @field_validator("name")
    @classmethod
    def _printable_name(cls, v: str) -> str:
        # the name reaches terminals and reports: no control, format or line-break
        # character (a title change or a screen clear in a file from a pull request)
        bad = next((c for c in v if not c.isprintable()), None)
        if bad is not None:
            raise ValueError(f"the name holds the unprintable character U+{ord(bad):04X};"
                             " use letters, digits and punctuation")
        if not v.strip() or len(v) > 200:
            raise ValueError("the name must be 1 to 200 printable characters")
        return v

    @field_validator("tag", "think_tag")
    @classmethod
    def _tag_name(cls, v: str) -> str:
        if not _TAG_RE.fullmatch(v):
            raise ValueError(
                f"{v!r} must start with a letter or '_' and use letters, digits, '_', '-' or '.'"
                " (and at most one ':' between two such names)"
            )
        return v

    @field_validator("action_template", "answer_template")
    @classmethod
    def _known_placeholders(cls, v: str | None, info: ValidationInfo) -> str | None:
        from .template import unknown_placeholder

        problem = unknown_placeholder(v, info.field_name == "answer_template") if v else None
        if problem is not None:
            raise ValueError(problem)
        return v
    # ---- end of the tag and template fields

    # ---- sections family (dspy's chat adapter): see formats/sections.py
    section: str = "[[ ## {} ## ]]"
    """sections: a field's header line, ``{}`` standing for the field name (a label word)."""
    section_end: str | None = "completed"
    """sections: the field whose header ends the output (``None``: no end marker)."""

    @model_validator(mode="after")
    def _sections_fields(self) -> Format:
        from .sections import check_section_fields

        problem = check_section_fields(self)
        if problem is not None:
            raise ValueError(problem)
        return self
    # ---- end of the sections fields

    source: str | None = Field(default=None, exclude=True)

    @field_validator("syntax")
    @classmethod
    def _known_syntax(cls, v: str) -> str:
        known = list(syntax_pairs())
        if v not in known:
            raise ValueError(f"Input should be {_one_of(known)}")
        return v

    @field_validator("arguments")
    @classmethod
    def _known_arguments(cls, v: str) -> str:
        known = list(dict.fromkeys(f.arguments for f in FAMILIES.values()))
        if v not in known:
            raise ValueError(f"Input should be {_one_of(known)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Format:
        pairs = syntax_pairs()
        if self.arguments not in pairs[self.syntax]:
            raise ValueError(
                f"syntax {self.syntax!r} does not go with arguments {self.arguments!r}"
                f" (use one of {sorted(pairs[self.syntax])})"
            )
        for role, example in self.family.needs_labels.items():
            if not getattr(self.labels, role):
                raise ValueError(
                    f"syntax {self.syntax!r} needs labels.{role} (e.g. {example!r})"
                )
        problem = family_for(self.syntax, self.arguments).check_format(self)
        if problem is not None:
            raise ValueError(problem)
        if (self.labels.answer is None and self.finish_action is None
                and not self.family.bare_answer):
            raise ValueError(
                "a format needs labels.answer or finish_action to write a final answer"
            )
        if any(not s for s in self.stop):
            raise ValueError("stop sequences must not be empty strings")
        self._json_fields_consistent()
        return self

    def _json_fields_consistent(self) -> None:
        """The JSON families' fields: only their formats set them, and sensibly."""
        reads = getattr(self.family, "format_fields", ())
        for key in JSON_FIELDS:
            if key not in reads and getattr(self, key) != Format.model_fields[key].default:
                users = sorted(f.name for f in FAMILIES.values()
                               if key in getattr(f, "format_fields", ()))
                which = " and ".join(users) + (" families" if len(users) > 1 else " family")
                raise ValueError(
                    f"{key!r} is read only by the {which}, not by {self.family.name}"
                    f" (syntax {self.syntax!r}, arguments {self.arguments!r})"
                )
        if self.fence is not None and not re.fullmatch(r"[\w+.\-]*", self.fence):
            raise ValueError(
                f"fence {self.fence!r} must be a code fence's info string such as 'json'"
                " (letters, digits, '+', '.', '-'; no backticks)"
            )
        if self.fence_optional and self.fence is None:
            raise ValueError("fence_optional needs a fence (e.g. fence = 'json')")
        for key in ("tool_key", "args_key", "answer_key"):
            value = getattr(self, key)
            if value is not None and not value:
                raise ValueError(f"{key} must not be an empty string")
        if self.tool_key == self.args_key:
            raise ValueError(f"tool_key and args_key are both {self.tool_key!r}")

    @property
    def family(self) -> Family:
        """The protocol family this format's ``syntax`` + ``arguments`` select."""
        return family_for(self.syntax, self.arguments).for_format(self)

    def label(self, role: str, n: int | None = None) -> str:
        """The label text for ``role`` as a writer puts it, colon included."""
        word = getattr(self.labels, role)
        if word is None:
            raise ValueError(f"format {self.name!r} has no {role} label")
        if self.numbered and role in ("thought", "action", "observation") and n is not None:
            return f"{word} {n}:"
        return f"{word}:"

    def label_words(self, *roles: str) -> tuple[str, ...]:
        """The label words of ``roles`` (every label when none is named), absent ones left out.

        A role is a :class:`Labels` field (``thought``, ``action_input``, ...) or
        ``headers``; :meth:`Labels.all`'s keys (``header0``) work too.
        """
        every = self.labels.all()
        if not roles:
            return tuple(every.values())
        out: list[str] = []
        for role in roles:
            if role == "headers":
                out.extend(self.labels.headers)
            elif role in every:
                out.append(every[role])
            elif role not in Labels.model_fields:
                raise ValueError(f"unknown label role {role!r}")
        return tuple(out)

    def line_start_re(self, *roles: str, number: bool = True, colon: bool = True
                      ) -> re.Pattern[str]:
        r"""A label of ``roles`` (every label when none is named) at the start of a line.

        The one definition of "this label at a line start": ``(?m)^``, the word (group
        ``word``), an optional step number (``number=False``: none) and the colon
        (``colon=False``: none). Only ``\n`` starts a line, as in the grammars.
        """
        return line_start_re(self.label_words(*roles), number, colon)


def _one_of(values: list[str]) -> str:
    """Pydantic's wording for a choice: ``'a', 'b' or 'c'``."""
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" or {quoted[-1]}"
