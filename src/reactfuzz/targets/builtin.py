"""Built-in targets: the parsers of the parser registry, run in-process.

A built-in needs no isolation (its regexes carry their own time limit), so it is called
directly; its own regex timeout is reported as ``timed_out`` like every other target's.
"""

from __future__ import annotations

from ..formats import Format, get_format
from ..parsers import Parser, get_parser
from .adapters import check_supported, invoke
from .base import ParseResult, Target
from .origin import Origin, ProfileRequest, TraceRequest

__all__ = ["BuiltinTarget", "builtin_target"]

class BuiltinTarget(Target):
    """A built-in (or registered) parser, run in-process.

    A built-in's own regex timeout (an invalid Step with code ``timeout``) is reported
    as ``timed_out``, like every other target's.
    """

    kind = "builtin"

    def __init__(self, name: str, fmt: Format | str = "bracket") -> None:
        self.format = get_format(fmt)
        self.parser: Parser = get_parser(name, self.format)
        self.name = name

    def run(self, completion: str) -> ParseResult:
        """Parse in-process (registered third-party parsers that raise are classified); a
        :class:`~.origin.TraceRequest` is parsed under the tracer and a
        :class:`~.origin.ProfileRequest` under the profiler, as a worker does."""
        return self._run(completion, trace=isinstance(completion, TraceRequest),
                         profile=isinstance(completion, ProfileRequest))

    def trace(self, completion: str) -> Origin | None:
        """The path the parse takes through the parser's own module."""
        return self._run(completion, trace=True).origin

    def _own(self) -> tuple[str, ...]:
        """The parser's own source file, as the code a built-in's path runs through."""
        import inspect
        import os

        try:
            source = inspect.getsourcefile(type(self.parser)) or ""
        except TypeError:
            return ()
        return (os.path.realpath(source),) if source else ()

    def _run(self, completion: str, *, trace: bool = False, profile: bool = False
             ) -> ParseResult:
        result = invoke(self.parser.parse, completion, self.format, Exception, trace=trace,
                        own=self._own() if trace or profile else (), profile=profile)
        step = result.step
        if step is not None and step.invalid is not None and step.invalid.code == "timeout":
            return ParseResult(timed_out=True, elapsed=result.elapsed)
        return check_supported(result, self.name, completion)


def builtin_target(name: str, fmt: Format | str = "bracket") -> BuiltinTarget:
    """A built-in parser by name (see :data:`reactfuzz.parsers.PARSERS`) as a target."""
    return BuiltinTarget(name, fmt)
