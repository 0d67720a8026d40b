"""Root causes: what a failure looked like, with the values that vary between examples masked.

Two failing examples are one bug when the same check failed the same way for the same
reason: ``search() missing 1 required positional argument: 'query'`` and
``get_charge() missing 1 required positional argument: 'charge_id'`` are one crash, reached
from whichever operator wrote an empty argument list. A check puts such a signature on its
:class:`~reactfuzz.engine.checks.Failure`; the search shrinks each (check, kind, cause,
signature) on its own and the run keeps one finding per root cause, listing the other
operators that also reached it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..dispatch import Crashed, Executed, Finished, Outcome, Rejected
from ..formats import Format
from ..model import Call, FinalAnswer, Intent

__all__ = ["arg_difference", "mask", "mask_echo", "outcome_signature", "refusal_kind",
           "text_shape", "with_origin"]

_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_CALLED = re.compile(r"\b[A-Za-z_]\w*(?=\()")
_NUMBER = re.compile(r"\d+")
_LIST = re.compile(r"'…'(?:, '…')*,? and '…'")
_GRAMMAR = {"arguments": "argument", "were": "was"}
# a flat {...} group (a dict or a set a message echoes: its size is the tool's, not the bug's)
_BRACES = re.compile(r"\{[^{}\n]*\}")
# a flat (...) group holding a masked value: a call's or a constructor's arguments
_PARENS = re.compile(r"\((?=[^()\n]*'…')[^()\n]*\)")
# one masked item repeated in a list: as many as the tool has parameters
_REPEATED = re.compile(r"(?<![^\s,])([^\s,]+)(?:, \1)+(?![^\s,])")
# a plural before a colon ("Missing keys:"): the count is the tool's
_PLURAL = re.compile(r"\b([A-Za-z]{2,}?)s(?=:)")
_WORD = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s+")
_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


_NAME = "\x01"
# an echo broken only by the names in it ("…X…"): one echo
_ECHO_AROUND_NAME = re.compile(r"(?:…X|X…)[…X]*")

MIN_ECHO = 6
"""The shortest run of a message's characters that counts as an echo of the completion."""

_ECHO_WINDOW = 65536


def _haystack(completion: str) -> str:
    """The completion as a message may quote it, in one string: as written, with its
    whitespace runs folded to one space (what a one-line message makes of it), and as
    ``repr`` writes it; of a long text its two ends (a message quotes a head or a tail)."""
    flat = " ".join(completion.split())
    rep = repr(completion)[1:-1]
    forms = dict.fromkeys([completion, flat, rep, " ".join(rep.split())])
    parts: list[str] = []
    for f in forms:
        parts += [f] if len(f) <= 2 * _ECHO_WINDOW else [f[:_ECHO_WINDOW], f[-_ECHO_WINDOW:]]
    return "\0".join(parts)


def mask_echo(text: str, completion: str, min_run: int = MIN_ECHO) -> str:
    """``text`` with every run of at least ``min_run`` characters that the completion
    holds (as written, folded or repr'd) replaced by ``…``: a message that quotes the
    completion (``f"Could not parse LLM output: {text}"``) says the same for every text."""
    if not completion or len(text) < min_run:
        return text
    hay = _haystack(completion)
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = i + min_run
        # an echo starts at a word's start: "format: {" keeps "format" whole
        starts = i == 0 or not (text[i - 1].isalnum() and text[i].isalnum())
        if starts and j <= n and text[i:j] in hay:
            while j < n and text[i:j + 1] in hay:
                j += 1
            out.append("…")
            i = j
        else:
            out.append(text[i])
            i += 1
    # two echoes side by side (a quote broken by a character the text does not hold
    # there) are one: "path……" and "path '…'" are the same message
    return re.sub("…{2,}", "…", "".join(out))


def mask(text: str, tools: Iterable[str] = (), params: Iterable[str] = (),
         completion: str = "") -> str:
    """``text`` with what varies between examples of one bug masked: whatever it quotes
    of the ``completion`` (:func:`mask_echo`), quoted values, the
    names of called functions and of ``tools``, ``params`` before a ``:`` or ``=``,
    numbers, and what the tool's size brings: the plural of a count, the items of an
    echoed dict or argument list (``{'query': 'a'}`` and ``{'customer_id': 'c', 'since':
    'd'}`` are one ``{…}``), a masked item repeated once per parameter."""
    out = text[:4096].replace(_NAME, "")
    # names first, as a character no text holds: an echo is masked around them, and a
    # list of the registry's tools in a message stays one list whatever the text held
    for name in sorted(set(tools), key=len, reverse=True):
        out = re.sub(rf"\b{re.escape(name)}\b", _NAME, out) if name else out
    for name in sorted(set(params), key=len, reverse=True):
        out = re.sub(rf"\b{re.escape(name)}(?=\s*[:=])", _NAME, out) if name else out
    out = mask_echo(out, completion.replace(_NAME, ""))
    out = _ECHO_AROUND_NAME.sub("…", out.replace(_NAME, "X"))
    out = _LIST.sub("'…'", _QUOTED.sub("'…'", out))
    out = _CALLED.sub("f", out)
    for _ in range(4):  # innermost groups first: a nested dict folds in a few passes
        folded = _PARENS.sub("(…)", _BRACES.sub("{…}", out))
        if folded == out:
            break
        out = folded
    out = _REPEATED.sub(r"\1", out)
    out = _NUMBER.sub("N", out)
    out = re.sub(r"\b(arguments|were)\b", lambda m: _GRAMMAR[m.group()], out)
    out = _PLURAL.sub(r"\1", out)
    return out[:160]


