"""The renderer: the writer's side of a format, ``render(intent, format) -> completion``.

``render`` writes what a model following the format's prompt would write, even when
that text cannot carry the intent (a comma inside a ``bracket`` argument).
:func:`representable` says whether it can, and :func:`written_form` gives the intent as
the format carries it back (text formats carry strings), so a check can tell "the
protocol is ambiguous" from "the parser is wrong". The law, tested as a Hypothesis
property: ``representable(i, f)`` implies ``grammar_parse(render(i, f), f).intent() ==
written_form(i, f)``.

How each action shape is written is the format's family's business
(:class:`~reactfuzz.formats.Family`); this module is the entry point that resolves the
format and adds the thought line.
"""

from __future__ import annotations

from .formats import Format, Representability, encode_text, get_format
from .model import Intent

__all__ = ["Representability", "encode_text", "render", "representable", "written_form"]


def render(
    intent: Intent,
    fmt: Format | str = "bracket",
    *,
    thought: str | None = None,
    step: int = 1,
    quote: bool = False,
) -> str:
    """Write ``intent`` as a completion in ``fmt`` (what a model would write).

    ``thought`` adds a thought line (where the format writes one before ``intent``);
    ``step`` is the label number for numbered formats;
    ``quote=True`` writes bracket arguments that need it as JSON strings (the canonical
    form) instead of bare, as models do.
    """
    fmt = get_format(fmt)
    return "\n".join(fmt.family.write_turn(intent, fmt, thought=thought, step=step, quote=quote))


def representable(
    intent: Intent, fmt: Format | str = "bracket", *, quote: bool = False
) -> Representability:
    """Whether ``render(intent, fmt, quote=quote)`` reads back as ``written_form``."""
    fmt = get_format(fmt)
    return fmt.family.representable(intent, fmt, quote=quote)


def written_form(intent: Intent, fmt: Format | str = "bracket") -> Intent:
    """The intent as the format carries it back: strings for text formats, JSON values else."""
    fmt = get_format(fmt)
    return fmt.family.written_form(intent, fmt)
