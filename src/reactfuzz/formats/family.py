"""Protocol families: the code a format's data selects, as one object per family.

A :class:`~reactfuzz.formats.Format` is data (labels, stop sequences, numbering); its
``syntax`` + ``arguments`` pick a *family*, the object that knows how an action of that
shape is

* **written** -- :meth:`Family.write`, :meth:`Family.representable`,
  :meth:`Family.written_form` (what :mod:`reactfuzz.render` delegates to);
* **read** by a grammar -- :attr:`Family.grammar_file`, the :attr:`Family.rules` and
  :attr:`Family.terminals` a user grammar of the family must use,
  :meth:`Family.read_action` (a parse tree's final action to a Step),
  :attr:`Family.fast_path` (whether the regex fast path may stand in for Lark);
* **abused** -- the operator data the abuse operators work from instead of switching on a
  name: :attr:`Family.delimiters`, the argument list's :attr:`Family.open` and
  :attr:`Family.close`, :attr:`Family.separator`, :attr:`Family.quote`, the label role that
  carries the input on its own line (:attr:`Family.input_role`), whether arguments are
  named or JSON, how many an action carries, and where they sit in a written completion
  (:meth:`Family.args_start`, :meth:`Family.action_line_end`);
* **shipped** -- the family's usual fix (:attr:`Family.advice`) and its classic parsers
  (:attr:`Family.classic`: each makes a classic design and a grammar design beside it).

Families are registered in :data:`FAMILIES`; :func:`register_family` adds one (a second
family with the same name or the same ``syntax`` + ``arguments`` is a ``UsageError``).
"""

from __future__ import annotations

import datetime as _dt
import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..errors import UsageError
from ..model import Call, FinalAnswer, Intent, Step
from ..registry import Registry

if TYPE_CHECKING:
    from lark import Tree

    from .spec import Format

__all__ = [
    "FAMILIES",
    "Family",
    "Representability",
    "block_text",
    "encode_text",
    "family_for",
    "label_pattern",
    "register_family",
]


def encode_text(value: Any) -> str:
    """How a text format writes one argument value (dates ISO, booleans lower case)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, enum.Enum):
        return encode_text(value.value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ", ".join(encode_text(v) for v in value)
    return str(value)


@dataclass(frozen=True, slots=True)
class Representability:
    """Whether a format can carry an intent as a model writes it, and if not, why."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


# --------------------------------------------------------------------------- labels


def label_pattern(words: Iterable[str], *, number: bool = True, colon: bool = True,
                  line_start: bool = False, capture: bool = False) -> str:
    r"""Regex source for any of ``words`` written as a label: ``(?:Thought|Action)(?: ?\d+)?:``.

    The one definition of "a label, numbered or not", every reader of labels uses.
    ``number`` allows a step number after the word (``Action 3:``), as every grammar
    reads labels (whether one is required is checked after parsing); ``colon=False``
    leaves out the colon (``number=False, colon=False``: the bare word). By default no
    groups and no anchor: the grammars embed it in Lark terminals. ``line_start``
    anchors it at the start of any line (``(?m)^``, a flag for the whole pattern, so it
    begins one); ``capture`` puts the word in group ``word`` and the step number, empty
    when none is written, in group ``num`` (with ``number``).
    """
    alt = "|".join(re.escape(w) for w in words)
    num = r"(?: ?\d+)?" if number else ""
    if capture:
        head = f"(?P<word>{alt})" + (f"(?P<num>{num})" if num else "")
    else:
        head = f"(?:{alt}){num}"
    return ("(?m)^" if line_start else "") + head + (":" if colon else "")


@lru_cache(maxsize=256)
def line_start_re(words: tuple[str, ...], number: bool, colon: bool) -> re.Pattern[str]:
    """``label_pattern(words)`` at the start of any line, the word in group ``word`` (and
    the number in group ``num``)."""
    return re.compile(label_pattern(words, number=number, colon=colon, line_start=True,
                                    capture=True))