_WHERE = re.compile(r"^line \d+, column \d+: ")


def refusal_kind(refusal: Outcome) -> str:
    """How the format's own reading takes a text, coarsely: it reads the text (no
    refusal), the text ends inside a call (unclosed, cut short), the reason code of a call
    it reads but cannot bind (``missing-arg``), or the text is otherwise unreadable. Finer
    kinds (which token, which key) split one bug of the parser into many: a reader that
    skips every call it cannot decode skips broken JSON and a call of another shape alike."""
    if not isinstance(refusal, Rejected):
        return "it reads the text"
    if refusal.reason != "unparseable":
        return refusal.reason
    if _WHERE.sub("", refusal.message).startswith("the text ends inside"):
        return "the text ends inside a call"
    return "unparseable"


def text_shape(text: str) -> str:
    """The punctuation of ``text`` with words reduced to ``a``: ``"] (see [1"`` -> ``"] (a [a"``."""
    return _SPACE.sub(" ", _WORD.sub("a", text))[:40]


def _lone_surrogates(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def arg_difference(ran: Call, meant: Call, *, coarse: bool = False) -> str:
    """The smallest description of how the arguments that ran differ from the meant ones.

    Two ways of decoding a string wrong are told apart from any other value, since they
    are different bugs of a decoder: an escaped character beyond the BMP read as two lone
    surrogates, and an escape left undecoded (a backslash the meant text does not hold).
    ``coarse`` leaves out what was kept or lost (the text's part, not the parser's).
    """
    got, want = [str(a) for a in ran.args], [str(a) for a in meant.args]
    if len(got) != len(want):
        return "more arguments" if len(got) > len(want) else "fewer arguments"
    for g, w in zip(got, want):
        if g == w:
            continue
        if _lone_surrogates(g) and not _lone_surrogates(w):
            return "decoded to lone surrogates"
        if g.count("\\") > w.count("\\") and g.replace("\\", "") == w.replace("\\", ""):
            return "kept an escape's backslash"
        if coarse:  # what was kept or lost, by kind: quotes, other text
            if w and w in g:
                rest = g.replace(w, "", 1)
                return "kept quotes" if rest and not rest.strip("\"'`") else "kept more text"
            return "lost text" if g in w else "another value"
        if w and w in g:
            return f"kept {text_shape(g.replace(w, '', 1))!r}"
        if g in w:
            return f"lost {text_shape(w.replace(g, '', 1))!r}" if g else "lost the value"
        return "another value"
    return "another type"


def _label_place(completion: str, words: Iterable[str]) -> str:
    """Where the first answer label stands: at a line start, after an odd line break, inside."""
    for w in words:
        col = completion.find(w)
        if col < 0:
            continue
        before = completion[col - 1] if col else "\n"
        if before == "\n":
            return "label at a line start"
        if before in _LINE_BREAKS:
            return "label after an odd line break"
        return "label inside a line"
    return "no label"


def outcome_signature(kind: str, outcome: Outcome, intent: Intent, acceptable_calls: tuple[
        Call, ...], completion: str, fmt: Format, tools: Iterable[str] = (),
        params: Iterable[str] = (), *, refusable: bool = True,
        refused: str = "", proxies: bool = True) -> str:
    """The root-cause signature of a verdict: what happened, values masked.

    ``refusable=False`` says the text carries exactly the intent (no refusal is right): a
    call lost from such a text is another root cause than a broken text read as a message.
    ``refused`` is how the format's own reading takes the text (:func:`refusal_kind`): a
    call lost from unreadable JSON, from an unclosed tag and from a text the format reads
    are three root causes, not one "read as a message".

    ``proxies=False`` leaves out what stands in for the parser's mechanism when its code
    cannot be seen -- where the answer label stood in the text, how the grammar reads it:
    with the parser's own origin or path at hand (:func:`with_origin`) the code says it.
    """
    if isinstance(outcome, Crashed):
        return mask(f"{outcome.exc_type}: {outcome.message}", tools, params, completion)
    if isinstance(outcome, Rejected):
        return f"{outcome.reason}: {mask(outcome.message, tools, params, completion)}"
    if isinstance(outcome, Finished):
        meant = "meant an answer" if isinstance(intent, FinalAnswer) else (
            "meant a call" if refusable else "meant a call the text carries")
        if not proxies:
            # where the label stood is the text's; how the format reads the text is not:
            # it tells a pattern's mechanisms apart that no line of Python shows
            return f"read as an answer; the format: {refused}" if refused else \
                "read as an answer"
        words = [w for w in (f"{fmt.labels.answer}:", fmt.finish_action) if w]
        where = f"{meant}; {_label_place(completion, words)}"
        return f"{where}; the format: {refused}" if refused else where
    if isinstance(outcome, Executed):
        if kind == "unvalidated-call":
            # one bug whatever the schema error: the design runs calls it never validated
            return "ran arguments its schema refuses"
        ran = outcome.call
        if isinstance(intent, FinalAnswer):
            return "ran a call where an answer was meant"
        if ran.tool != intent.tool:
            return "ran another tool"
        if not acceptable_calls:
            return "ran a call the text should not carry" if kind == "wrong-call" else "ran it"
        return arg_difference(ran, acceptable_calls[0], coarse=not proxies)
    return ""


def with_origin(shape: str, origin_key: str) -> str:
    """The signature of a failure whose origin is known: the outcome's shape without the
    text's stand-ins, then where the parser decided. Two examples are one bug when both
    agree; the completion's text never enters."""
    return f"{shape} @ {origin_key}" if origin_key else shape
