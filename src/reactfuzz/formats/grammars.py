"""The grammar parser: one Lark LALR grammar per format, and Steps built from its trees.

Grammars live in the top-level ``grammars/`` folder of a checkout and are shipped inside
the wheel as ``reactfuzz/grammars``. A format's label words are written into the grammar
as ``%override`` terminals, so a user format in TOML gets a grammar with no grammar file.

Two entry points per grammar: ``completion`` (one model turn, as a parser receives it
after the stop sequence cut it) and ``transcript`` (a whole conversation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import (
    GrammarError as LarkGrammarError,
)
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from ..errors import GrammarError
from ..limits import read_user_file
from ..model import Invalid, Step
from .builtin import get_format
from .family import caret_context, label_pattern, rest_text
from .fastpath import fast_path, join_value
from .spec import Format

__all__ = [
    "Block",
    "Transcript",
    "grammar_dir",
    "grammar_parse",
    "grammar_source",
    "lark_parser",
    "parse_transcript",
    "partial_stop_tail",
]

MAX_GRAMMAR_BYTES = 1024 * 1024
"""The largest grammar file read (1 MiB)."""

_ROLE_TERMINALS = {
    "thought": "THOUGHT",
    "action": "ACTION",
    "action_input": "ACTION_INPUT",
    "observation": "OBSERVATION",
    "answer": "ANSWER",
}
_LABEL_ROLES = {v: k for k, v in _ROLE_TERMINALS.items()} | {"HEADER": "header"}


def grammar_dir() -> Path:
    """The folder holding the built-in ``.lark`` files (installed copy first, then checkout)."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "grammars"
    if (packaged / "bracket.lark").is_file():
        return packaged
    checkout = here.parent.parent / "grammars"
    if (checkout / "bracket.lark").is_file():
        return checkout
    raise GrammarError(
        f"built-in grammars not found in {packaged} or {checkout}: reinstall reactfuzz"
    )


def _label_regex(words: list[str]) -> str:
    """A label pattern as a Lark regex literal (``/`` escaped)."""
    return label_pattern(words).replace("/", "\\/")


