"""The built-in formats, and how a format is found by name or loaded from TOML.

:func:`get_format` is the edge where a name or a path becomes a :class:`Format`; code
further in takes the object.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import FormatError, GrammarError
from ..limits import MAX_DEPTH, check_depth, read_user_file
from ..registry import Registry, import_modules

# isort: off
# the built-in families, registered in this order (error messages list them so)
from . import bracket  # noqa: F401
from . import paper  # noqa: F401
from . import action_input  # noqa: F401
from . import json_args  # noqa: F401
from . import action_json  # noqa: F401
from . import json_blob  # noqa: F401
from . import tag  # noqa: F401
from . import template  # noqa: F401
from . import sections  # noqa: F401
from . import bare_json  # noqa: F401
from . import xml  # noqa: F401
from . import pythonic  # noqa: F401
# isort: on
from .family import FAMILIES
from .spec import JSON_FIELDS, Format, Labels

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = ["BUILTIN_FORMATS", "get_format", "load_format"]

MAX_FORMAT_BYTES = 1024 * 1024
"""The largest TOML format file read (1 MiB)."""


_BRACKET_NOTES = """\
Action line: `Action: name[arg1, arg2]`, one line, nothing after `]` but spaces.
Arguments are split on commas and trimmed; `name[]` has no arguments. An argument
that contains `,` `[` `]` `"` or must keep outer spaces is written as a JSON string
(`search["Paris, France"]`); models rarely quote, so an unquoted comma makes two
arguments and the intent is reported as not representable unquoted.
Final answer: `Answer: text` (may run over several lines). Stop: `Observation:`.
Headers: `Question:`. Labels are unnumbered; a numbered label (`Thought 1:`) is
rejected with a reason."""

_PAPER_NOTES = """\
The ReAct paper's shape. Labels are numbered (`Thought 3:`, `Action 3:`,
`Observation 3:`); one step's labels share a number and numbers go up by one; an
unnumbered label is rejected with a reason. `Action N:` may be followed by blank lines
before the action (real runs do this). An action is `Tool[argument]`: one argument, all
text between the first `[` and the last `]` on the line, kept exactly (commas and
brackets included); text after `]` is rejected. The final answer is the action
`Finish[answer]` (also `finish[...]`). Headers: `Question:` or `Claim:`. Stop:
`\\nObservation` (as the paper's harness)."""

_ACTION_INPUT_NOTES = """\
`Action: tool` (the rest of the line, trimmed, is the tool name) followed by
`Action Input: text` (blank lines may stand between them). The input is one argument;
it runs to the end of the completion, over several lines and blank lines, trimmed; an
empty input means no argument. A missing `Action Input:` line is rejected. Final answer:
`Final Answer: text`, to the end. Stop: `\\nObservation:`."""

_JSON_NOTES = """\
The hardened text form: `Action: name` followed by one JSON object of named arguments,
on the same line or starting on the next; the object may span lines. Anything but an
object, invalid JSON, a duplicate key or text after the closing `}` is rejected.
Final answer: `Answer: text`. Stop: `Observation:`."""

_ACTION_INPUT_JSON_NOTES = """\
The protocol of qwen-agent's ReAct chat and lagent. `Action: tool` (the rest of the line,
trimmed, is the tool name), then `Action Input:` followed by one JSON object of named
arguments, on the same line or starting on the next; the object may span lines.
Anything but an object, invalid JSON, a duplicate key, a code fence (unless the format
sets `fence`) or text after the closing `}` is rejected; a missing `Action Input:` line
is rejected. Final answer: `Final Answer: text`, to the end. A completion with neither
an action nor `Final Answer:` is rejected (qwen-agent shows such text to the user as the
answer: the grammar says the format was not followed). Stop: `\\nObservation:`."""

_JSON_BLOB_NOTES = """\
The smolagents tool-calling text shape. `Action:` followed by one JSON object
`{"name": tool, "arguments": {...}}`, on the same line or starting on the next; the
object may span lines. The final answer is the blob of the reserved tool
`final_answer` with the single argument `answer` (a string). A missing or extra key,
arguments that are not an object, invalid JSON, a duplicate key, a code fence or text
after the closing `}` is rejected; `Final Answer:` is not a label. Stop: `Observation:`
and `Calling tools:`."""

_JSON_BLOB_FENCED_NOTES = """\
The JSON-blob chat-agent shape. `Action:` followed by a ```json code fence holding one
JSON object `{"action": tool, "action_input": {...}}` (a fence with another info
string, or none, is rejected). The final answer is the blob
`{"action": "Final Answer", "action_input": "text"}`. A missing or extra key, invalid
JSON, a duplicate key or text after the closing fence is rejected. Stop:
`Observation:`."""


_SINGLE_NOTES = """\
The ReAct prompts as copied without numbers (WebShop, LangChain's react-docstore):
`Thought:` / `Action: Search[x]` / `Observation:`, labels unnumbered (a numbered label
is rejected with a reason). One argument: all text between the first `[` and the last
`]` on the line, kept exactly (commas and brackets included). The final answer is the
action `Finish[answer]`. Headers: `Question:` or `Claim:`. Stop: `\\nObservation`."""

_TOOL_CALL_NOTES = """\
The Hermes/Nous function-calling text protocol (Qwen's default template): an optional
`<think>...</think>` block and free thought text, then one
`<tool_call>{"name": NAME, "arguments": {...}}</tool_call>` whose opening tag starts a
line (the writer puts the JSON on its own line between the tags). The JSON must be an
object with exactly the keys `name` (a string) and `arguments` (an object) (`tool_key`
and `args_key` rename them); a duplicate
key is rejected. Nothing but blank lines may follow the closing tag; a second call is
rejected. A completion with no tag is the final answer: all its text after the think
block, trimmed. No stop sequence (the chat template's end token ends the turn)."""

_FUNCTION_TAG_NOTES = """\
camel-ai's tool prompt: `<function=NAME>{"arg": value}</function>`, the tool name in
the opening tag and the JSON object of named arguments inside, written on one line
(read over several lines too). Thought: free text or `<think>...</think>` before the
call; a completion with no tag is the final answer. No stop sequence."""


_XML_NOTES = """\
Named parameters as XML elements, the value of each between its tags as text (typed
against the tool's schema, as text formats are); one line break right after an opening
tag and one right before a closing tag are layout, not value. There is no escaping: a
value cannot hold its closing tag. Thought: free text or `<think>...</think>` before the
call; a completion with no call is the final answer (its text after the think block).
A call must start a line; text after it, an unclosed tag, a parameter given twice or a
call outside the wrapper is rejected. No stop sequence."""

_XML_INVOKE_NOTES = """\
The XML function-call format of MiniMax-M2: `<minimax:tool_call>`, then one or more
`<invoke name="NAME">` elements holding `<parameter name="KEY">VALUE</parameter>`, then
`</minimax:tool_call>` (several invokes are parallel calls: the first runs). With
`tag = "function_calls"` it is the older Anthropic layout. """ + _XML_NOTES

_XML_FUNCTION_NOTES = """\
Qwen3-Coder's tool calls: `<tool_call>`, `<function=NAME>`, then
`<parameter=KEY>` / the value on its own line(s) / `</parameter>`, then `</function>` and
`</tool_call>`. """ + _XML_NOTES

_XML_TAGS_NOTES = """\
The tool's name is the tag and each parameter its own child tag, with no wrapper:
`<search>` / `<query>VALUE</query>` / `</search>` (Cline-style coding agents). A line
that opens any tag starts a call, so an answer line cannot start with `<name>`.
""" + _XML_NOTES


_PYTHONIC_NOTES = """\
Llama 3.2 and Llama 4 tool calls: the whole completion is one Python list of calls,
`[search(query="Paris"), get_time()]`, each with keyword arguments whose values are
Python literals (strings in either quotes, numbers, `True`/`False`/`None`, lists and
dicts); a trailing comma is allowed, as Python allows it. Several calls are parallel
calls: the first runs. No thought and no label: a completion none of whose lines opens
a list (`[`, after spaces) is the final answer, all its text. A positional argument, a
keyword given twice, an expression that is no literal (`f(x=1+1)`, `f(x=y)`), text
before or after the list are rejected. No stop sequence."""


_DSPY_REACT_NOTES = """\
dspy's chat adapter over the ReAct step signature. Every output field is a header line
`[[ ## field ## ]]` at column 1 followed by its value (on the same line or the next
ones): `next_thought`, then `next_tool_name` (one line), then `next_tool_args` (one JSON
object, may span lines), then the end marker `[[ ## completed ## ]]` (optional: dspy
reads without it). The tool `finish` ends the loop: that step's thought is the final
answer. Text before the first header is thought. A missing field, fields out of order,
an indented or unknown header, invalid JSON, a duplicate key or text after the
arguments is rejected. The field names are the labels (`[labels] thought = ...`), the
header template is `section` and the end marker's field `section_end`. No stop
sequence."""

_JSON_BARE_NOTES = """\
swarms' JSON tool runner and Llama-style JSON tool calls: the whole completion is one
JSON object `{"name": tool, "parameters": {...}}` (`tool_key` and `args_key` rename the
keys), with no thought, label or fence; spaces and blank lines around it are allowed.
A missing or extra key, arguments that are not an object, invalid JSON, a duplicate key
or text before or after the object is rejected. A completion that is not JSON (no line
of it opens `{` or `[`) is the final answer, all its text, trimmed. No stop sequence."""


# a family module added to this package (and not imported above) registers itself after
# them; the grammar parser and its fast path register nothing, and Lark loads on first parse
import_modules(__package__ or "reactfuzz.formats", skip=("grammars", "fastpath"))

BUILTIN_FORMATS: Registry[Format] = Registry("built-in format")
"""The built-in formats by name, in the order the docs and the study show them."""

for _fmt in (
    Format(
        name="bracket",
        description="Thought/Action: name[a, b]/Observation/Answer, comma-separated arguments",
        notes=_BRACKET_NOTES,
        syntax="bracket",
        arguments="comma",
        labels=Labels(),
        stop=("Observation:",),
        grammar="bracket.lark",
    ),
    Format(
        name="paper",
        description="the ReAct paper: numbered labels, Search[x] single argument, Finish[answer]",
        notes=_PAPER_NOTES,
        syntax="bracket",
        arguments="single",
        labels=Labels(answer=None, headers=("Question", "Claim")),
        numbered=True,
        finish_action="Finish",
        stop=("\nObservation",),
        grammar="paper.lark",
    ),
    Format(
        name="action-input",
        description="Action: tool / Action Input: text / Final Answer: text (LangChain MRKL style)",
        notes=_ACTION_INPUT_NOTES,
        syntax="action-input",
        arguments="single",
        labels=Labels(action_input="Action Input", answer="Final Answer"),
        stop=("\nObservation:",),
        grammar="action_input.lark",
    ),
    Format(
        name="json-args",
        description="Action: name followed by a JSON object of named arguments; Answer: text",
        notes=_JSON_NOTES,
        syntax="json-args",
        arguments="json",
        labels=Labels(),
        stop=("Observation:",),
        grammar="json_args.lark",
    ),
    Format(
        name="action-input-json",
        description="Action: tool / Action Input: {JSON object} / Final Answer: text"
        " (qwen-agent, lagent)",
        notes=_ACTION_INPUT_JSON_NOTES,
        syntax="action-input",
        arguments="json",
        labels=Labels(action_input="Action Input", answer="Final Answer"),
        stop=("\nObservation:",),
        grammar="action_input_json.lark",
    ),
    Format(
        name="json-blob",
        description='Action: {"name": tool, "arguments": {...}}; answer by the final_answer'
        " tool (smolagents)",
        notes=_JSON_BLOB_NOTES,
        syntax="json-blob",
        arguments="json",
        labels=Labels(answer=None),
        finish_action="final_answer",
        stop=("Observation:", "Calling tools:"),
        grammar="json_blob.lark",
    ),
    Format(
        name="json-blob-fenced",
        description='Action: ```json {"action": tool, "action_input": {...}} ```; answer by'
        ' the "Final Answer" action (JSON chat agents)',
        notes=_JSON_BLOB_FENCED_NOTES,
        syntax="json-blob",
        arguments="json",
        labels=Labels(answer=None),
        finish_action="Final Answer",
        fence="json",
        tool_key="action",
        args_key="action_input",
        answer_key=None,
        stop=("Observation:",),
        grammar="json_blob.lark",
    ),
    Format(
        name="react-single",
        description="unnumbered Thought/Action: Search[x] single argument, Finish[answer]",
        notes=_SINGLE_NOTES,
        syntax="bracket",
        arguments="single",
        labels=Labels(answer=None, headers=("Question", "Claim")),
        numbered=False,
        finish_action="Finish",
        stop=("\nObservation",),
        grammar="paper.lark",
    ),
    Format(
        name="tool-call",
        description='<tool_call>{"name": ..., "arguments": {...}}</tool_call>; no tag: the answer',
        notes=_TOOL_CALL_NOTES,
        syntax="tag",
        arguments="json",
        labels=Labels(answer=None),
        stop=(),
        grammar="tag.lark",
        parallel_calls=True,
    ),
    Format(
        name="function-tag",
        description="<function=NAME>{...}</function> (camel-ai); no tag: the answer",
        notes=_FUNCTION_TAG_NOTES,
        syntax="tag",
        arguments="json",
        labels=Labels(answer=None),
        stop=(),
        tag="function",
        tag_style="attribute",
        grammar="tag.lark",
    ),
    Format(
        name="xml-invoke",
        description='<invoke name="T"><parameter name="k">v</parameter></invoke> in a'
        " <minimax:tool_call> (MiniMax-M2); no call: the answer",
        notes=_XML_INVOKE_NOTES,
        syntax="xml",
        arguments="named",
        labels=Labels(answer=None),
        stop=(),
        tag="minimax:tool_call",
        grammar="xml.lark",
        parallel_calls=True,
    ),
    Format(
        name="xml-function",
        description="<tool_call><function=T><parameter=k>v</parameter></function></tool_call>"
        " (Qwen3-Coder); no call: the answer",
        notes=_XML_FUNCTION_NOTES,
        syntax="xml",
        arguments="named",
        labels=Labels(answer=None),
        stop=(),
        xml_style="equals",
        grammar="xml.lark",
        parallel_calls=True,
    ),
    Format(
        name="xml-tags",
        description="<tool><param>v</param></tool>: the tool's name as the tag, one tag per"
        " parameter; no call: the answer",
        notes=_XML_TAGS_NOTES,
        syntax="xml",
        arguments="named",
        labels=Labels(answer=None),
        stop=(),
        xml_style="element",
        wrapped=False,
        grammar="xml_bare.lark",
    ),
    Format(
        name="pythonic",
        description='[tool(key="value"), ...]: a Python list of calls, keyword literals'
        " (Llama 3.2 / Llama 4); text that opens no list is the answer",
        notes=_PYTHONIC_NOTES,
        syntax="pythonic",
        arguments="python",
        labels=Labels(answer=None),
        stop=(),
        grammar="pythonic.lark",
        parallel_calls=True,
    ),
    Format(
        name="dspy-react",
        description="[[ ## next_thought ## ]] / [[ ## next_tool_name ## ]] / [[ ## next_tool_args"
        " ## ]] sections; the finish tool's thought is the answer (dspy)",
        notes=_DSPY_REACT_NOTES,
        syntax="sections",
        arguments="json",
        labels=Labels(thought="next_thought", action="next_tool_name",
                      action_input="next_tool_args", answer=None),
        finish_action="finish",
        stop=(),
        grammar="sections.lark",
    ),
    Format(
        name="json-bare",
        description='the whole completion is {"name": tool, "parameters": {...}}; text that'
        " is not JSON is the answer (swarms)",
        notes=_JSON_BARE_NOTES,
        syntax="bare-json",
        arguments="json",
        labels=Labels(answer=None),
        args_key="parameters",
        stop=(),
        grammar="bare_json.lark",
    ),
):
    BUILTIN_FORMATS.add(_fmt.name, _fmt)
# then the built-in formats a family added later declares in its own module
for _family in FAMILIES.values():
    for _fmt in _family.builtin_formats():
        BUILTIN_FORMATS.add(_fmt.name, _fmt)
del _fmt, _family


def get_format(name_or_path: str | Format) -> Format:
    """A built-in format by name, or a user format from a ``.toml`` file path."""
    if isinstance(name_or_path, Format):
        return name_or_path
    if name_or_path in BUILTIN_FORMATS:
        return BUILTIN_FORMATS[name_or_path]
    if name_or_path.endswith(".toml") or Path(name_or_path).is_file():
        return load_format(name_or_path)
    raise FormatError(
        f"unknown format {name_or_path!r}: use one of {', '.join(BUILTIN_FORMATS)} "
        "or the path of a .toml format file"
    )


def load_format(path: str | Path) -> Format:
    """Load a user format from a TOML file; every mistake names the file and the key."""
    p = Path(path)
    raw = read_user_file(p, "format file", limit=MAX_FORMAT_BYTES, error=FormatError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{p}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FormatError(f"{p}: not valid TOML: {e}") from None
    except RecursionError:
        raise FormatError(f"{p}: nested deeper than {MAX_DEPTH} levels") from None
    check_depth(data, str(p), error=FormatError)
    if "format" in data and isinstance(data["format"], dict) and len(data) == 1:
        data = data["format"]
    base_name = data.pop("base", None)
    merged: dict[str, Any] = {}
    if base_name is not None:
        if not isinstance(base_name, str) or base_name not in BUILTIN_FORMATS:
            raise FormatError(
                f"{p}: key 'base': {base_name!r} is not a built-in format"
                f" (use one of {', '.join(BUILTIN_FORMATS)})"
            )
        merged = BUILTIN_FORMATS[base_name].model_dump(exclude={"notes", "source", "name"})
        if "labels" in data and isinstance(data["labels"], dict):
            merged["labels"] = {**merged["labels"], **data.pop("labels")}
        # a user format that changes labels must not silently keep the base grammar file
        merged["grammar"] = None
        merged["description"] = ""
    family = data.pop("family", None)
    if family is not None:
        data = {**_family_keys(p, family, data), **data}
    merged.update(data)
    if "name" not in merged:
        merged["name"] = p.stem
    grammar = merged.get("grammar")
    if grammar is not None and not isinstance(grammar, str):
        raise FormatError(f"{p}: key 'grammar': {grammar!r} is not a string (give the path"
                          " of a .lark file)")
    if grammar:
        gpath = Path(grammar)
        if not gpath.is_absolute():
            gpath = (p.parent / gpath).resolve()
        if not gpath.is_file():
            what = "is not a regular file" if gpath.exists() else "not found"
            raise FormatError(f"{p}: key 'grammar': grammar file {str(gpath)!r} {what}")
        merged["grammar"] = str(gpath)
    merged["source"] = str(p)
    try:
        fmt = Format.model_validate(merged)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            allowed = ", ".join(
                [*sorted(Format.model_fields.keys() - {"source"}), "base", "family"]
            )
            msg = f"unknown key (allowed: {allowed})"
        more = f" (and {len(e.errors()) - 1} more)" if len(e.errors()) > 1 else ""
        raise FormatError(f"{p}: key '{key}': {msg}{more}") from None
    reads = getattr(fmt.family, "format_fields", ())
    for key in JSON_FIELDS:  # given in the file, even at its default, for a family that
        if key in data and key not in reads:  # never reads it: a mistake to say
            raise FormatError(f"{p}: key '{key}': read only by the JSON and tag families,"
                              f" not by {fmt.family.name} (syntax {fmt.syntax!r}); remove it"
                              " or choose such a family")
    from .grammars import lark_parser

    try:  # a grammar that does not compile is a mistake in this file: say so now
        lark_parser(fmt)
    except GrammarError as e:
        raise FormatError(f"{p}: key 'grammar': {e}") from None
    return fmt


def _family_keys(p: Path, family: object, data: dict[str, Any]) -> dict[str, Any]:
    """``family = "json-blob"``: the ``syntax`` + ``arguments`` that select that family."""
    fam = FAMILIES.get(family.replace("-", "_")) if isinstance(family, str) else None
    if fam is None:
        names = ", ".join(f.name.replace("_", "-") for f in FAMILIES.values())
        raise FormatError(f"{p}: key 'family': {family!r} is not a format family"
                          f" (use one of {names})")
    for key in ("syntax", "arguments"):
        if key in data and data[key] != getattr(fam, key):
            raise FormatError(f"{p}: key '{key}': {data[key]!r} contradicts family"
                              f" {family!r} (which reads {key} {getattr(fam, key)!r})")
    return {"syntax": fam.syntax, "arguments": fam.arguments}
