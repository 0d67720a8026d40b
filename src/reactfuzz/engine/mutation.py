"""Mutations of a base scenario: adversarial pieces inserted inside its thought.

Exploration draws a base and up to ``max_insertions`` pieces at offsets inside the lines
of the thought the format's grammar reads (:class:`Slots`), where they must not change
what the completion means. A draw is ``(base, inserts)``; the mutated text is built only
where it is parsed (by the target, which may be a worker process) and the scenario only
where it is judged (:func:`apply_inserts`).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable

from ..formats import Format
from ..formats.grammars import grammar_parse
from ..strategies import Scenario, adversarial_pieces

__all__ = ["TRACE_MAX_CHARS", "Slots", "apply_inserts", "draw_inserts", "inserts_drawer",
           "safe_pieces", "thought_slots"]

TRACE_MAX_CHARS = 4096
"""Guided exploration traces the parses of texts up to this long; longer bases get no
slots either (see :class:`Slots`)."""


class Slots:
    """Where pieces may go in one base's text: inside the lines of the thought the format's
    grammar reads (after a line's first character, up to its end), never in a label, the
    action or the answer; none when the grammar refuses the base (there is no thought to
    tell from the call then) or the base is long. Kept as runs, so that the n-th offset is
    found without a list of them all; computed once per base."""

    __slots__ = ("ends", "shifts", "total", "width")

    def __init__(self, text: str, fmt: Format) -> None:
        self.ends: list[int] = []  # how many offsets the runs up to this one hold
        # what the n-th offset adds to n, by run: the n-th offset is n plus its run's shift
        self.shifts: list[int] = []
        self.total = 0
        self.width = 0  # the bits of ``total``: what a draw below it asks getrandbits for
        if len(text) > TRACE_MAX_CHARS:
            return
        step = grammar_parse(text, fmt)
        if step.invalid is not None:
            return
        # the thought's lines where the completion holds them, in order, before the
        # first line that starts with the action, answer or input label's word
        label = fmt.line_start_re("action", "answer", "action_input", number=False,
                                  colon=False).search(text)
        end = label.start() if label is not None else len(text)
        pos = 0
        for line in (x.strip() for x in step.thought.split("\n")):
            at = text.find(line, pos, end) if line else -1
            if at < 0:
                continue
            first, last = at + 1, min(at + len(line), end - 1)
            if last >= first:
                self.shifts.append(first - self.total)
                self.total += last - first + 1
                self.ends.append(self.total)
            pos = at + len(line)
        self.width = self.total.bit_length()

    def at(self, n: int) -> int:
        """The ``n``-th offset (0-based, ``n < total``)."""
        return n + self.shifts[bisect_right(self.ends, n)]


def thought_slots(text: str, fmt: Format) -> list[int]:
    """Every offset strictly inside the thought lines of ``text`` (see :class:`Slots`)."""
    slots = Slots(text, fmt)
    return [slots.at(n) for n in range(slots.total)]


def safe_pieces(fmt: Format) -> list[str]:
    """Pieces that cannot change what a completion means when put inside a thought line."""
    out = []
    for p in adversarial_pieces(fmt):
        if "\n" in p or any(s in p or p in s for s in fmt.stop if s.strip()):
            continue
        out.append(p)
    return out


def draw_inserts(rng: random.Random, pieces: list[str], max_insertions: int, slots: Slots,
             kept: list[tuple[int, str]] | None = None) -> list[tuple[int, str]]:
    """The inserts of one mutation, right to left: the ``kept`` ones and 1 to
    ``max_insertions`` new ones (none when the base has no slots).

    The draws are those of ``rng.randint(1, max_insertions)``, then per piece
    ``rng.randrange(slots.total)`` and ``rng.choice(pieces)``: for a ``random.Random``
    the numbers its ``_randbelow`` gives (what those three call, without their argument
    checks), drawn as it draws them from ``getrandbits``; a test holds them equal."""
    if not slots.total:
        return list(kept or [])
    if type(rng) is not random.Random or max_insertions < 1 or not pieces:
        new = [(slots.at(rng.randrange(slots.total)), rng.choice(pieces))
               for _ in range(rng.randint(1, max_insertions))]
    else:
        new = inserts_drawer(rng, pieces, max_insertions)(slots)
    if kept:
        new += kept
    new.sort(reverse=True)
    return new


def inserts_drawer(rng: random.Random, pieces: list[str], max_insertions: int
                   ) -> Callable[[Slots], list[tuple[int, str]]]:
    """``draw_inserts(rng, pieces, max_insertions, slots)`` as a function of ``slots``
    alone, for a loop that draws thousands: what does not change from one draw to the
    next (the bit lengths, the bound methods) is looked up once. The same numbers."""
    if type(rng) is not random.Random or max_insertions < 1 or not pieces:
        return lambda slots: draw_inserts(rng, pieces, max_insertions, slots)
    bits = rng.getrandbits
    n = len(pieces)
    kn, km = n.bit_length(), max_insertions.bit_length()

    def draw(slots: Slots) -> list[tuple[int, str]]:
        total = slots.total
        if not total:
            return []
        count = bits(km)
        while count >= max_insertions:
            count = bits(km)
        kt, ends, shifts = slots.width, slots.ends, slots.shifts
        new = []
        for _ in range(count + 1):
            offset = bits(kt)
            while offset >= total:
                offset = bits(kt)
            which = bits(kn)
            while which >= n:
                which = bits(kn)
            new.append((offset + shifts[bisect_right(ends, offset)], pieces[which]))
        if count:  # one piece is in order already
            new.sort(reverse=True)
        return new

    return draw


def apply_inserts(sc: Scenario, inserts: list[tuple[int, str]]) -> Scenario:
    """The mutation of ``sc`` with ``inserts`` (offsets of its text, right to left)."""
    text = sc.completion
    for at, piece in inserts:  # right to left, so earlier offsets stay valid
        text = text[:at] + piece + text[at:]
    # built field by field: ``dataclasses.replace`` looks every field up, once per scenario
    return Scenario(sc.format, sc.abuse, sc.intent, text, text, sc.acceptable,
                    sc.stop_sequence)