def grammar_source(fmt: Format | str) -> tuple[str, Path]:
    """The grammar text for a format (its file plus label overrides) and the file it came from."""
    fmt = get_format(fmt)
    if fmt.grammar and Path(fmt.grammar).is_absolute():
        path = Path(fmt.grammar)
    else:
        path = grammar_dir() / fmt.family.grammar_for(fmt)
    raw = read_user_file(path, "grammar file", limit=MAX_GRAMMAR_BYTES, error=GrammarError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise GrammarError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    if "\0" in text:
        raise GrammarError(f"{path}: holds a NUL byte: not a grammar file")
    labels = fmt.labels
    words: dict[str, list[str]] = {"HEADER": list(labels.headers)}
    for role, term in _ROLE_TERMINALS.items():
        word = getattr(labels, role)
        if word:
            words[term] = [word]
    lines = [text, "", _ADDED]
    every: list[str] = []
    for term, ws in words.items():
        if not ws or not re.search(rf"^{term}(?:\.\d+)?\s*:", text, re.M):
            continue
        every.extend(ws)
        lines.append(f"%override {term}.3: /{_label_regex(ws)}/")
    if every and re.search(r"^CONT(?:\.\d+)?\s*:", text, re.M):
        # longest first so that "Action Input" is not shadowed by "Action"
        every.sort(key=len, reverse=True)
        lines.append(f"%override CONT: /(?!{_label_regex(every)})[^\\n]+/")
    lines.extend(fmt.family.grammar_overrides(fmt))
    return "\n".join(lines) + "\n", path


@lru_cache(maxsize=64)
def _compile(text: str, path: str) -> Lark:
    try:
        parser = Lark(
            text,
            parser="lalr",
            lexer="contextual",
            start=["completion", "transcript"],
            import_paths=[str(Path(path).parent), str(grammar_dir())],
            propagate_positions=True,
            maybe_placeholders=False,
        )
    except (LarkGrammarError, LarkError) as e:
        said = _compile_error(e)
        hint = (" (a format grammar needs the rules 'completion' and 'transcript')"
                if re.search(r"'(?:completion|transcript)'", said) else "")
        raise GrammarError(
            f"{path}: grammar does not compile: {_own_lines(said, text)}{hint}"
        ) from None
    except OSError as e:  # an %import of a file that is not there
        raise GrammarError(f"{path}: grammar does not compile: {e.strerror or e}"
                           f"{': ' + repr(e.filename) if e.filename else ''}"
                           " (an %import names a grammar that is not there?)") from None
    except RecursionError:
        raise GrammarError(f"{path}: grammar does not compile: nested too deeply") from None
    except Exception as e:  # whatever else Lark raises on a grammar it cannot read
        raise GrammarError(f"{path}: grammar does not compile: {type(e).__name__}:"
                           f" {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
                           ) from None
    return parser


def _rule_name(name: str) -> str:
    """A rule as the grammar file names it (Lark names the expansions of ``x*``, ``x+``
    and ``x?`` inside rule ``r`` ``__r_star_0`` and so on)."""
    m = re.fullmatch(r"__(\w+?)_(?:star|plus|opt)_\d+", name)
    return m.group(1) if m else name


def _compile_error(e: Exception) -> str:
    """Lark's message on a grammar in the words of the grammar file: its rules and
    terminals by name (not Lark's reprs), a conflict with the rules in it."""
    text = str(e).strip()
    first = text.splitlines()[0] if text else type(e).__name__
    m = re.match(r"(Reduce/Reduce|Shift/Reduce) collision in Terminal\('(\w+)'\)", first)
    if m:
        rules = []
        for rule, body in re.findall(r"<(\w+) : ([^>]*)>", text):
            said = f"'{_rule_name(rule)}' ({body.strip() or 'empty'})"
            if said not in rules:
                rules.append(said)
        return (f"{m.group(1)} conflict before terminal '{m.group(2)}': the rules"
                f" {' and '.join(rules[:2]) or '(unnamed)'} can both end there; LALR needs one"
                " reading, so change one of them")
    first = re.sub(r"^Rule '", "rule '", first)
    m = re.match(r"rule '([A-Z_][A-Z0-9_]*)' used but not defined(.*)", first)
    if m:  # Lark calls every name a rule; an upper-case one is a terminal
        first = f"terminal '{m.group(1)}' used but not defined{m.group(2)}"
    first = re.sub(r"\bNonTerminal\('(\w+)'\)", lambda x: f"rule '{_rule_name(x.group(1))}'",
                   first)
    return re.sub(r"\bTerminal\('(\w+)'\)", r"terminal '\1'", first)


_ADDED = "// labels of this format (written from its data)"


def _own_lines(message: str, text: str) -> str:
    """Lark's message, saying so when the line it names is one reactfuzz wrote, not the file's."""
    own = len(text.split(_ADDED, 1)[0][:-2].splitlines())
    m = re.search(r"\bline (\d+)", message)
    if m and _ADDED in text and int(m.group(1)) > own:
        return (f"{message} (past the file's {own} line(s), in the lines written after it"
                " for the format's labels: the file leaves something open at its end, or"
                " lacks a terminal those lines override)")
    return message


def lark_parser(fmt: Format | str) -> Lark:
    """The compiled (and cached) Lark LALR parser of a format."""
    return _parser_for(get_format(fmt))


@lru_cache(maxsize=64)
def _parser_for(fmt: Format) -> Lark:
    # formats are frozen, so one compiled parser per format (the grammar file is read once)
    text, path = grammar_source(fmt)
    return _compile(text, str(path))


# ---------------------------------------------------------------------------------------
# Errors: turn Lark's exceptions into an Invalid with a reason a person can act on.

_TERMINAL_NAMES = {
    "$END": "end of text",
    "_EOL": "end of line",
    "TEXT": "text",
    "CONT": "text",
    "TOOL": "a tool name",
    "NAME": "a tool name",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "EQUAL": "'='",
    "_PWS": "whitespace",
    "CONST": "True, False or None",
    "BARE": "an argument",
    "QUOTED": "a quoted argument",
    "CALL": "an action like Tool[argument]",
    "STRING": "a JSON string",
    "NUMBER": "a JSON number",
    "TRUE": "true",
    "FALSE": "false",
    "NULL": "null",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COLON": "':'",
    "_JWS": "whitespace",
    "_SP": "a space",
    "FENCE_OPEN": "a ``` code fence",
    "FENCE_CLOSE": "the closing ```",
}


def _describe_terminal(name: str, fmt: Format) -> str:
    role = _LABEL_ROLES.get(name)
    if role == "header":
        return " or ".join(f"'{h}:'" for h in fmt.labels.headers)
    if role is not None:
        word = getattr(fmt.labels, role)
        return f"'{word} N:'" if fmt.numbered and role != "action_input" else f"'{word}:'"
    if name in _TERMINAL_NAMES:  # the built-in names (a copy of a built-in reads alike)
        return _TERMINAL_NAMES[name]
    own = fmt.grammar is not None and Path(fmt.grammar).is_absolute()
    pattern = _literal_of(name, fmt)
    if pattern is not None:  # a string terminal, named or written in a rule: the string
        return repr(pattern)
    if own and name in _user_terminals(fmt):
        return name  # the user's own terminal, as their grammar names it
    if name.startswith("__ANON") or name.isupper():
        return name.lower()
    return name


@lru_cache(maxsize=64)
def _terminal_patterns(fmt: Format) -> dict[str, tuple[str, str]]:
    """Each terminal of the format's compiled grammar: its kind (``str``/``re``) and value."""
    return {t.name: (t.pattern.type, t.pattern.value) for t in _parser_for(fmt).terminals}


def _literal_of(name: str, fmt: Format) -> str | None:
    kind, value = _terminal_patterns(fmt).get(name, ("", ""))
    return value if kind == "str" else None


@lru_cache(maxsize=64)
def _user_terminals(fmt: Format) -> frozenset[str]:
    """The terminals a user's grammar file defines itself (not imported, not built in)."""
    text, _ = grammar_source(fmt)
    mine = text.split(_ADDED, 1)[0]
    return frozenset(re.findall(r"(?m)^\s*([A-Z_][A-Z0-9_]*)(?:\.-?\d+)?\s*:", mine))


_LABELISH = re.compile(r"^\s*[*_#>\-]*\s*([A-Za-z][A-Za-z ]{1,20}?)(?:\s*\d+)?\s*[*_]*\s*:", re.I)


def _hint(line_text: str, fmt: Format) -> str:
    """A hint when a line looks like a label written the wrong way (case, bold, indent)."""
    m = _LABELISH.match(line_text[:80])  # a label starts near column 1: bounded time
    if not m:
        return ""
    word = m.group(1).strip().lower()
    for role, w in fmt.labels.all().items():
        if w.lower() == word and not fmt.line_start_re(role).match(line_text):
            return (
                f" (the line looks like the label '{w}:' written differently: labels are"
                " case-sensitive, unformatted and start at column 1)"
            )
    return ""


def _on_action_line(line_text: str, column: int, fmt: Format) -> bool:
    # the input line (`Action Input:`) holds the action's arguments: part of the action too
    m = fmt.line_start_re("action", "action_input").match(line_text)
    return m is not None and column > m.end()


def _invalid_from(err: UnexpectedInput, text: str, fmt: Format, start: str) -> Invalid:
    line, column = err.line, err.column
    lines = text.split("\n")
    line_text = lines[line - 1] if 0 < line <= len(lines) else ""
    expected_raw: set[str] = set(getattr(err, "expected", None) or ())
    if isinstance(err, UnexpectedCharacters) and err.allowed:
        expected_raw = set(err.allowed)
    expected = tuple(sorted({_describe_terminal(t, fmt) for t in expected_raw}))
    ctx = caret_context(text, line, column) if line > 0 else ""
    # a terminal the grammar expects only inside an action (an XML call's closing tag)
    inside = not expected_raw.isdisjoint(fmt.family.inner_terminals)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        labels_expected = {t for t in expected_raw if t in _LABEL_ROLES}
        if inside:
            shown = tok.value if len(tok.value) <= 40 else tok.value[:40] + "..."
            why = ("the text ends inside the action" if tok.type == "$END"
                   else f"the action is not written as {fmt.family.action_shape}:"
                        f" unexpected {shown!r}")
            return Invalid("malformed-action", f"{why} (expected"
                           f" {fmt.family.action_shape})" if tok.type == "$END" else why,
                           line, column, expected, ctx)
        if tok.type == "$END" and labels_expected == {"ACTION_INPUT"}:
            return Invalid(
                "malformed-action",
                f"the action has no '{fmt.labels.action_input}:' line",
                line, column, expected, ctx,
            )
        if tok.type == "$END" and not labels_expected and "_EOL" not in expected_raw:
            return Invalid(
                "malformed-action",
                f"the text ends inside the action (expected {fmt.family.action_shape})",
                line, column, expected, ctx,
            )
        if tok.type == "$END":
            what = "an action" if fmt.labels.answer is None else "an action or a final answer"
            hint = ""
            for i, other in enumerate(lines, 1):
                h = _hint(other, fmt)
                if h:
                    hint = f"; line {i}{h}"
                    break
            return Invalid(
                "no-action", f"the text ends without {what}{hint}", line, column, expected, ctx
            )
        role = _LABEL_ROLES.get(tok.type)
        if role is not None and column == 1:
            label = tok.value
            state = set(expected_raw)
            if state <= {"$END"} or state <= {"$END", "_EOL"}:
                if role == "observation":
                    return Invalid(
                        "fabricated-observation",
                        f"'{label}' after the action: the completion writes its own observation",
                        line, column, expected, ctx,
                    )
                if role == "action":
                    return Invalid(
                        "second-action",
                        f"'{label}' after the final action or answer: one action per turn",
                        line, column, expected, ctx,
                    )
                if role == "answer":
                    return Invalid(
                        "action-and-answer",
                        f"'{label}' after the action: an action and an answer in one turn",
                        line, column, expected, ctx,
                    )
            return Invalid(
                "unexpected-label", f"label '{label}' is not allowed here", line, column,
                expected, ctx,
            )
        if column > 1 and expected_raw == {"_EOL"} and _on_action_line(line_text, column, fmt):
            return Invalid(
                "trailing-text",
                f"text after the action: {tok.value.strip()[:60]!r}",
                line, column, expected, ctx,
            )
        if column == 1 and tok.type in ("TEXT", "CONT"):
            after_blank = line >= 2 and not lines[line - 2].strip(" \t\r")
            action_re = fmt.line_start_re("action")
            after_action = start == "completion" and any(
                action_re.match(x) for x in lines[: line - 1]
            )
            why = (
                "nothing may follow the action but blank lines" if after_action
                else "text after a blank line must start with a label" if after_blank
                else "this line must start with a label"
            )
            return Invalid(
                "unlabelled-text",
                f"unlabelled text where a label was expected ({why})" + _hint(line_text, fmt),
                line, column, expected, ctx,
            )
        shown = tok.value if len(tok.value) <= 40 else tok.value[:40] + "..."
        if _on_action_line(line_text, column, fmt):
            return Invalid(
                "malformed-action",
                f"the action is not written as {fmt.family.action_shape}: unexpected {shown!r}",
                line, column, expected, ctx,
            )
        return Invalid(
            "syntax", f"unexpected {shown!r}" + _hint(line_text, fmt), line, column, expected, ctx
        )
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream
        ch = text[pos] if pos is not None and pos < len(text) else ""
        code = "syntax"
        msg = f"unexpected character {ch!r}"
        if ch == '"':
            code, msg = "unbalanced-quote", "a quote that does not close a quoted argument"
        elif ch in "[]":
            code = "bracket"
            msg = f"unexpected {ch!r}: brackets inside a bare argument must be quoted"
        if inside or _on_action_line(line_text, column, fmt):
            code = "malformed-action"
            msg = f"the action is not written as {fmt.family.action_shape}: {msg}"
            if ch == '"':
                msg += " (a quote that does not close)"
        return Invalid(code, msg + _hint(line_text, fmt), line, column, expected, ctx)
    if isinstance(err, UnexpectedEOF):
        return Invalid("no-action", "the text ends too early", line, column, expected, ctx)
    return Invalid("syntax", str(err).splitlines()[0], line, column, expected, ctx)


# ---------------------------------------------------------------------------------------
# Trees to Steps.


def _value_text(children: list[Any]) -> str:
    parts: list[str] = []
    for ch in children:
        if isinstance(ch, Token) and ch.type in ("TEXT", "CONT"):
            parts.append(ch.value.rstrip("\r"))
    return join_value(parts)


def _label_number(tok: Token) -> int | None:
    m = re.search(r"(\d+):$", tok.value)
    return int(m.group(1)) if m else None


def _build_step(tree: Tree, text: str, fmt: Format) -> Step:
    thoughts: list[str] = []
    final = tree.children[-1]
    for ch in tree.children[:-1]:
        if isinstance(ch, Tree) and ch.data in ("preamble", "thought"):
            thoughts.append(_value_text(ch.children))
    thought = "\n".join(t for t in thoughts if t)
    assert isinstance(final, Tree)
    if final.data == "answer":
        return Step(thought=thought, answer=fmt.family.read_answer(final, text, fmt))
    return fmt.family.read_action(final, text, fmt, thought)


def _check_numbering(tree: Tree, text: str, fmt: Format, start: str) -> Invalid | None:
    """Numbered formats: labels carry numbers, a step's labels share one, steps count up.

    The caret context (a split of the whole text) is built only for the label that is
    wrong: building it for every label made long transcripts quadratic.
    """
    current: int | None = None
    seen: list[str] = []  # roles seen in the current step
    order = {"thought": 0, "action": 1, "observation": 2}
    for tok in tree.scan_values(lambda v: isinstance(v, Token)):
        role = _LABEL_ROLES.get(tok.type)
        if role not in order:
            continue
        n = _label_number(tok)
        word = getattr(fmt.labels, role)
        if fmt.numbered and n is None:
            return Invalid(
                "label-number",
                f"'{tok.value}' has no number: the {fmt.name} format numbers its labels"
                f" ('{word} 1:')",
                tok.line, tok.column, (f"'{word} N:'",),
                caret_context(text, tok.line, tok.column),
            )
        if not fmt.numbered:
            if n is not None:
                return Invalid(
                    "label-number",
                    f"'{tok.value}' is numbered: the {fmt.name} format writes '{word}:'",
                    tok.line, tok.column, (f"'{word}:'",),
                    caret_context(text, tok.line, tok.column),
                )
            continue
        assert n is not None
        # a new step starts after an observation, or with a thought after a thought-only step
        if current is None or (
            n == current + 1
            and role != "observation"
            and (seen[-1] == "observation" or (role == "thought" and seen == ["thought"]))
        ):
            current, seen = n, [role]
            continue
        if n == current and (not seen or order[role] > order[seen[-1]]):
            seen.append(role)
            continue
        want = f"{current}" if role == "observation" else f"{current} or {current + 1}"
        return Invalid(
            "label-number",
            f"'{tok.value}' is out of sequence: expected number {want} after"
            f" '{getattr(fmt.labels, seen[-1])} {current}:'",
            tok.line, tok.column, (), caret_context(text, tok.line, tok.column),
        )
    return None


def _prepare(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def grammar_parse(completion: str, fmt: Format | str = "bracket", *, fast: bool = True) -> Step:
    """Parse one completion with the format's grammar; never raises on bad input.

    ``fast=False`` skips the regex fast path and always runs Lark (the reference).
    Nesting deeper than Python's recursion limit (JSON arguments ``[[[[...]]]]``) is an
    invalid step, not a ``RecursionError``. The first characters of a stop word left at the
    end of the text (:func:`partial_stop_tail`) are not read: a provider that stopped
    part-way through the word left them, and they are no part of the step.
    """
    fmt = get_format(fmt)
    tail = partial_stop_tail(completion, fmt)
    if tail is not None:
        completion = completion[:-len(tail)]
    try:
        return _grammar_parse(completion, fmt, fast)
    except RecursionError:
        return Step(invalid=_TOO_DEEP)


def partial_stop_tail(completion: str, fmt: Format) -> str | None:
    """The first characters of one of ``fmt``'s stop words (or of its observation label)
    that end ``completion`` on a line or after a space of their own (``...\\nObserv``): what a
    provider leaves when it stops part-way through a stop word split into tokens, or when
    the length limit falls inside it; ``None`` when the text ends otherwise."""
    parts = _stop_parts(fmt.stop, fmt.labels.observation).get(completion[-1:], ())
    for part in parts:
        if completion.endswith(part) and completion.endswith(
                ("\n", " "), 0, len(completion) - len(part)):
            return part
    return None


@lru_cache(maxsize=64)
def _stop_parts(stop: tuple[str, ...], observation: str) -> dict[str, tuple[str, ...]]:
    """The first characters of each stop word (longest first, stop words in order), by
    their last character: most completions end with a character none of them ends with,
    and are done with after one look-up."""
    by_last: dict[str, list[str]] = {}
    for word in stop or (f"\n{observation}:",):
        body = word.lstrip("\n")
        for k in range(len(body) - 1, 0, -1):
            by_last.setdefault(body[k - 1], []).append(body[:k])
    return {c: tuple(ps) for c, ps in by_last.items()}


_TOO_DEEP = Invalid("too-deep", "the text nests brackets too deeply to be read")


def _grammar_parse(completion: str, fmt: Format, fast: bool) -> Step:
    if fast:
        fp = fast_path(fmt)
        if fp is not None:
            step = fp.parse(completion)
            if step is not None:
                return step
    tree, text, bad = _read(completion, fmt, "completion")
    return Step(invalid=bad) if tree is None else _build_step(tree, text, fmt)


def _read(text: str, fmt: Format, start: str) -> tuple[Tree | None, str, Invalid | None]:
    """Lark's tree of ``text`` from rule ``start``, the prepared text, and why the grammar
    or the label numbering refused it (the tree is then ``None``)."""
    text = _prepare(text)
    try:
        tree = lark_parser(fmt).parse(text, start=start)
    except UnexpectedInput as e:
        return None, text, _invalid_from(e, text, fmt, start)
    bad = _check_numbering(tree, text, fmt, start)
    return (None, text, bad) if bad is not None else (tree, text, None)


@dataclass(frozen=True, slots=True)
class Block:
    """One labelled block of a transcript: its role, label number, text and first line."""

    role: str
    number: int | None
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Transcript:
    """A transcript as the grammar read it: its blocks, or why it was refused."""

    blocks: tuple[Block, ...] = ()
    invalid: Invalid | None = None

    @property
    def ok(self) -> bool:
        """Whether the grammar accepted the whole transcript."""
        return self.invalid is None

    def steps(self) -> int:
        """How many actions (including a final action) the transcript holds."""
        return sum(1 for b in self.blocks if b.role == "action")


def parse_transcript(text: str, fmt: Format | str = "bracket") -> Transcript:
    """Parse a whole conversation (header, steps, observations, end) with the grammar."""
    fmt = get_format(fmt)
    try:
        return _parse_transcript(text, fmt)
    except RecursionError:
        return Transcript(invalid=_TOO_DEEP)


def _parse_transcript(text: str, fmt: Format) -> Transcript:
    tree, text, bad = _read(text, fmt, "transcript")
    if tree is None:
        return Transcript(invalid=bad)
    blocks: list[Block] = []
    for node in tree.iter_subtrees_topdown():
        if node.data in ("header", "thought", "observation", "answer", "action"):
            label = next(node.scan_values(lambda v: isinstance(v, Token)))
            assert isinstance(label, Token) and label.line is not None
            if node.data == "answer":
                body_text = fmt.family.read_answer(node, text, fmt)
            elif node.data == "action":
                body_text = rest_text(node, text)
            else:
                body_text = _value_text(node.children[1:])
            blocks.append(Block(str(node.data), _label_number(label), body_text, label.line))
    blocks.sort(key=lambda b: b.line)
    return Transcript(tuple(blocks))
