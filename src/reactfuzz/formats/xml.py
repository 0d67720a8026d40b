"""The ``xml`` family: a call as XML elements with one element per named parameter.

Three shapes, chosen by ``Format.xml_style``, each optionally inside a wrapper element
(``Format.tag``, when ``Format.wrapped``):

* ``invoke`` -- ``<invoke name="search"><parameter name="query">a</parameter></invoke>``,
  the XML function-call format of MiniMax-M2 (inside ``<minimax:tool_call>``) and of
  agent UIs that take Anthropic's older ``<function_calls>`` layout;
* ``equals`` -- ``<function=search><parameter=query>a</parameter></function>`` inside
  ``<tool_call>`` (Qwen3-Coder);
* ``element`` -- the tool's name is the tag and each parameter its own child tag,
  ``<search><query>a</query></search>`` (Cline-style agents).

A thought is free text before the call, or a ``<think>...</think>`` block; a completion
with no call is the final answer, as in the tag family. Parameter values are text,
typed later against the tool's schema as the text families' are; one line break right
after the opening tag and one right before the closing tag belong to the layout, not to
the value (the way the model writes them and the readers strip them). Several calls in
one wrapper are parallel calls: the first runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from lark import Token, Tree

from ..model import Action, Call, FinalAnswer, Invalid, Step
from .family import Family, Representability, caret_context, encode_text, register_family
from .tag import TagFamily

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["XML", "XmlFamily", "xml_value"]

_NAME = r"[A-Za-z_][\w.\-]*"
"""An element name as the ``element`` style reads it (a tool or parameter name)."""


def xml_value(raw: str) -> str:
    """A parameter's value from the text between its tags: one line break after the
    opening tag and one before the closing tag are layout."""
    for brk in ("\r\n", "\n"):
        if raw.startswith(brk):
            raw = raw[len(brk):]
            break
    for brk in ("\r\n", "\n"):
        if raw.endswith(brk):
            raw = raw[: -len(brk)]
            break
    return raw


class XmlFamily(Family):
    """Calls as XML elements, one child element per named parameter; no call: the answer."""

    name = "xml"
    syntax = "xml"
    arguments = "named"
    grammar_file = "xml.lark"
    classic: ClassVar[Mapping[str, str]] = {
        "xml-invoke": "lazy <invoke name=...> regex anywhere, values stripped",
        "xml-function": "lazy <function=...> regex anywhere, values stripped",
        "xml-tags": "the first <tag>...</tag> pair anywhere is the call",
    }
    rules = ("completion", "transcript", "action", "answer", "invoke", "parameter")
    terminals: tuple[str, ...] = ("INVOKE_OPEN", "INVOKE_CLOSE", "PARAM_OPEN", "PARAM_CLOSE",
                                  "VALUE")
    inner_terminals = ("INVOKE_CLOSE", "PARAM_CLOSE", "WRAP_CLOSE")
    action_shape = '<invoke name="tool"><parameter name="key">value</parameter></invoke>'
    bare_answer = True
    format_fields: ClassVar[tuple[str, ...]] = ("think", "xml_style", "wrapped")
    named_args = True
    # what ends or splits a value: a closing tag (the element style closes a parameter by
    # its own name: any closing tag), then the markup's own characters
    delimiters: tuple[str, ...] = ("</parameter>", "</", "<", ">", '"', "\n")

    def check_format(self, fmt: Format) -> str | None:
        if fmt.labels.answer is not None or fmt.finish_action is not None:
            return ("the xml family writes a final answer as plain text, with no answer"
                    " label or finish action: start from base = 'xml-invoke'")
        return None

    # ---- the markup, from the format's data

    def opening(self, fmt: Format, tool: str) -> str:
        """The opening tag of a call of ``tool``."""
        if fmt.xml_style == "invoke":
            return f'<invoke name="{tool}">'
        if fmt.xml_style == "equals":
            return f"<function={tool}>"
        return f"<{tool}>"

    def closing(self, fmt: Format, tool: str) -> str:
        """The closing tag of a call of ``tool``."""
        return {"invoke": "</invoke>", "equals": "</function>"}.get(fmt.xml_style, f"</{tool}>")

    def param_open(self, fmt: Format, name: str) -> str:
        """The opening tag of the parameter ``name``."""
        if fmt.xml_style == "invoke":
            return f'<parameter name="{name}">'
        if fmt.xml_style == "equals":
            return f"<parameter={name}>"
        return f"<{name}>"

    def param_close(self, fmt: Format, name: str) -> str:
        """The closing tag of the parameter ``name``."""
        return f"</{name}>" if fmt.xml_style == "element" else "</parameter>"

    def _call_start(self, fmt: Format) -> str:
        """Regex source of what starts a call at a line start (the wrapper, or a call)."""
        if fmt.wrapped:
            return re.escape(f"<{fmt.tag}>")
        return {"invoke": r'<invoke name="', "equals": r"<function="}.get(
            fmt.xml_style, rf"<{_NAME}>")

    # ---- writer

    writes_thought = TagFamily.writes_thought
    write_thought = TagFamily.write_thought

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        return [answer.text]

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        names = call.names if call.names is not None else tuple(
            f"arg{i}" for i in range(len(call.args)))
        lines = [self.opening(fmt, call.tool)]
        for name, value in zip(names, call.args):
            text = encode_text(value)
            if fmt.xml_style == "equals":
                # Qwen3-Coder's template puts the value on lines of its own
                lines += [self.param_open(fmt, name), text, self.param_close(fmt, name)]
            else:
                lines.append(f"{self.param_open(fmt, name)}{text}{self.param_close(fmt, name)}")
        lines.append(self.closing(fmt, call.tool))
        return [f"<{fmt.tag}>", *lines, f"</{fmt.tag}>"] if fmt.wrapped else lines

    def tool_name_ok(self, tool: str) -> bool:
        return re.fullmatch(r"[A-Za-z_]\w*", tool) is not None

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if fmt.xml_style == "element" and call.tool == fmt.think_tag:
            return Representability(False, f"a tool named {call.tool!r} opens a think block")
        return self._arguments_representable(call, fmt)

    def _arguments_representable(self, call: Call, fmt: Format) -> Representability:
        if call.names is None and call.args:
            return Representability(False, "the xml family names every argument; the call"
                                           " is positional")
        names = call.names or ()
        if len(set(names)) != len(names):
            return Representability(False, "an argument name is given twice")
        if fmt.xml_style == "element" and any(not re.fullmatch(_NAME, n) for n in names):
            return Representability(False, "an argument name is not an element name")
        if any(not re.fullmatch(r"[^\"<>\n]+", n) for n in names):
            return Representability(False, "an argument name holds markup or a quote")
        for value in call.args:
            if isinstance(value, (list, tuple, dict, set)):
                return Representability(False, "the xml family writes text values; a list"
                                               " or object has no one text form")
            text = encode_text(value)
            if value is None:
                return Representability(False, "a null value has no text form")
            if "</" in text:
                return Representability(False, "a value holds a closing tag")
            if any(opener in text for opener in self._openers(fmt)):
                # no escaping: readers that recover an unclosed parameter end a value at
                # the next opening tag, so the text could start another parameter
                return Representability(False, "a value holds a parameter's or a call's"
                                               " opening tag")
            if fmt.xml_style == "element" and re.search(rf"<{_NAME}>", text):
                return Representability(False, "a value holds an element's opening tag")
            if text.startswith("\n") or text.endswith("\n") or "\r" in text:
                return Representability(False, "a line break at a value's edge is layout")
            if text.strip() != text and fmt.xml_style == "equals":
                return Representability(False, "outer spaces around a value on its own line")
        return Representability(True)

    def _openers(self, fmt: Format) -> tuple[str, ...]:
        """What opens a parameter or a call in ``fmt``'s style, as a value may not hold it
        (in the element style any tag does: checked apart)."""
        return {"invoke": ('<parameter name="', '<invoke name="'),
                "equals": ("<parameter=", "<function=")}.get(fmt.xml_style, ())

    def written_call(self, call: Call, fmt: Format) -> Call:
        names = call.names if call.names is not None else tuple(
            f"arg{i}" for i in range(len(call.args)))
        return Call(call.tool, tuple(encode_text(a) for a in call.args), names)

    answer_representable = TagFamily.answer_representable

    def _line_starts(self, fmt: Format) -> tuple[str, ...]:
        """What an answer line may not start with (literal prefixes)."""
        opener = f"<{fmt.tag}>" if fmt.wrapped else self.opening(fmt, "")[:-1]
        return (opener, f"<{fmt.think_tag}>", f"{fmt.labels.observation}:",
                *(f"{h}:" for h in fmt.labels.headers))

    # ---- grammar reading

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """The wrapper, call and parameter terminals and text lines, from the format's data."""
        think = re.escape(fmt.think_tag)
        style = fmt.xml_style
        if style == "invoke":
            call_open, call_close = r'<invoke name="[^"<>\n]*">', r"</invoke>"
            p_open, p_close = r'<parameter name="[^"<>\n]*">', r"</parameter>"
        elif style == "equals":
            call_open, call_close = r"<function=[^<>\n]*>", r"</function>"
            p_open, p_close = r"<parameter=[^<>\n]*>", r"</parameter>"
        else:
            # any element is a call, except the think block's
            call_open, call_close = rf"<(?!{think}>){_NAME}>", rf"</(?:{_NAME})>"
            p_open, p_close = rf"<(?:{_NAME})>", rf"</{_NAME}>"
        labels = "|".join(re.escape(s) for s in self._line_starts(fmt)[2:])
        wrap = re.escape(fmt.tag)
        terminals = {
            **({"WRAP_OPEN.4": f"<{wrap}>", "WRAP_CLOSE.4": f"</{wrap}>"} if fmt.wrapped
               else {}),
            "INVOKE_OPEN.3": call_open,
            "INVOKE_CLOSE.3": call_close,
            "PARAM_OPEN.3": p_open,
            "PARAM_CLOSE.3": p_close,
            "VALUE": rf"(?:(?!{p_close})[\s\S])+",
            "THINK.3": rf"<{think}>(?:(?!</{think}>)[\s\S])*</{think}>[ \t]*",
            "CONT": rf"(?!{self._call_start(fmt)}|{call_open}|<{think}>|{labels})[^\n]+",
        }
        return tuple(f"%override {name}: /{source.replace('/', chr(92) + '/')}/"
                     for name, source in terminals.items())

    read_answer = TagFamily.read_answer

    def grammar_for(self, fmt: Format) -> str:
        """``xml.lark`` for wrapped calls, ``xml_bare.lark`` for calls that stand alone
        (a format naming its own grammar file keeps it)."""
        if fmt.grammar not in (None, "xml.lark", "xml_bare.lark"):
            return fmt.grammar
        return "xml.lark" if fmt.wrapped else "xml_bare.lark"

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        invoke = next(c for c in node.children if isinstance(c, Tree) and c.data == "invoke")
        opener = invoke.children[0]
        assert isinstance(opener, Token)

        def refuse(code: str, why: str, at: Token | Tree) -> Step:
            line = at.line if isinstance(at, Token) else at.meta.line
            column = at.column if isinstance(at, Token) else at.meta.column
            assert line is not None and column is not None
            return Step(thought=thought, invalid=Invalid(
                code, why, line, column, (), caret_context(text, line, column)))

        tool = self._tag_name(opener.value, fmt.xml_style)
        closer = invoke.children[-1]
        assert isinstance(closer, Token)
        if fmt.xml_style == "element" and closer.value != f"</{tool}>":
            return refuse("malformed-action", f"<{tool}> is closed by {closer.value}", closer)
        names: list[str] = []
        values: list[str] = []
        for param in invoke.children[1:-1]:
            if not isinstance(param, Tree):
                continue
            p_open, *body, p_close = param.children
            assert isinstance(p_open, Token) and isinstance(p_close, Token)
            name = self._tag_name(p_open.value, fmt.xml_style)
            if fmt.xml_style == "element" and p_close.value != f"</{name}>":
                return refuse("malformed-arg", f"<{name}> is closed by {p_close.value}",
                              p_close)
            if name in names:
                return refuse("duplicate-arg", f"parameter {name!r} is given twice", p_open)
            names.append(name)
            values.append(xml_value(str(body[0]) if body else ""))
        raw = text[invoke.meta.start_pos : invoke.meta.end_pos]
        return Step(thought=thought, action=Action(tool, raw, tuple(values), tuple(names)))

    @staticmethod
    def _tag_name(tag: str, style: str) -> str:
        """The name an opening tag gives (a tool's, or a parameter's)."""
        if style == "invoke":
            return tag[tag.index('"') + 1 : -2]
        if style == "equals":
            return tag[tag.index("=") + 1 : -1]
        return tag[1:-1]

    # ---- operator data

    def args_start(self, text: str, fmt: Format) -> int:
        """Right after the call's opening tag (where its parameters start)."""
        think = re.escape(f"<{fmt.think_tag}>")
        m = re.search(rf"(?:^|\n|>)(?!{think}){self.grammar_pattern(fmt, 'INVOKE_OPEN')}", text)
        return len(text) if m is None else m.end()

    def action_line_end(self, text: str, fmt: Format) -> int:
        """Right after the call's (or the wrapper's) closing tag."""
        close = f"</{fmt.tag}>" if fmt.wrapped else None
        if close is None:
            ends = [m.end() for m in re.finditer(self.grammar_pattern(fmt, "INVOKE_CLOSE"),
                                                 text)]
            return ends[-1] if ends else len(text)
        at = text.rfind(close)
        return len(text) if at < 0 else at + len(close)

    def grammar_pattern(self, fmt: Format, terminal: str) -> str:
        """The regex source of one of the family's terminals for ``fmt``."""
        for line in self.grammar_overrides(fmt):
            name, _, source = line[len("%override "):].partition(": /")
            if name.split(".")[0] == terminal:
                return source[:-1].replace("\\/", "/")
        raise KeyError(terminal)

    def kept_text(self, completion: str, fmt: Format, *, acted: bool) -> str:
        """Once a call ran, the client keeps the text before the call and rebuilds the call
        from what it parsed (text after it is never fed back); an answer is the message."""
        if not acted:
            return completion
        m = re.search(rf"(?m)^(?:{self._call_start(fmt)})", completion)
        return completion if m is None else completion[: m.start()]


XML = register_family(XmlFamily())