def rest_text(node: Tree, text: str) -> str:
    """The value of a block that runs over blank lines (answers, action inputs), trimmed."""
    from lark import Token

    label = node.children[0]
    # a block that starts with a tree (an XML call) has no label: all of it is the value
    start = label.end_pos if isinstance(label, Token) else node.meta.start_pos
    assert start is not None
    return block_text(text[start : node.meta.end_pos])


def block_text(raw: str) -> str:
    """A block's value as :func:`rest_text` reads it: each line right-trimmed, then the whole
    trimmed (the fast path reads an answer with it too)."""
    return "\n".join(line.rstrip() for line in raw.split("\n")).strip()


def caret_context(text: str, line: int, column: int) -> str:
    """The ``line`` of ``text`` with a caret under ``column`` (escapes kept aligned)."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    src = lines[line - 1].rstrip("\r")
    shown = src.encode("unicode_escape").decode("ascii") if not src.isprintable() else src
    # keep the caret under the same character when escapes widen the line
    prefix = src[: max(column - 1, 0)]
    pad = prefix.encode("unicode_escape").decode("ascii") if not src.isprintable() else prefix
    return f"{shown}\n{' ' * len(pad)}^"


# --------------------------------------------------------------------------- the family


class Family:
    """A protocol family: writer, grammar reading and operator data for one action shape.

    Subclasses set the class attributes and implement :meth:`write_call`,
    :meth:`call_representable` and :meth:`read_action`; everything else has a default
    driven by the attributes. One instance per family lives in :data:`FAMILIES`.
    """

    # identity: which format data selects this family
    name: str
    """The family's name (``bracket``, ``paper``, ``action_input``, ``json_args``)."""
    syntax: str
    """The ``Format.syntax`` value this family reads."""
    arguments: str
    """The ``Format.arguments`` value this family reads (with :attr:`syntax`)."""
    needs_labels: ClassVar[Mapping[str, str]] = {}
    """Label roles a format of this family must set, with an example word for the error."""

    # grammar reading
    grammar_file: str
    """The built-in grammar file (in ``grammars/``) of formats without their own."""
    rules: tuple[str, ...] = ("completion", "transcript", "action")
    """Rules :meth:`read_action` and the transcript reader use: a user grammar needs them."""
    terminals: tuple[str, ...] = ()
    """Terminals :meth:`read_action` reads by name (a user grammar keeps these names)."""
    inner_terminals: tuple[str, ...] = ()
    """Terminals the grammar expects only inside an action: text that breaks off where one
    of them is expected is a malformed action (not unlabelled text or a missing one)."""
    action_shape: str = "an action"
    """How an action looks, for error messages (``name[arg1, arg2]``)."""
    fast_path: bool = False
    """Whether the regex fast path may read this family's commonest completions."""

    # operator data
    delimiters: tuple[str, ...] = ()
    """Strings that end or split an argument, simplest first (what injection draws)."""
    open: str | None = None
    """The character that opens the argument list on the action line (``[``, ``{``)."""
    close: str | None = None
    """The character that closes it."""
    separator: str | None = None
    """What stands between two arguments (``,``), if an action carries several."""
    quote: str | None = None
    """The quote that lets an argument hold a delimiter, if the family has one."""
    input_role: str | None = None
    """The label role whose line carries the arguments (``action_input``), if not the action's."""
    named_args: bool = False
    """Arguments are written with their names (a JSON object), not by position."""
    json_arguments: bool = False
    """The arguments are one JSON value (operators may break its JSON)."""
    max_args: int | None = None
    """How many arguments an action carries (``None``: any number)."""
    bare_answer: bool = False
    """A final answer is the completion's plain text (no answer label, no finish action)."""
    leading_thought: bool = True
    """Unlabelled text that starts a completion is the thought (it continues a prompt
    ending in the thought label); ``False``: the family writes no such continuation."""

    # what is shipped in the family
    advice: str = ""
    """The family's usual fix: the advice on a finding whose check and operator declare
    none (a user's own); empty: the generic advice (see :mod:`reactfuzz.fixes`)."""
    classic: ClassVar[Mapping[str, str]] = {}
    """The built-in formats of the family read by a classic parser, each with the usual
    mistake that parser makes: the parser is ``classic-FORMAT`` (registered in
    :mod:`reactfuzz.parsers`), and each entry makes the designs ``classic-FORMAT`` (the
    parser, positional dispatch) and ``grammar-FORMAT`` (the grammar, schema validation).
    The first families' classic designs (``classic-bracket``, ``classic-unanchored``,
    ``classic-action-input``) are the reference designs :mod:`reactfuzz.designs` lists."""

    def builtin_formats(self) -> tuple[Format, ...]:
        """The built-in formats the family's own module declares (a family added after
        the first ones keeps its formats beside it); those of the first families are
        listed in :mod:`.builtin`."""
        return ()

    def for_format(self, fmt: Format) -> Family:
        """The family as ``fmt`` uses it (a family whose operator data depends on the
        format's own data returns a specialised copy; most return themselves)."""
        return self

    def check_format(self, fmt: Format) -> str | None:
        """Why ``fmt``'s data does not fit this family (one line), or ``None``."""
        return None

    def write_thought(self, text: str, fmt: Format, *, step: int = 1) -> list[str]:
        """The lines of a thought before the action or answer (the thought label, by default)."""
        return [f"{fmt.label('thought', step)} {text}"]

    def writes_thought(self, intent: Intent, fmt: Format) -> bool:
        """Whether a thought is written before ``intent`` (a format may write none before
        an answer whose text is the whole message)."""
        return True

    def read_answer(self, node: Tree, text: str, fmt: Format) -> str:
        """The final answer of the ``answer`` tree ``node`` (after its label, to the end)."""
        return rest_text(node, text)

    def kept_text(self, completion: str, fmt: Format, *, acted: bool) -> str:
        """What of a completion the client keeps in its transcript once it ran a call
        (``acted``) or took an answer: a model-written observation matters only there.
        The classic loops append the whole completion (as cut at the stop sequence)."""
        return completion

    def __repr__(self) -> str:
        return f"<family {self.name}>"

    # ---- writer

    def write_turn(self, intent: Intent, fmt: Format, *, thought: str | None = None,
                   step: int = 1, quote: bool = False) -> list[str]:
        """The lines of one completion: the thought (if any, and if the family writes one
        before this intent), then the intent."""
        lines = [] if thought is None or not self.writes_thought(intent, fmt) else (
            self.write_thought(thought, fmt, step=step))
        return [*lines, *self.write(intent, fmt, step=step, quote=quote)]

    def write(self, intent: Intent, fmt: Format, *, step: int = 1, quote: bool = False
              ) -> list[str]:
        """The lines that write ``intent`` (an action, or a final answer)."""
        if isinstance(intent, FinalAnswer):
            return self.write_answer(intent, fmt, step=step)
        return self.write_call(intent, fmt, step=step, quote=quote)

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        """A final answer: the answer label, else the format's finish action."""
        if fmt.labels.answer is not None:
            return [f"{fmt.label('answer', step)} {answer.text}"]
        return [f"{fmt.label('action', step)} {fmt.finish_action}[{answer.text}]"]

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        """The lines of an action (``quote=True``: quote arguments that need it)."""
        raise NotImplementedError

    def representable(self, intent: Intent, fmt: Format, *, quote: bool = False
                      ) -> Representability:
        """Whether ``write(intent)`` reads back as :meth:`written_form`, and if not, why."""
        if isinstance(intent, FinalAnswer):
            return self.answer_representable(intent, fmt)
        if not self.tool_name_ok(intent.tool):
            return Representability(False, f"tool name {intent.tool!r} is not a word")
        return self.call_representable(intent, fmt, quote=quote)

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        """Answers are trimmed, end at a label line and hold no blank lines."""
        text = answer.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if fmt.labels.answer is None:
            if "\n" in text:
                return Representability(False, f"{fmt.finish_action}[...] fits on one line")
            return Representability(True)
        if not label_free(text, fmt):
            return Representability(False, "a line of the answer starts with a label")
        if "\n\n" in text or any(line != line.rstrip() for line in text.split("\n")):
            return Representability(False, "blank lines or trailing spaces inside an answer")
        return Representability(True)

    def tool_name_ok(self, tool: str) -> bool:
        """Whether a tool name can be written (a word, by default)."""
        return re.fullmatch(r"\w+", tool) is not None

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        """Whether the family carries the call's arguments (the tool name is checked)."""
        raise NotImplementedError

    def written_form(self, intent: Intent, fmt: Format) -> Intent:
        """The intent as the family carries it back (text families carry strings)."""
        if isinstance(intent, FinalAnswer):
            return intent
        return self.written_call(intent, fmt)

    def written_call(self, call: Call, fmt: Format) -> Call:
        """A call as read back: every argument as the text written for it."""
        return Call(call.tool, tuple(encode_text(a) for a in call.args))

    # ---- grammar reading

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        """The Step of a completion whose last block is the ``action`` tree ``node``."""
        raise NotImplementedError

    # ---- operator data

    def args_start(self, text: str, fmt: Format) -> int:
        """Offset where the action's argument text starts in a written completion."""
        if self.input_role is not None:
            label = f"{getattr(fmt.labels, self.input_role)}:"
            return text.find(label) + len(label)
        at = text.find(f"{fmt.labels.action}")
        at = text.rfind("\n", 0, len(text)) if at < 0 else at
        return text.find(self.open or "[", max(at, 0))

    def action_line_end(self, text: str, fmt: Format) -> int:
        """Offset where the action's own line ends (text trailing the action goes there)."""
        if self.input_role is not None:
            return text.find("\n", text.find(f"{fmt.labels.action}:"))
        return len(text)

    def written_value(self, value: str) -> str:
        """How one text argument appears inside the written action."""
        return value

    # ---- format data and grammar text a family adds (the JSON families use these)

    format_fields: ClassVar[tuple[str, ...]] = ()
    """Family-specific :class:`Format` fields this family reads (others must keep defaults)."""

    def grammar_for(self, fmt: Format) -> str:
        """The grammar file ``fmt`` is read with: its own, else the family's."""
        return fmt.grammar or self.grammar_file

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """Grammar lines (``%override ...``) written from the format's data, after its labels."""
        return ()


