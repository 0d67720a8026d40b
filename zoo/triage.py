"""The hand triage of the zoo's default-run findings, as data.

Each :class:`Triage` row names a zoo parser, the check and abuse operator of a finding,
its class (``defect``: a real bug; ``judgement``: documented or defensible behaviour;
``false-alarm``: reactfuzz is wrong, with the cause in reactfuzz) and the bug it is, so
the runner counts distinct bugs and the tests pin the real ones by check and mechanism.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["TRIAGE", "Triage", "classify", "merged_bugs"]


class Triage(NamedTuple):
    """One triaged finding pattern: parser, check, abuse (``*`` any) and what it is;
    ``signature``, when given, must be part of the finding's root-cause signature (one
    operator and check can reach two bugs that fail differently)."""

    module: str
    check: str
    abuse: str
    klass: str
    bug: str
    mechanism: str
    ground_truth: str = ""
    signature: str = ""


# The classes: a defect is a bug a maintainer would accept; a judgement call is behaviour
# the framework documents or chose and that is safe; a false alarm is reactfuzz's mistake,
# its ``bug`` naming the reactfuzz piece that caused it (fa-check-..., fa-oracle-...).
_D, _J, _F = "defect", "judgement", "false-alarm"

_FA_LAXER = ("the parser is more lenient than the format's grammar and still runs exactly"
             " the intended call (or rejects the text): agrees-with-grammar reports it")
_FA_STRICTER = ("the parser refuses, which the oracle's own acceptable outcomes allow:"
                " agrees-with-grammar reports it anyway")
_FA_KIND = ("the framework refuses with the right reason, but a user target can only"
            " refuse with an exception, always read as 'unparseable'")
_FA_SPACE = "the answer differs only by the space after the label: the oracle compares exactly"
_FA_THINK = ("the tag formats write a <think> block before every answer and read the answer"
             " as the text after it; the framework hands over the whole message text, think"
             " block included (a chat message, not an answer field)")
_FA_TAG_EDIT = ("the operator edits the closing tag ('</tool_call, }', '</function\\r')"
                " instead of the JSON or the line end: no tag is left to read, so the"
                " text is a plain message")
_J_PARALLEL = ("two calls in one message are parallel calls, a documented feature: both"
               " run (the adapter reports the first)")
_J_TAG_ANYWHERE = ("the tag is found anywhere, not only at a line start: a call quoted in"
                   " prose or in a <think> block runs; the protocol has no such quoting, and"
                   " in Qwen's stack the tag is a special token emitted only to call")
_J_BROKEN_JSON = ("JSON the decoder cannot read inside the tag: the call is skipped (with a"
                  " printed warning) and the text is a plain message; the model broke the JSON")
_J_XML_ANYWHERE = ("the call's tags are searched anywhere, not only at a line start: a call"
                   " written inside the think block (or after a line break no reader counts)"
                   " runs; the wrapper is a special token the model emits only to call, and"
                   " the server's reasoning parser, when enabled, takes the think block out"
                   " first")
_XINF_STREAMING_FIXED = ("Xinference's streaming path was moved to `str.find` for this"
                         " reason (qwen_tool_parser.py `_scan_tool_calls`: 'a regex scan here"
                         " makes long tool calls quadratic'); a model must loop on the tag"
                         " first (low)")
_GT_LAZY_SCAN = ("odysseus-dev/odysseus issue 4703 (the same lazy scan from every unclosed"
                 " opener, reported as a ReDoS)")
_J_DUPLICATE = ("a key given twice: Python's json keeps the last value (RFC 8259 leaves it"
                " undefined); the framework's prompt never asks for it")


_BARE_JSON_NOT_A_CALL = (
    "no-hijacked-answer@json.call-shape no-hijacked-answer@malformed.unbalanced-bracket"
    " no-hijacked-answer@stop.partial no-hijacked-answer@malformed.trailing-text"
    " no-hijacked-answer@malformed.unbalanced-quote no-hijacked-answer@malformed.invalid-json"
    " no-hijacked-answer@malformed.non-finite-number no-hijacked-answer@injected.second-action"
    " no-hijacked-answer@label.markdown no-hijacked-answer@fabricated.observation"
    " no-hijacked-answer@fabricated.observation-no-stop no-hijacked-answer@stop.other-stop"
    " no-hijacked-answer@stop.observation-in-input no-hijacked-answer@markup.argument"
    " no-hijacked-answer@json.comment no-hijacked-answer@json.label-in-string"
    " no-hijacked-answer@content.lenient-json no-hijacked-answer@prose.lone-brace")
"""What a whole-completion JSON reader (Llama 3's) shows as the message when the text is
not one call object: the operators whose text is not one."""


def _rows(module: str, klass: str, bug: str, mechanism: str, checks_abuses: str,
          ground_truth: str = "", signature: str = "") -> tuple[Triage, ...]:
    """Rows for one bug: ``checks_abuses`` is ``check@abuse`` pairs separated by spaces."""
    return tuple(Triage(module, *pair.split("@"), klass, bug, mechanism, ground_truth,
                        signature)
                 for pair in checks_abuses.split())


TRIAGE: tuple[Triage, ...] = (
    # ---- qwen-agent ReActChat
    *_rows("qwen_react", _J, "qwen-no-action-is-answer",
           "no '\\nAction:' found (an answer, a bare 'Action:' without input, or a label"
           " written another way) and the whole completion, thought and labels included, is"
           " the answer shown to the user (react_chat.py: `if not has_action: break`)",
           "no-hijacked-answer@clean.render no-hijacked-answer@missing.no-action-input"
           " no-hijacked-answer@label.case no-hijacked-answer@label.spacing"
           " no-hijacked-answer@label.numbering no-hijacked-answer@label.markdown"
           " no-hijacked-answer@label.leading-space no-hijacked-answer@label.odd-line-break"
           " no-hijacked-answer@variant.case no-hijacked-answer@size.label-gap-run",
           "xorbitsai/inference PR 1098 (the same raw-text fallback in another Qwen ReAct"
           " parser, fixed there as a bug)"),
    *_rows("qwen_react", _D, "qwen-json5-fallback-surrogates",
           "Action Input is decoded by json_loads: json.loads first, and when the JSON is"
           " not strict (a trailing comma, bare keys, single quotes: what json5 accepts on"
           " purpose) json5 0.17.3, which reads the JSON escape of a character beyond the BMP"
           " ('\\ud83c\\udf89', an emoji) as two lone surrogates: the tool gets a string"
           " that cannot be encoded as UTF-8",
           "no-wrong-call@content.lenient-json",
           "dpranke/pyjson5 PR 110 (surrogate pairs not recombined)"),
    *_rows("qwen_react", _J, "qwen-last-action-wins",
           "rfind('\\nAction:'): of two actions in one turn the last runs, the first is dropped",
           "no-wrong-call@injected.second-action"),
    *_rows("qwen_react", _J, "qwen-final-answer-ignored",
           "qwen-agent never reads 'Final Answer:': an action written after an answer runs",
           "no-wrong-call@injected.answer-and-action"),
    *_rows("qwen_react", _J, "qwen-fabricated-observation-shown",
           "without its stop word the model writes an Observation; qwen-agent cuts the input"
           " at it and runs the intended call, the invented text stays in the streamed"
           " response but not in the next prompt",
           "no-fabricated-observation@fabricated.observation-no-stop",
           "QwenLM/Qwen3 issue 197, xorbitsai/inference issue 1099 (stop word not applied)"),
    *_rows("qwen_react", _J, "qwen-json-duplicate-key", _J_DUPLICATE,
           "no-wrong-call@extra.duplicate-name"),
    *_rows("qwen_react", _F, "fa-check-laxer",
           "json5 reads {'query': 'a'} on purpose; " + _FA_LAXER,
           "agrees-with-grammar@malformed.invalid-json"),
    *_rows("qwen_react", _F, "fa-operator-label-in-answer",
           "the answer's text holds a whole action block at line starts, which the format"
           " cannot carry; any line-based reader runs it: a protocol note, not a finding",
           "no-wrong-call@injected.label-in-answer"),
    # ---- lagent ReActProtocol
    *_rows("lagent_react", _D, "lagent-final-answer-anywhere",
           "`if 'Final Answer:' in message` (react.py) beats any action: the label inside a"
           " JSON argument, inside a thought, after a \\r, or after the action finishes the"
           " run with the text after it; ReAct.chat sends no stop words, so a model that goes"
           " on writes 'Response: ...' and 'Final Answer: ...' and the invented answer is"
           " returned, the tool never run",
           "no-hijacked-answer@injected.label-in-argument"
           " no-hijacked-answer@injected.answer-label-in-thought"
           " no-hijacked-answer@injected.unicode-line-break"
           " no-hijacked-answer@injected.answer-and-action"
           " no-hijacked-answer@fabricated.observation"
           " no-hijacked-answer@fabricated.observation-no-stop"
           " no-hijacked-answer@content.mixed-text no-hijacked-answer@content.lenient-json"
           " no-hijacked-answer@size.label-run-argument",
           "xorbitsai/inference issue 1099 (no Observation stop word: the model invents the"
           " result and the answer)"),
    *_rows("lagent_react", _D, "lagent-action-label-anywhere",
           "`Action:(.*?)\\n` (react.py) is unanchored and its last match names the tool: an"
           " argument line that ends in 'Action:' or 'Action: <tool>' (an argument spread"
           " over lines, as models pretty-print JSON) names the tool from inside the input:"
           " an unknown tool, or another tool run with the first one's arguments",
           "no-silent-drop@content.mixed-text no-wrong-call@content.mixed-text"
           " no-silent-drop@injected.label-in-argument no-wrong-call@injected.label-in-argument"),
    *_rows("lagent_react", _D, "lagent-scalar-args-typeerror",
           "`JsonParser.parse_inputs` takes `set(inputs)` of whatever json.loads returned: a"
           " number or a bool raises TypeError, which `BaseAction.__call__` (it catches"
           " ParseError only) lets out, and the agent loop dies where an ARGS_ERROR was due;"
           " the same unguarded path lets json.loads' RecursionError out on an input nested"
           " about a thousand deep (one fix covers both: parse_inputs raising ParseError for"
           " any error while it reads the input)",
           "no-crash@json.scalar-args no-crash@size.deep-nesting",
           "found by the peer Atheris harness ('Action Input:1') and by json.scalar-args"),
    *_rows("lagent_react", _J, "lagent-action-findall-quadratic",
           "`re.findall(\"Action:(.*?)\\n\", message)` (react.py) starts at every 'Action:'"
           " of the text and scans to the next line break; on the completion's last line (the"
           " Action Input, with no line break after it) each one scans to the end: quadratic in"
           " the labels an argument quotes. 16 kB of 'Action: ' in a JSON argument parse in"
           " 0.14 s, 160 kB in 14.5 s; a model must quote the label thousands of times on one"
           " line first (low)",
           "bounded-time@size.label-run-argument"),
    *_rows("lagent_react", _J, "lagent-greedy-input",
           "`Action Input:(.*)` with DOTALL runs from the first 'Action Input:' to the end:"
           " a thought quoting an inline action makes the real input invalid JSON; lagent"
           " answers with a parse error (a wasted turn, no wrong call)",
           "no-silent-drop@injected.action-in-thought"),
    *_rows("lagent_react", _J, "lagent-json-duplicate-key", _J_DUPLICATE,
           "no-wrong-call@extra.duplicate-name"),
    *_rows("lagent_react", _F, "fa-oracle-answer-space", _FA_SPACE,
           "no-hijacked-answer@clean.render no-hijacked-answer@injected.label-in-answer"),
    *_rows("lagent_react", _F, "fa-check-stricter",
           "lagent checks the arguments against the tool's parameters; " + _FA_STRICTER,
           "agrees-with-grammar@missing.argument-dropped"
           " agrees-with-grammar@injected.unicode-line-break"),
    *_rows("lagent_react", _F, "fa-adapter-refusal-kind", _FA_KIND,
           "right-rejection@missing.empty-brackets right-rejection@extra.undeclared-name"),
    *_rows("lagent_react", _F, "fa-check-laxer",
           "'**Action:** search' names the tool '** search', rejected as unknown; an indented"
           " or \\r-separated label runs the intended call; " + _FA_LAXER,
           "agrees-with-grammar@label.markdown agrees-with-grammar@label.leading-space"
           " agrees-with-grammar@label.odd-line-break"),
    # ---- smolagents parse_json_blob
    *_rows("smolagents_json", _D, "smolagents-first-brace-slice",
           "parse_json_blob slices from the first '{' to the last '}' of the whole text: a"
           " blob quoted in the thought before the real one makes a valid call fail"
           " (AgentParsingError, a wasted step)",
           "no-silent-drop@injected.action-in-thought no-silent-drop@prose.lone-brace",
           "huggingface/smolagents PR 2427 (the same slice, a '}' after the blob),"
           " PR 2587 (a lone brace), PR 992/994 (trailing text after a good blob)"),
    *_rows("smolagents_json", _F, "fa-operator-duplicate-top-level",
           "extra.duplicate-name writes the repeated argument beside 'name' and 'arguments',"
           " not inside 'arguments'; smolagents ignores the extra key and runs the intended"
           " call, which the oracle calls wrong",
           "no-wrong-call@extra.duplicate-name"),
    *_rows("smolagents_json", _F, "fa-check-stricter",
           "two blobs in one text are refused; " + _FA_STRICTER,
           "agrees-with-grammar@injected.unicode-line-break"),
    *_rows("smolagents_json", _F, "fa-check-laxer",
           "smolagents reads the blob wherever it stands, labels ignored; " + _FA_LAXER,
           "agrees-with-grammar@malformed.trailing-text agrees-with-grammar@label.case"
           " agrees-with-grammar@label.spacing agrees-with-grammar@label.numbering"
           " agrees-with-grammar@label.markdown agrees-with-grammar@label.leading-space"
           " agrees-with-grammar@label.odd-line-break"),
    # ---- qwen-agent Nous <tool_call>
    *_rows("qwen_nous", _D, "json5-surrogate-pairs",
           "the arguments are decoded with json5 (0.17.3), which reads the JSON escape of a"
           " character outside the BMP ('\\ud83c\\udf89', an emoji) as two lone"
           " surrogates instead of one character: the tool gets a string that cannot be"
           " encoded as UTF-8 (json.loads reads it right)",
           "no-wrong-call@content.real-text no-wrong-call@content.mixed-text"
           " no-wrong-call@content.lenient-json",
           "dpranke/pyjson5 PR 110 (the bug is json5's; qwen-agent reaches it for every"
           " escaped emoji or CJK extension character a model writes)"),
    *_rows("qwen_nous", _J, "qwen-tag-in-string",
           "the message is split at every '</tool_call>' (nous_fncall_prompt.py), one inside"
           " a JSON string included: the arguments are cut there and the call is refused"
           " (qwen-agent's fallback makes a call with no name); in Qwen's stack the closing"
           " tag is a special token a model writes only to end a call",
           "no-silent-drop@content.mixed-text"),
    *_rows("qwen_nous", _F, "fa-format-think-in-answer", _FA_THINK,
           "no-hijacked-answer@clean.render"),
    *_rows("qwen_nous", _F, "fa-check-time-limit-under-load",
           "a 17 kB argument of code took json5 (linear, about 30 us a character on that"
           " machine, timed by hand: 10 kB 0.29 s, 40 kB 1.14 s, 160 kB 4.6 s of CPU) past"
           " its 1 s limit on the wall clock, on a two-core machine running three fuzz runs:"
           " the limit is read on the wall clock, which load stretches",
           "bounded-time@size.long-domain-text"),
    *_rows("qwen_nous", _F, "fa-check-superlinear-ratio",
           "bounded-time failed a long parse more than 25 times slower than the grammar and"
           " called it super-linear; json5 is linear (about 16 us a character from 4 kB to"
           " 330 kB, timed by hand), only slower than a compiled lexer: the check now allows"
           " time in proportion to the length and claims no growth from one parse",
           "bounded-time@size.long-argument"),
    *_rows("qwen_nous", _D, "qwen-call-dropped-silently",
           "a call it cannot read in its own shape is dropped without a word and the thought"
           " is the answer: a call object without both 'name' and 'arguments' (another"
           " arguments key such as 'parameters', OpenAI's 'function' wrapper, a tool without"
           " parameters written without 'arguments': nous_fncall_prompt.py `if fn and 'name'"
           " in fn and 'arguments' in fn` has no else), and a call whose closing tag is"
           " missing when its JSON is compact (the fallback for a missing tag looks for"
           " '\"name\": \"' with its space); broken JSON there at least makes a call",
           "no-hijacked-answer@missing.close-tag no-hijacked-answer@json.call-shape",
           "QwenLM/Qwen-Agent issue 674 (calls written with 'parameters' not read);"
           " langgraph4j/langgraph4j-deepagents issue 2 (Qwen3 writes its call with"
           " 'parameters' as text)"),
    *_rows("qwen_nous", _D, "qwen-call-string-crash",
           "a call object written as a JSON string (a double-encoded call) decodes to a str"
           " and `fn['name']` raises TypeError out of postprocess_fncall_messages: the turn"
           " fails instead of the call being refused",
           "no-crash@json.call-shape"),
    *_rows("qwen_nous", _J, "qwen-think-tag-in-string",
           "the message is split at every '</think>' and calls are read only after the last"
           " one (nous_fncall_prompt.py): a '</think>' inside a JSON argument leaves the call"
           " unread and the whole message is the answer; in Qwen3's stack '</think>' is a"
           " special token a model writes only to end its thinking",
           "no-hijacked-answer@content.mixed-text no-hijacked-answer@content.lenient-json"),
    *_rows("qwen_nous", _J, "tag-parallel-calls", _J_PARALLEL,
           "no-wrong-call@injected.second-action"),
    *_rows("qwen_nous", _J, "tag-found-anywhere", _J_TAG_ANYWHERE,
           "no-wrong-call@injected.label-in-answer"),
    *_rows("qwen_nous", _F, "fa-check-text-after-call",
           "text after '</tool_call>' is dropped by qwen-agent (never shown, never fed"
           " back), so a model-written Observation there reaches nothing:"
           " no-fabricated-observation judges the completion, not what the parser keeps",
           "no-fabricated-observation@fabricated.observation"
           " no-fabricated-observation@fabricated.observation-no-stop"),
    *_rows("qwen_nous", _F, "fa-check-laxer",
           "json5 reads single quotes, text after the tag and a fence around the message are"
           " ignored; " + _FA_LAXER,
           "agrees-with-grammar@malformed.trailing-text agrees-with-grammar@malformed.invalid-json"
           " agrees-with-grammar@label.markdown"),
    # ---- camel-ai Hermes <tool_call>
    *_rows("camel_hermes", _D, "camel-quote-rewrite",
           "the formatter replaces every ' with \" before json.loads: an apostrophe inside"
           " an argument ('it's') breaks the JSON, the call is dropped and the message text,"
           " tag included, is the answer",
           "no-hijacked-answer@content.real-text no-hijacked-answer@content.mixed-text"
           " no-wrong-call@content.lenient-json no-hijacked-answer@size.long-domain-text",
           "camel-ai/camel issue 4169 and issue 541"),
    *_rows("camel_hermes", _F, "fa-format-think-in-answer", _FA_THINK,
           "no-hijacked-answer@clean.render"),
    *_rows("camel_hermes", _J, "tag-broken-json-is-message", _J_BROKEN_JSON,
           "no-hijacked-answer@malformed.unbalanced-bracket"
           " no-hijacked-answer@malformed.unbalanced-quote"
           " no-hijacked-answer@content.lenient-json"
           " no-hijacked-answer@malformed.non-finite-number"
           " no-hijacked-answer@json.template-braces no-hijacked-answer@json.python-set"),
    *_rows("camel_hermes", _F, "fa-operator-tag-edit", _FA_TAG_EDIT,
           "no-hijacked-answer@malformed.invalid-json no-hijacked-answer@extra.duplicate-name"
           " no-hijacked-answer@label.odd-line-break"),
    *_rows("camel_hermes", _J, "tag-found-anywhere", _J_TAG_ANYWHERE,
           "no-wrong-call@injected.action-in-thought no-wrong-call@injected.unicode-line-break"
           " no-wrong-call@injected.label-in-answer"),
    *_rows("camel_hermes", _J, "tag-parallel-calls", _J_PARALLEL,
           "no-wrong-call@injected.second-action"),
    *_rows("camel_hermes", _J, "tag-text-after-call",
           "text after the call is not read; whether a model-written Observation there"
           " reaches the transcript is up to the caller of the converter",
           "no-fabricated-observation@fabricated.observation"
           " no-fabricated-observation@fabricated.observation-no-stop"),
    *_rows("camel_hermes", _F, "fa-check-laxer",
           "single quotes become double quotes, text after the tag and a fence are ignored; "
           + _FA_LAXER,
           "agrees-with-grammar@malformed.trailing-text agrees-with-grammar@malformed.invalid-json"
           " agrees-with-grammar@label.markdown"),
    # a call object of another shape fails the same ``try`` as broken JSON (one bug of
    # that reader: "skip what does not decode"), so both operators are rows of one bug
    *_rows("camel_hermes", _J, "tag-broken-json-is-message",
           "a call object other than exactly {'name', 'arguments': {...}} (an 'id' key,"
           " another arguments key, the arguments as a JSON string, a list of calls) fails"
           " ToolCall's extra='forbid' or its dict of arguments inside the same try as broken"
           " JSON: the call is skipped with a printed warning and the message, tag included,"
           " is the answer",
           "no-hijacked-answer@json.call-shape"),
    *_rows("camel_hermes", _J, "tag-unclosed-is-message",
           "`<tool_call>\\s*({.*?})\\s*</tool_call>` needs the closing tag: a call whose"
           " closing tag never came (the model stopped, or its budget ended) is not found and"
           " the message, tag included, is the answer",
           "no-hijacked-answer@missing.close-tag",
           "JustVugg/colibri PR 505 (a call whose closing tag never arrives recovered there)"),
    *_rows("camel_hermes", _J, "camel-lazy-across-openers",
           "the lazy DOTALL pattern starts at the first '<tool_call>' anywhere: an unclosed"
           " call start quoted in the think block runs on into the real call, the JSON fails"
           " and the real call is dropped, the message shown as the answer; the tag is a"
           " special token in the Hermes and Qwen stacks, written only to call",
           "no-hijacked-answer@size.repeated-call-start"),
    *_rows("camel_hermes", _J, "camel-hermes-quadratic",
           "`<tool_call>\\s*({.*?})\\s*</tool_call>` under DOTALL is tried from every"
           " '<tool_call> {' of the message and scans to its end from each when no call"
           " closes: quadratic in the repeats. A message of 160 kB of unclosed call starts"
           " parses in about 1.7 s, 15 times its 40 kB quarter (a linear parse: 4); a model"
           " must loop on the tag for thousands of repeats first (low)",
           "bounded-time@size.repeated-call-start",
           "odysseus-dev/odysseus issue 4703 (the same lazy `<open>...</close>` scan from every"
           " unclosed opener, reported there as a ReDoS)"),
    # ---- camel-ai <function=NAME>
    *_rows("camel_function", _D, "camel-function-no-dotall",
           "the <function=NAME>(.*?)</function> pattern has no DOTALL: JSON arguments over"
           " several lines (a pretty-printed object) are not found and the message, tag"
           " included, is the answer (a helper ChatAgent no longer calls in 0.2.90: low)",
           "no-hijacked-answer@markup.multiline-input no-hijacked-answer@layout.pretty-action"
           " no-hijacked-answer@json.label-in-string",
           "griptape-ai/griptape PR 211 and PR 118 (the same mechanism in griptape)"),
    *_rows("camel_function", _D, "camel-function-tag-in-string",
           "the lazy `<function=(\\w+)>(.*?)</function>` ends the call at the first"
           " '</function>', one inside a JSON string argument included: the JSON is cut there,"
           " fails to decode, and the message, tag included, is the answer; unlike Qwen's"
           " '</tool_call>', '</function>' is plain text a model may quote",
           "no-hijacked-answer@content.mixed-text",
           "vllm-project/vllm issue 45167 (the same cut at a closing tag inside a JSON string,"
           " in vLLM's Hermes parser)"),
    *_rows("camel_function", _F, "fa-format-think-in-answer", _FA_THINK,
           "no-hijacked-answer@clean.render"),
    *_rows("camel_function", _J, "tag-broken-json-is-message", _J_BROKEN_JSON,
           "no-hijacked-answer@malformed.unbalanced-bracket"
           " no-hijacked-answer@malformed.unbalanced-quote"
           " no-hijacked-answer@malformed.invalid-json"
           " no-hijacked-answer@content.lenient-json"
           " no-hijacked-answer@malformed.non-finite-number"
           " no-hijacked-answer@json.template-braces no-hijacked-answer@json.python-set"),
    *_rows("camel_function", _F, "fa-operator-tag-edit", _FA_TAG_EDIT,
           "no-hijacked-answer@extra.duplicate-name no-hijacked-answer@label.odd-line-break"),
    *_rows("camel_function", _J, "tag-found-anywhere", _J_TAG_ANYWHERE,
           "no-wrong-call@injected.action-in-thought no-wrong-call@injected.unicode-line-break"
           " no-wrong-call@injected.label-in-answer"),
    *_rows("camel_function", _J, "tag-parallel-calls",
           "re.search takes the first of two calls; the function-tag prompt asks for one",
           "no-wrong-call@injected.second-action"),
    *_rows("camel_function", _J, "tag-unclosed-is-message",
           "`<function=(\\w+)>(.*?)</function>` needs the closing tag: a call whose closing"
           " tag never came is not found and the message, tag included, is the answer",
           "no-hijacked-answer@missing.close-tag",
           "JustVugg/colibri PR 505 (a call whose closing tag never arrives recovered there)"),
    *_rows("camel_function", _J, "camel-function-quadratic",
           "`<function=(\\w+)>(.*?)</function>` without DOTALL is tried from every unclosed"
           " '<function=NAME>' on a line and scans to the line's end from each: quadratic in"
           " the repeats of one long line; a model must loop on the tag for thousands of"
           " repeats first (low)",
           "bounded-time@size.repeated-call-start"),
    *_rows("camel_function", _J, "camel-function-deep-recursion",
           "extract_tool_call catches json.JSONDecodeError only (agents/_utils.py:129): JSON"
           " arguments nested about a thousand deep raise RecursionError out of it where an"
           " undecodable call is otherwise a plain message; no model writes such nesting"
           " unless it loops on a bracket",
           "no-crash@size.deep-nesting"),
    *_rows("camel_function", _J, "tag-text-after-call",
           "text after the call is not read; whether a model-written Observation there"
           " reaches the transcript is up to the caller",
           "no-fabricated-observation@fabricated.observation"
           " no-fabricated-observation@fabricated.observation-no-stop"),
    *_rows("camel_function", _F, "fa-check-laxer",
           "text after the tag and a fence are ignored; " + _FA_LAXER,
           "agrees-with-grammar@malformed.trailing-text agrees-with-grammar@label.markdown"),
    # ---- griptape ActionsSubtask (template format zoo/formats/griptape.toml)
    *_rows("griptape_actions", _D, "griptape-greedy-actions",
           "ACTIONS_PATTERN `Actions:[^\\[]*(\\[.*\\])` is unanchored and greedy: from the"
           " first 'Actions:' (a thought that quotes one) to the last ']' of the text, so a"
           " valid action list fails to decode (ErrorArtifact, a wasted turn)",
           "no-silent-drop@injected.action-in-thought",
           "griptape-ai/griptape PR 222 (the same regex, loosened for prose and fences"
           " around the action)"),
    *_rows("griptape_actions", _J, "griptape-no-action-is-answer",
           "no 'Actions: [...]' and no 'Answer:' found and griptape makes the raw output,"
           " thought included, the subtask's output (documented fallback)",
           "no-hijacked-answer@label.case no-hijacked-answer@label.spacing"
           " no-hijacked-answer@label.numbering no-hijacked-answer@injected.stop-in-argument"
           " no-hijacked-answer@variant.case no-hijacked-answer@injected.label-in-argument"
           " no-hijacked-answer@size.label-gap-run",
           "xorbitsai/inference PR 1098 (the same raw-text fallback elsewhere)"),
    *_rows("griptape_actions", _J, "griptape-actions-beat-answer",
           "with actions present 'Answer:' is ignored (documented): the action runs",
           "no-wrong-call@injected.answer-and-action"),
    *_rows("griptape_actions", _J, "griptape-fabricated-observation",
           "griptape relies on its stop word; a model that ignores it writes an observation"
           " that stays in the assistant message of the next prompt",
           "no-fabricated-observation@fabricated.observation-no-stop"),
    *_rows("griptape_actions", _J, "griptape-actions-quadratic",
           "ACTIONS_PATTERN `Actions:[^\\[]*(\\[.*\\])` is tried from every 'Actions:' of"
           " the text and scans to its end from each when no action list closes: quadratic in"
           " the repeats. 16 kB of repeated 'Actions: [{' before an answer parse in 0.01 s,"
           " 160 kB in 0.8 s: 15 times as long as their 40 kB quarter (a linear parse: 4);"
           " a model must loop on the label for thousands of repeats first (low)",
           "bounded-time@size.repeated-call-start"),
    *_rows("griptape_actions", _F, "fa-format-observation-label",
           "griptape's observation label '<|Response|>:' is no word, so the format writes"
           " fabricated observations as 'Observation:', which griptape's stop word does not"
           " cut: a model following griptape's prompt is cut there",
           "no-fabricated-observation@fabricated.observation"
           " no-silent-drop@fabricated.observation"),
    *_rows("griptape_actions", _F, "fa-operator-template-edit",
           "the JSON operators edit the end of the action line ('}}, }', '}}, \"query\": ...')"
           " instead of the arguments object inside the template, dropping the closing ']'",
           "no-hijacked-answer@malformed.invalid-json no-hijacked-answer@extra.duplicate-name"),
    *_rows("griptape_actions", _F, "fa-operator-label-in-answer",
           "the answer's text holds a whole action line, which the format cannot carry:"
           " a protocol note, not a finding",
           "no-wrong-call@injected.label-in-answer"),
    *_rows("griptape_actions", _F, "fa-adapter-refusal-kind",
           "griptape's schema refuses with the right reason; " + _FA_KIND,
           "right-rejection@malformed.wrong-type right-rejection@malformed.empty"
           " right-rejection@missing.empty-brackets right-rejection@extra.undeclared-name"),
    *_rows("griptape_actions", _F, "fa-check-stricter",
           "griptape validates the input against the activity schema, and two action lists"
           " do not decode; " + _FA_STRICTER,
           "agrees-with-grammar@missing.argument-dropped"
           " agrees-with-grammar@injected.unicode-line-break"),
    *_rows("griptape_actions", _F, "fa-check-laxer",
           "the unanchored pattern finds 'Actions:' indented, bold, after \\r or CRLF; "
           + _FA_LAXER,
           "agrees-with-grammar@malformed.trailing-text agrees-with-grammar@label.markdown"
           " agrees-with-grammar@label.leading-space agrees-with-grammar@label.crlf"
           " agrees-with-grammar@label.odd-line-break"),
    # dspy: ChatAdapter.parse over the ReAct step signature, format dspy-react
    *_rows("dspy_chat", _D, "dspy-splitlines-header",
           "ChatAdapter.parse splits the completion with str.splitlines(), which ends a line"
           " at \\r, \\x85, \\u2028, \\u2029, \\x0c too: a header after one inside the"
           " thought becomes a field, and since the first occurrence of a field wins, the"
           " hidden tool runs (or the hidden 'finish' ends the run, or the hidden arguments"
           " go to the visible tool, which then refuses them) instead of the one written on"
           " visible lines",
           "no-wrong-call@injected.unicode-line-break"
           " no-hijacked-answer@injected.unicode-line-break"
           " right-rejection@injected.unicode-line-break"
           " no-silent-drop@injected.action-in-thought",
           "stanfordnlp/dspy issues 8379 and 8901 (the same header-per-line matching, the"
           " other way round: a header inside a line is missed)"),
    *_rows("dspy_chat", _D, "json-repair-surrogate-pairs",
           "next_tool_args is read with json_repair 0.64.6: strict JSON goes to json.loads,"
           " but JSON it has to repair (a trailing comma, bare keys, single quotes) goes"
           " through its own string decoder, which reads '\\ud83c\\udf89' (an escaped"
           " emoji) as two lone surrogates: a string the tool cannot encode",
           "no-wrong-call@content.lenient-json",
           "mangiucugna/json_repair issue 227 (closed; still in 0.64.6)",
           signature="lone surrogates"),
    *_rows("dspy_chat", _D, "json-repair-kept-escape",
           "the same repair path leaves the valid escape '\\/' (a '/' as PHP-style"
           " encoders write it) undecoded: 'https:\\/\\/...' reaches the tool with its"
           " backslashes, a silently different argument",
           "no-wrong-call@content.lenient-json",
           "mangiucugna/json_repair issue 195 and issue 62 (valid escapes altered while"
           " repairing)",
           signature="backslash"),
    *_rows("dspy_chat", _J, "dspy-json-repair-lenient",
           "next_tool_args is read with json_repair, which keeps '{}' of '{}\"query\": ...}'"
           " and drops the rest: the call is refused for a missing argument rather than for"
           " broken JSON; a lenient reader by design, and the refusal still says what to fix",
           "right-rejection@malformed.unbalanced-bracket right-rejection@malformed.invalid-json"),
    *_rows("dspy_chat", _J, "json-repair-deep-recursion",
           "next_tool_args goes to json_repair.loads, which dspy calls as never raising"
           " ('returns \"\" on failure', adapters/utils.py:221): on a value nested about a"
           " thousand deep its json.loads raises RecursionError, which its `except"
           " (JSONDecodeError, TypeError, ValueError)` does not catch, and the parse raises"
           " where it would refuse; no model writes such nesting unless it loops on a bracket",
           "no-crash@size.deep-nesting"),
    *_rows("dspy_chat", _J, "dspy-first-field-wins",
           "a field written twice: the first one is kept (`if k not in fields`) and the"
           " second step is ignored without a word; the ReAct prompt asks for one step",
           "no-wrong-call@injected.second-action"),
    *_rows("dspy_chat", _F, "fa-check-text-after-call",
           "text after '[[ ## completed ## ]]' is an unknown field dspy drops, and a second"
           " next_thought loses to the first: the model-written Observation reaches nothing;"
           " no-fabricated-observation judges the completion, not what the parser keeps",
           "no-fabricated-observation@fabricated.observation"
           " no-fabricated-observation@fabricated.observation-no-stop"),
    # swarms: parse_and_execute_json (tools/tool_parse_exec.py), format json-bare
    *_rows("swarms_json", _F, "fa-adapter-refusal-kind",
           "swarms calls the function with **parameters and Python's binding error is"
           " retried three times, then reported; " + _FA_KIND,
           "right-rejection@missing.empty-brackets right-rejection@extra.undeclared-name"
           " right-rejection@malformed.wrong-type"),
    *_rows("swarms_json", _F, "fa-operator-duplicate-top-level",
           "extra.duplicate-name writes the repeated argument beside 'name' and 'parameters',"
           " not inside 'parameters'; swarms reads only those two keys and runs the intended"
           " call, which the oracle calls wrong",
           "no-wrong-call@extra.duplicate-name"),
    # ---- SGLang: MinimaxM2Detector and Qwen3CoderDetector (formats xml-invoke, xml-function)
    *_rows("sglang_minimax", _D, "sglang-minimax-null-strings",
           "`_convert_param_value_with_types` returns None for the text 'null' whatever the"
           " parameter's type, and for 'none' or 'nil' too: a search for the word null runs"
           " with query=None",
           "no-silent-drop@content.typed-lookalike no-wrong-call@content.typed-lookalike"
           " no-unvalidated-call@content.typed-lookalike",
           "vllm-project/vllm issue 39567 and PR 39599 (the same conversion in vLLM's"
           " MiniMax-M2 parser, fixed there)"),
    *_rows("sglang_minimax", _D, "sglang-minimax-overflow-crash",
           "`_convert_param_value_with_types` converts a number with `float(value)` and then"
           " `int(val)` to drop a '.0', inside `except (ValueError, TypeError)`: '1e999',"
           " 'Infinity' or 'inf' make `int(inf)` raise OverflowError, which nothing in"
           " `detect_and_parse` catches: one parameter's value fails the whole response",
           "no-crash@malformed.non-finite-number",
           "sgl-project/sglang PR 31518 (this crash, 'int(float(\"1e999\")) raises"
           " OverflowError'; open) and PR 31511 (the same in MiniMax-M3's streaming path)"),
    *_rows("sglang_minimax", _J, "xml-call-found-anywhere", _J_XML_ANYWHERE,
           "no-wrong-call@injected.unicode-line-break no-wrong-call@injected.action-in-thought"
           " right-rejection@injected.unicode-line-break"
           " no-hijacked-answer@size.unclosed-argument-run"),
    *_rows("sglang_minimax", _J, "xml-unclosed-is-message",
           "`_extract` needs '</minimax:tool_call>': a block whose closing tag never came is"
           " normal text, the call markup included (the streaming reader takes it as a call)",
           "no-hijacked-answer@missing.close-tag"),
    *_rows("sglang_minimax", _J, "sglang-unknown-tool-dropped",
           "`parse_base_json` drops a call of a tool the request does not declare (with a"
           " logged warning) and the message, the call taken out, is empty",
           "no-hijacked-answer@names.unknown"),
    *_rows("sglang_qwen3_coder", _D, "sglang-qwen3-coder-null-strings",
           "`_convert_param_value` returns None for the text 'null' before it looks at the"
           " schema: a string parameter given the word null gets None",
           "no-silent-drop@content.typed-lookalike no-wrong-call@content.typed-lookalike"
           " no-unvalidated-call@content.typed-lookalike",
           "sgl-project/sglang PR 36835 (keeps 'none' text on string parameters) and"
           " vllm-project/vllm issue 39567 (the same conversion, fixed in vLLM)"),
    *_rows("sglang_qwen3_coder", _J, "xml-call-found-anywhere", _J_XML_ANYWHERE,
           "no-wrong-call@injected.unicode-line-break no-wrong-call@injected.action-in-thought"
           " right-rejection@injected.unicode-line-break"),
    *_rows("sglang_qwen3_coder", _J, "xml-crlf-values",
           "one '\\n' is taken off each edge of a value: with '\\r\\n' line ends the '\\r'"
           " stays in it (a model writing Windows line endings, which none does by default)",
           "no-silent-drop@label.crlf no-wrong-call@label.crlf"),
    *_rows("sglang_qwen3_coder", _J, "sglang-qwen3-coder-quadratic",
           "`detect_and_parse` runs `<tool_call>(.*?)</tool_call>` (DOTALL) with `findall` on"
           " the whole response: from every '<tool_call>' with no closing tag after it the"
           " lazy group scans to the end, quadratic in the openers. 160 kB of unclosed"
           " '<tool_call> <function=NAME>' starts parse in about 3.4 s on the server, 17 times"
           " their 40 kB quarter (a linear parse: 4); a model must loop on the tag for"
           " thousands of repeats first (low)",
           "bounded-time@size.repeated-call-start",
           "odysseus-dev/odysseus issue 4703 (the same lazy `<open>...</close>` scan from every"
           " unclosed opener, reported there as a ReDoS); sgl-project/sglang issue 31912 (a"
           " ReDoS in the pythonic detector of the same package)"),
    *_rows("sglang_pythonic", _D, "sglang-pythonic-redos",
           "`tool_call_regex` nests `[a-zA-Z]+\\w*=.*,\\s*` (a `.*` that matches commas under"
           " DOTALL) inside a `*` over the arguments: a call of a few dozen arguments that"
           " never closes (a length cut) is tried in every split of the run, exponential in"
           " the arguments; 195 characters pass the one-second limit",
           "bounded-time@size.unclosed-argument-run stream-invariance@size.unclosed-argument-run",
           "sgl-project/sglang issue 31912 (the same regex, reported as a ReDoS)"),
    *_rows("sglang_pythonic", _J, "sglang-call-dropped-empty",
           "a call the detector cannot use (an unknown tool, a match `ast` cannot parse, a"
           " list nested past the parser's 200 levels, a value such as 1e999 it refuses to"
           " write as JSON) is taken out of the message and nothing is returned: the turn is"
           " an empty message (logged as a warning)",
           "no-hijacked-answer@names.unknown no-hijacked-answer@malformed.unbalanced-quote"
           " no-hijacked-answer@size.deep-nesting"
           " no-hijacked-answer@malformed.non-finite-number"),
    *_rows("sglang_pythonic", _J, "pythonic-broken-call-is-message",
           "a list the regex does not match (a bracket missing) is the message text, the"
           " broken call included",
           "no-hijacked-answer@malformed.unbalanced-bracket"),
    *_rows("sglang_pythonic", _J, "pythonic-call-found-anywhere",
           "the regex searches the whole text: a call list quoted in an answer runs; the"
           " detector lets text stand before and after a call on purpose",
           "no-wrong-call@injected.label-in-answer"),
    *_rows("sglang_pythonic", _J, "pythonic-text-after-call",
           "text after the call list is kept as the message's text; whether a model-written"
           " Observation there reaches the transcript is up to the caller",
           "no-fabricated-observation@fabricated.observation"
           " no-fabricated-observation@fabricated.observation-no-stop"),
    # ---- Xinference: the Qwen, MiniMax and Llama 3 tool parsers, run by its chat layer
    *_rows("xinference_qwen", _J, "xinf-broken-call-is-content",
           "a block that fails to decode or lacks 'name' or 'arguments' (a tool without"
           " parameters written as {\"name\": \"get_time\"}, broken JSON, a comment) is logged"
           " and handed back as content: with no other call the message, tag included, is"
           " the answer",
           "no-hijacked-answer@json.call-shape no-hijacked-answer@malformed.unbalanced-bracket"
           " no-hijacked-answer@malformed.unbalanced-quote"
           " no-hijacked-answer@malformed.invalid-json"
           " no-hijacked-answer@malformed.non-finite-number no-hijacked-answer@markup.argument"
           " no-hijacked-answer@json.comment no-hijacked-answer@content.lenient-json"
           " no-hijacked-answer@missing.close-tag no-hijacked-answer@json.template-braces"
           " no-hijacked-answer@json.python-set"),
    *_rows("xinference_qwen", _J, "xinf-call-in-think-runs",
           "`_get_function_calls` cuts the text into `(<(think|tool_call)>.*?</\\2>)` blocks,"
           " and a think block that holds '<tool_call>' is read as a call: a call drafted in"
           " the reasoning runs, before the real one (the server runs the first); in Qwen's"
           " stack the tag is a special token a model writes only to call, and a reasoning"
           " parser, when the model is launched with one, takes the think block out first",
           "no-wrong-call@injected.unicode-line-break no-wrong-call@injected.action-in-thought"),
    *_rows("xinference_qwen", _J, "xinf-tag-in-string",
           "`(<(think|tool_call)>.*?</\\2>)` ends a call at the first '</tool_call>', one inside"
           " a JSON string included: the JSON is cut, the block goes back into the content"
           " and the message, tag included, is the answer; in Qwen's stack the closing tag is a"
           " special token a model writes only to end a call",
           "no-hijacked-answer@content.mixed-text"),
    *_rows("xinference_qwen", _J, "xinf-qwen-quadratic",
           "`_get_function_calls` runs `(<(think|tool_call)>.*?</\\2>)` (DOTALL) with"
           " `finditer` on the whole text: from every '<tool_call>' with no closing tag after"
           " it the lazy scan runs to the end, quadratic in the openers (160 kB of unclosed"
           " call starts take over 10 s; 16 kB about 0.1 s, under the share of the limit whose"
           " growth the default run times). " + _XINF_STREAMING_FIXED,
           "bounded-time@size.repeated-call-start",
           _GT_LAZY_SCAN),
    *_rows("xinference_minimax", _J, "xml-call-found-anywhere", _J_XML_ANYWHERE,
           "no-wrong-call@injected.unicode-line-break no-wrong-call@injected.action-in-thought"),
    *_rows("xinference_minimax", _J, "xinf-minimax-quadratic",
           "`_get_function_calls` runs `(<(?:think|minimax:tool_call)>.*?</(?:think|"
           "minimax:tool_call)>)` (DOTALL) with `finditer` on the whole text: from every"
           " '<minimax:tool_call>' with no closing tag after it the lazy scan runs to the end,"
           " quadratic in the openers (16 kB of unclosed call starts in 0.12 s, 16 times their"
           " quarter). " + _XINF_STREAMING_FIXED,
           "bounded-time@size.repeated-call-start",
           _GT_LAZY_SCAN),
    *_rows("xinference_llama3", _D, "llama3-decoder-errors-escape",
           "the object is read with `json.loads` under `except (json.JSONDecodeError,"
           " TypeError)`, then `ast.literal_eval` under `except (ValueError, SyntaxError)`:"
           " literal_eval's TypeError (`{{...}}`, the doubled braces of a prompt template, is"
           " a set holding a dict: unhashable) and json's RecursionError (arguments nested a"
           " thousand deep) escape both, and `_post_process_completion`: the request fails"
           " with a server error where the text was due as content (one fix for both: catch"
           " every error of the two decoders)",
           "no-crash@json.template-braces no-crash@size.deep-nesting"),
    *_rows("xinference_llama3", _D, "llama3-literal-not-json",
           "a Python literal JSON cannot write (a set of words, bytes, a complex number) is"
           " passed on as the call's parameters; `_post_process_completion` writes them with"
           " `json.dumps`, which raises TypeError outside any handler: the request fails",
           "no-crash@json.python-set"),
    *_rows("xinference_llama3", _D, "llama3-literal-eval-json-escapes",
           "when JSON fails (single quotes), `ast.literal_eval` reads the strings by Python's"
           " rules, not JSON's: the JSON escape of a character beyond the BMP"
           " ('\\ud83d\\udc4d', an emoji) becomes two lone surrogates, which no UTF-8 encoder"
           " writes, and '\\/' keeps its backslash: the tool gets other text than the model"
           " wrote",
           "no-wrong-call@content.lenient-json",
           "dpranke/pyjson5 PR 110 (the same lone surrogates from a JSON5 fallback, in"
           " qwen-agent's row above)"),
    *_rows("xinference_llama3", _J, "llama3-broken-call-is-content",
           "the whole completion must be one object with 'name' and 'parameters' (json.loads,"
           " then ast.literal_eval); anything else (no 'parameters', a bracket missing, text"
           " or an Observation after the object, a cut stop word) is the content, the call's"
           " JSON shown as the answer: the protocol has no other place for a call",
           _BARE_JSON_NOT_A_CALL),
    # ---- vLLM 0.34.0 hermes (tool_parsers/hermes_tool_parser.py)
    *_rows("vllm_hermes", _J, "vllm-hermes-one-error-drops-all",
           "every block found by `<tool_call>(.*?)</tool_call>|<tool_call>(.*)` is decoded and"
           " indexed (`function_call[\"arguments\"]`) inside one `try ... except Exception`:"
           " a block that fails (broken JSON, no 'arguments' key, a list of calls) drops"
           " every call of the message, and the whole text, tags and JSON included, is the"
           " content; the model broke the call",
           "no-hijacked-answer@json.call-shape no-hijacked-answer@malformed.unbalanced-bracket"
           " no-hijacked-answer@malformed.unbalanced-quote"
           " no-hijacked-answer@malformed.invalid-json"
           " no-hijacked-answer@malformed.non-finite-number no-hijacked-answer@markup.argument"
           " no-hijacked-answer@json.comment no-hijacked-answer@json.label-in-string"
           " no-hijacked-answer@json.template-braces no-hijacked-answer@json.python-set"
           " no-hijacked-answer@content.lenient-json no-hijacked-answer@missing.close-tag"),
    *_rows("vllm_hermes", _J, "tag-found-anywhere", _J_TAG_ANYWHERE,
           "no-wrong-call@injected.unicode-line-break no-wrong-call@injected.action-in-thought"
           " no-wrong-call@injected.label-in-answer"),
    *_rows("vllm_hermes", _J, "vllm-hermes-lazy-across-openers",
           "the lazy DOTALL `<tool_call>(.*?)</tool_call>` starts at the first '<tool_call>'"
           " anywhere: an unclosed call start quoted in the think block runs on into the real"
           " call, the JSON fails and (one error drops all) the real call is dropped, the"
           " message shown as the answer; the tag is a special token in the Hermes and Qwen"
           " stacks, written only to call",
           "no-hijacked-answer@size.repeated-call-start"
           " no-hijacked-answer@size.unclosed-argument-run"),
    # judged as qwen-agent's and Xinference's readers of the same tag are; an open report
    # upstream argues it is a bug, and a reply accepting it would make all three defects
    *_rows("vllm_hermes", _J, "vllm-hermes-tag-in-string",
           "the lazy `<tool_call>(.*?)</tool_call>` ends a call at the first '</tool_call>',"
           " one inside a JSON string argument included: the JSON is cut there, fails to"
           " decode, and (one error drops all) the call is dropped and the whole text is the"
           " content; in Qwen's stack the closing tag is a special token a model writes only"
           " to end a call, but arguments that quote a document holding it lose their call",
           "no-hijacked-answer@content.mixed-text",
           "vllm-project/vllm issue 45167 (open: 'Hermes tool parser drops tool calls when a"
           " literal </tool_call> appears inside a JSON string argument')"),
    # ---- vLLM 0.34.0 minimax_m2 (parser/minimax_m2.py on the parser engine)
    *_rows("vllm_minimax", _J, "xml-call-found-anywhere", _J_XML_ANYWHERE,
           "no-wrong-call@injected.unicode-line-break no-wrong-call@injected.action-in-thought"),
    *_rows("vllm_minimax", _J, "vllm-minimax-opener-takes-the-rest",
           "the engine opens a call at the first '<minimax:tool_call>' anywhere and reads"
           " to the end: an unclosed call start quoted in the think block takes the real call"
           " after it into its own unfinished call, which is dropped, and the message is the"
           " text before that opener; the wrapper is a special token written only to call",
           "no-hijacked-answer@size.unclosed-argument-run"
           " no-hijacked-answer@size.repeated-call-start"),
    *_rows("vllm_minimax", _J, "vllm-minimax-unknown-tool-dropped",
           "a call of a tool the request does not declare is dropped and the message, the"
           " call taken out, is empty: the client sees an empty answer (SGLang's MiniMax"
           " reader does the same)",
           "no-hijacked-answer@names.unknown"),
    *_rows("vllm_minimax", _J, "vllm-minimax-quadratic",
           "the engine runs the argument converter (`_minimax_m2_parse_args`: a `finditer`, a"
           " `sub` and a `search` over the call's whole body) again for every token of an open"
           " call: an unclosed call start repeated is quadratic in the repeats (40 kB in 2.4 s"
           " under a profiler, 4,610 converter runs), and the last unclosed invoke runs as a"
           " call with the arguments it has; a model must loop on the tag first (low)",
           "bounded-time@size.repeated-call-start"),
    # a long argument of markup is slow in the same converter: the same bug
    *_rows("vllm_minimax", _J, "vllm-minimax-quadratic",
           "the argument converter run again over the whole open call for every token (see"
           " the row above): a long argument of markup is one long open call",
           "bounded-time@size.long-domain-text", signature="_minimax_m2_parse_args"),
    *_rows("vllm_minimax", _D, "vllm-engine-lexer-quadratic",
           "the parser engine's shared lexer (`incremental_lexer.py`, `_drain`) slices the"
           " rest of its buffer (`self.buffer = self.buffer[k:]`) and looks it up in a set of"
           " prefixes for every token: an ordinary answer dense in '<' (HTML, XML, code) is"
           " quadratic in its tags (160 kB of HTML table rows in 3.7 s of CPU, 40 kB in"
           " 0.39 s); every 0.34 engine parser shares the lexer. The 10x run only: 16 kB takes"
           " about 0.1 s, under the share of the limit whose growth is timed",
           "bounded-time@size.long-domain-text", signature="incremental_lexer.py"),
    # ---- vLLM 0.34.0 llama3_json (parser/llama_json.py on the parser engine)
    *_rows("vllm_llama3", _J, "llama3-broken-call-is-content",
           "`_validate_complete_tool_output` wants the whole completion to be objects with"
           " 'name' and 'arguments' or 'parameters', read with `raw_decode` and joined by"
           " ';' (an end-of-turn token may follow); anything else (no 'parameters', a bracket"
           " missing, text or a cut stop word after the object) makes the whole text the"
           " content, the call's JSON shown as the answer: the protocol has no other place for"
           " a call",
           _BARE_JSON_NOT_A_CALL + " no-hijacked-answer@json.template-braces"
           " no-hijacked-answer@json.python-set"),
    *_rows("vllm_llama3", _D, "vllm-llama3-recursion-escapes",
           "`_validate_complete_tool_output` reads each object with `raw_decode` under `except"
           " json.JSONDecodeError` only: arguments nested about 1,500 deep make it raise"
           " RecursionError, which escapes the engine's `extract_tool_calls_from_content` and"
           " the server's `Parser.parse`: the request fails with a server error where the text"
           " was due as content (nested 900 deep, the call runs); the 10x run only, where the"
           " nesting is deep enough",
           "no-crash@size.deep-nesting",
           "the same escape in Xinference's Llama 3 reader (`llama3-decoder-errors-escape`"
           " above)"),
    *_rows("vllm_llama3", _J, "vllm-llama3-leading-space-is-content",
           "the first piece of the output must start with '{' or '<|python_tag|>'"
           " (`_preprocess_feed`, `_validate_complete_tool_output`): a call after a line break"
           " or a space is the content, its JSON shown as the answer. Xinference's Llama 3"
           " reader (`json.loads`) takes it; Llama 3's chat template ends the header with two"
           " line breaks, so a model rarely writes another (low)",
           "no-hijacked-answer@layout.pretty-action"),
)
"""Every triaged pattern of the default runs (docs/zoo.md shows the same rows)."""


def _row(module: str, finding: dict[str, Any], abuse: str) -> Triage | None:
    for row in TRIAGE:
        if (row.module == module and row.check == finding["check"]
                and row.abuse in ("*", abuse)
                and row.signature in (finding.get("signature") or "")):
            return row
    return None


def classify(module: str, finding: dict[str, Any]) -> tuple[str, str]:
    """The triage class and bug id of one finding (``untriaged`` when no row matches).

    A finding is one bug, led by its shortest example, whichever operator wrote it: the
    row of the leading operator decides, else that of the first other operator that
    reached it (``also_reached``)."""
    for abuse in (finding["abuse"], *finding.get("also_reached", ())):
        row = _row(module, finding, abuse)
        if row is not None:
            return row.klass, row.bug
    return "untriaged", ""


def merged_bugs(module: str, finding: dict[str, Any]) -> set[str]:
    """The other triaged bugs whose operators also reached this finding: bugs that one
    finding now stands for (each would be lost if it were real and distinct)."""
    own = classify(module, finding)[1]
    return {row.bug for abuse in finding.get("also_reached", ())
            if (row := _row(module, finding, abuse)) is not None and row.bug != own}
