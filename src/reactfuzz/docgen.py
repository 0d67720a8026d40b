"""Write the generated parts of the docs from the code, so they cannot drift.

``python -m reactfuzz.docgen`` rewrites every block between ``<!-- BEGIN name -->`` and
``<!-- END name -->`` in the files below; ``--check`` only reports stale blocks (exit 1).
A test runs the check.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["BLOCKS", "main", "render_blocks"]


def _decision_table() -> str:
    from .designs import decision_table_markdown

    return decision_table_markdown()


def _verdicts() -> str:
    from .kinds import VERDICT_MEANING as meaning
    from .oracle import SEVERITY

    rows = ["| verdict | severity | meaning |", "|---|---|---|"]
    rows += [f"| `{k}` | {SEVERITY[k]} | {meaning[k]} |" for k in SEVERITY]
    return "\n".join(rows)


def _minimal_example(abuse_id: str) -> tuple[str, str]:
    """The simplest scenario of an operator (Hypothesis's shrunk first example)."""
    from hypothesis import HealthCheck, Phase, find, settings

    from .strategies import ABUSES, scenarios
    from .tools import default_registry

    op = ABUSES[abuse_id]
    from .formats import BUILTIN_FORMATS

    preferred = ("bracket", "json-args", "action-input", "paper", *BUILTIN_FORMATS)
    fmt = next(f for f in preferred if op.applies_to(f))
    sc = find(
        scenarios(default_registry(), fmt, abuses=[abuse_id]),
        lambda s: True,
        # the first example generated, unshrunk: Hypothesis tries the simplest input first,
        # and shrinking paths vary with process state, which would make the docs flicker
        settings=settings(database=None, derandomize=True, max_examples=200,
                          phases=[Phase.generate], suppress_health_check=list(HealthCheck)),
    )
    return fmt, sc.raw


def _cell(text: str) -> str:
    # invisible characters and line breaks shown as escapes, so the cell stays one line
    shown = text.encode("unicode_escape").decode("ascii")
    shown = shown.replace("|", "\\|").replace("`", "'")
    return f"`{shown}`"


def _abuse_catalogue() -> str:
    from .strategies import ABUSES

    rows = [
        "| id | what it does | why it matters | the oracle expects | example (simplest) |"
        " classic designs it breaks |",
        "|---|---|---|---|---|---|",
    ]
    for op in ABUSES.values():
        fmt, example = _minimal_example(op.id)
        broken = ", ".join(f"`{d}`" for d in op.breaks) or f"none: {op.breaks_none_because}"
        rows.append(
            f"| `{op.id}` | {op.description} | {op.why} | {op.expects} |"
            f" {fmt}: {_cell(example)} | {broken} |"
        )
    return "\n".join(rows)


def _checks_listing() -> str:
    from .cli.listing import checks_listing

    return f"```console\n$ reactfuzz checks\n{checks_listing()}\n```"


def _check_table() -> str:
    from .engine.checks import CHECKS

    rows = ["| check | failure kinds (severity) | per scenario in exploration | fix of its own |",
            "|---|---|---|---|"]
    for c in CHECKS.values():
        kinds = ", ".join(f"`{k}` ({c.severity_of(k)})" for k in c.kinds)
        fix = "yes" if c.advice else "no: the operator's"
        rows.append(f"| `{c.id}` | {kinds} | {'yes' if c.fast else 'no'} | {fix} |")
    return "\n".join(rows)


class _PinnedHelpFormatter(argparse.HelpFormatter):
    """argparse's help layout as of Python 3.10-3.12, whatever Python renders the docs.

    Python 3.13 writes ``-f, --format FORMAT`` where earlier versions write ``--format
    FORMAT, -f FORMAT``; pinning the older form keeps the generated blocks identical on
    every supported Python.
    """

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings:
            default = self._get_default_metavar_for_positional(action)
            (metavar,) = self._metavar_formatter(action, default)(1)
            return metavar
        if action.nargs == 0:
            return ", ".join(action.option_strings)
        default = self._get_default_metavar_for_optional(action)
        args = self._format_args(action, default)
        return ", ".join(f"{option} {args}" for option in action.option_strings)


def _command_help(name: str) -> Callable[[], str]:
    """The ``--help`` text of one ``reactfuzz`` command, as a 100-column terminal shows it."""

    def render() -> str:
        from .cli import build_parser

        parser = build_parser()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        command = sub.choices[name]
        # what format_help() does, with a fixed formatter and width (COLUMNS=100 minus 2)
        fmt = _PinnedHelpFormatter(prog=command.prog, width=98)
        fmt.add_usage(command.usage, command._actions, command._mutually_exclusive_groups)
        fmt.add_text(command.description)
        for group in command._action_groups:
            fmt.start_section(group.title)
            fmt.add_text(group.description)
            fmt.add_arguments(group._group_actions)
            fmt.end_section()
        fmt.add_text(command.epilog)
        return "```text\n" + fmt.format_help().rstrip("\n") + "\n```"

    return render


_COMMANDS = ("demo", "formats", "parsers", "parse", "conform", "fuzz", "loop", "serve", "replay",
             "study", "bench", "abuses", "checks")


# file (relative to the repository root) -> block name -> generator
BLOCKS: dict[str, dict[str, Callable[[], str]]] = {
    "docs/concepts.md": {"decision-table": _decision_table, "verdicts": _verdicts},
    "docs/abuses.md": {"catalogue": _abuse_catalogue},
    "docs/cli.md": {"checks-list": _checks_listing,
                    **{f"help-{c}": _command_help(c) for c in _COMMANDS}},
    "docs/custom-checks.md": {"check-table": _check_table},
}


def render_blocks(text: str, blocks: dict[str, Callable[[], str]]) -> str:
    """Replace each named block's body in ``text`` with its generator's output."""
    for name, fn in blocks.items():
        pattern = re.compile(
            rf"(<!-- BEGIN {re.escape(name)} -->\n).*?(<!-- END {re.escape(name)} -->)", re.S
        )
        if not pattern.search(text):
            raise ValueError(f"block {name!r} has no BEGIN/END markers")
        body = fn().rstrip("\n") + "\n"

        def fill(m: re.Match[str], body: str = body) -> str:
            return m.group(1) + body + m.group(2)

        text = pattern.sub(fill, text)
    return text


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with ``--check``, verify) the generated doc blocks."""
    ap = argparse.ArgumentParser(prog="python -m reactfuzz.docgen")
    ap.add_argument("--check", action="store_true", help="exit 1 if a block is stale")
    ap.add_argument("--root", default=".", help="repository root (default: .)")
    args = ap.parse_args(argv)
    stale = []
    for rel, blocks in BLOCKS.items():
        path = Path(args.root) / rel
        old = path.read_text(encoding="utf-8")
        new = render_blocks(old, blocks)
        if new != old:
            stale.append(rel)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(f"stale generated docs: {', '.join(stale)} (run python -m reactfuzz.docgen)")
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