def label_free(text: str, fmt: Format) -> bool:
    """True if no line of ``text`` (after the first) starts with one of the format's labels."""
    first = text.find("\n")
    return first < 0 or fmt.line_start_re().search(text, first + 1) is None


# --------------------------------------------------------------------------- registry

FAMILIES: Registry[Family] = Registry("format family")
"""The protocol families by name, in registration order."""

_BY_DATA: dict[tuple[str, str], Family] = {}

FamilyT = TypeVar("FamilyT", bound=Family)


def register_family(family: FamilyT) -> FamilyT:
    """Register a family object; formats whose ``syntax`` + ``arguments`` match use it."""
    key = (family.syntax, family.arguments)
    if key in _BY_DATA:
        raise UsageError(
            f"a format family for syntax {key[0]!r} with arguments {key[1]!r} is already"
            f" registered ({_BY_DATA[key].name})"
        )
    FAMILIES.add(family.name, family)
    _BY_DATA[key] = family
    return family


def family_for(syntax: str, arguments: str) -> Family:
    """The family a format's ``syntax`` + ``arguments`` select."""
    try:
        return _BY_DATA[(syntax, arguments)]
    except KeyError:
        raise UsageError(
            f"no format family reads syntax {syntax!r} with arguments {arguments!r}"
        ) from None


def syntax_pairs() -> dict[str, list[str]]:
    """Each registered syntax with the argument encodings that go with it."""
    out: dict[str, list[str]] = {}
    for fam in FAMILIES.values():
        out.setdefault(fam.syntax, []).append(fam.arguments)
    return out
