"""The classic parsers of the XML call formats, each with the family's usual mistake.

Written the way such parsers are shipped (from the protocol's mechanism, not from any
framework's code): a lazy ``(.*?)`` regex with DOTALL searched anywhere in the text, so
a call quoted in a think block or in prose runs, a wrapper is never required, the
parameters are every ``<parameter ...>`` pair found inside the call (a repeated name
keeps its last value, as a dict does) and each value is ``.strip()``-ed. No call: the
text after the think block is the answer.

* ``classic-xml-invoke``: ``<invoke name="(.*?)">(.*?)</invoke>``;
* ``classic-xml-function``: ``<function=(.*?)>(.*?)</function>``;
* ``classic-xml-tags``: the first ``<(\\w+)>(.*?)</\\1>`` that is not the think block.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex  # type: ignore[import-untyped, unused-ignore]  # typed by types-regex, if installed

from ..formats import Format
from ..model import Action, Step
from . import DEFAULT_TIMEOUT, Parser, register_parser, timeout_step
from .classic_json import after_think, think_text

__all__ = ["ClassicXmlParser"]

_PATTERNS = {
    # style: (the call, a parameter), each (name, body)
    "invoke": (r'<invoke name="(.*?)">(.*?)</invoke>',
               r'<parameter name="(.*?)">(.*?)</parameter>'),
    "equals": (r"<function=(.*?)>(.*?)</function>", r"<parameter=(.*?)>(.*?)</parameter>"),
    "element": (r"<(?!think>)(\w+)>(.*?)</\1>", r"<(\w+)>(.*?)</\1>"),
}


@dataclass(frozen=True)
class ClassicXmlParser:
    """The first call pattern anywhere (DOTALL, lazy); its parameter pairs; values stripped."""

    format: Format
    name: str = "classic-xml"

    def parse(self, completion: str) -> Step:
        """Search the call anywhere, read every parameter pair inside it."""
        call_re, param_re = _PATTERNS[self.format.xml_style]
        try:
            m = regex.search(call_re, completion, regex.DOTALL, timeout=DEFAULT_TIMEOUT)
            if m is None:
                return Step(thought=think_text(completion), answer=after_think(completion))
            params = {name: value.strip() for name, value in
                      regex.findall(param_re, m.group(2), regex.DOTALL, timeout=DEFAULT_TIMEOUT)}
        except TimeoutError:
            return timeout_step(self.name)
        head = completion[: m.start()]
        thought = think_text(head) or head.replace(f"<{self.format.tag}>", "").strip()
        return Step(thought=thought, action=Action(
            m.group(1).strip(), m.group(0), tuple(params.values()), tuple(params)))


for _name, _what in (("xml-invoke", '<invoke name="(.*?)">(.*?)</invoke> anywhere'),
                     ("xml-function", "<function=(.*?)>(.*?)</function> anywhere"),
                     ("xml-tags", "the first <(\\w+)>(.*?)</\\1> anywhere")):
    def _factory(fmt: Format, _name: str = _name) -> Parser:
        return ClassicXmlParser(fmt, name=f"classic-{_name}")
    register_parser(f"classic-{_name}", f"{_what}, values stripped")(_factory)
del _name, _what
