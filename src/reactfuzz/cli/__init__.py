"""The ``reactfuzz`` command line: a thin layer over the library.

Exit codes: 0 success, 1 the check found something (an invalid step, rejected
transcripts), 2 a usage or configuration error (one line, no traceback), 130 interrupted.

``arguments`` builds the parser; the commands live by theme: ``fuzz`` (fuzz, replay),
``study`` (study, bench), ``parse`` (parse, conform) and ``listing`` (formats, parsers,
abuses, checks, demo).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence

from ..errors import ReactfuzzError
from ..textsafe import safe_stream
from .arguments import build_parser

__all__ = ["interrupt_behind", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code. Everything it writes to stdout and stderr passes
    the one sanitiser (:func:`reactfuzz.textsafe.safe_stream`): a format's name, a parser's
    message or an argument echoed by argparse never reaches the terminal as control codes."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = safe_stream(out), safe_stream(err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else list(argv)):
        parser.print_help()  # bare `reactfuzz`: what it can do, not an error
        return 0
    args, extra = parser.parse_known_args(argv)
    if extra:  # name the subcommand whose options were meant, not the top level
        sub = getattr(args, "command", None)
        where = f"reactfuzz {sub}" if sub else "reactfuzz"
        print(f"reactfuzz: error: unrecognized arguments: {' '.join(extra)} (see '{where}"
              " --help')", file=sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except ReactfuzzError as e:
        print(f"reactfuzz: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # SIGTERM during a fuzz run arrives as one (143)
        return _interrupted(e)
    except BrokenPipeError:
        return 0
    except Exception as e:
        return _interrupted_or_raise(e)


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that directly caused ``exc``, if one did: Python 3.11 wraps
    one that lands inside a class's ``__set_name__`` (a dataclass field, while a command
    imports Hypothesis) in a RuntimeError, which would otherwise end the run with a
    traceback instead of one line."""
    seen = 0
    cause = exc.__cause__
    while cause is not None and seen < 8:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        cause, seen = cause.__cause__, seen + 1
    return None


def entry() -> None:
    """Console-script entry point (Ctrl-C while starting up is one line too)."""
    try:
        code = main()
    except KeyboardInterrupt as e:  # outside main's own handling: at its start or end
        code = _interrupted(e)
    except Exception as e:  # one wrapped while a module loads, outside main's handling
        code = _interrupted_or_raise(e)
    _settled()
    sys.exit(code)


def _settled() -> None:
    """The run is over and its reports are written: a signal now changes nothing. Python
    gives SIGINT its default action back while it shuts down, so one arriving then would
    end the process by the signal (-2) instead of the code the run reported."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, signal.SIG_IGN)
        except KeyboardInterrupt:  # one that lands right now is as late
            pass
        except (ValueError, OSError):  # not the main thread, or no such signal here
            pass


def _interrupted_or_raise(exc: Exception) -> int:
    """:func:`_interrupted` for the interrupt behind ``exc`` (:func:`interrupt_behind`);
    ``exc`` itself, raised again, when no interrupt caused it."""
    stop = interrupt_behind(exc)
    if stop is None:
        raise exc
    return _interrupted(stop)


def _interrupted(exc: KeyboardInterrupt) -> int:
    """Say how the run was stopped, in one line, and give its exit code: 143 for SIGTERM
    (a ``Terminated``, the engine's or the entry point's), 130 for Ctrl-C."""
    terminated = type(exc).__name__ == "Terminated"
    print(f"reactfuzz: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    return 143 if terminated else 130
