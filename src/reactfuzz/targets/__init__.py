"""Targets: what reactfuzz fuzzes, and how to call it safely.

A :class:`Target` is a parser under test with a name and a format. ``run(completion)``
never raises because of the parser: it returns a :class:`ParseResult` that is a
:class:`~reactfuzz.model.Step`, a crash (``error="IndexError: ..."``) or a timeout. The one
exception is a result of a type reactfuzz cannot read (a plain string, an int): that is a
mistake in the adapter, raised as :class:`UnsupportedResultError` (a usage error).
``parse(completion)`` is the :class:`~reactfuzz.parsers.Parser` view of the same thing (a
crash or a timeout becomes an invalid Step), so a target plugs in wherever a parser does.

Kinds of target (one entry point: :func:`load_target`):

* a built-in parser by name (:func:`builtin_target`), run in-process;
* a user function or parser object by import path, ``"myagent:parse"``
  (:func:`function_target`), run in a persistent **worker process** with a per-call time
  limit: a parser stuck in a loop is killed and replaced, a parser that kills its process
  is a crash, and the next call gets a fresh worker;
* an already-imported callable (library use), run in-process with a soft ``SIGALRM``
  timeout (main thread, Unix only). Python runs signal handlers between bytecodes, so a
  C-level loop such as a catastrophic ``re`` match cannot be interrupted in-process:
  that is why the import-path form uses a worker process;
* a user regular expression (:func:`regex_target`), with the ``regex`` module's own
  timeout against catastrophic backtracking;
* a user Lark grammar (:func:`grammar_target`) with the rule names of the built-in
  grammar of the format's family.

What a user parser returns is turned into a Step by :func:`adapt` (our Step, tuples, and
dicts and objects recognised by shape from the tables of :mod:`.shapes`: LangChain
``AgentAction``/``AgentFinish``, LlamaIndex reasoning steps, dspy fields, function_call
objects, griptape subtasks and artifacts, ...). What it
raises is classified: a ``ValueError`` (or subclass), or an exception whose class name
contains ``Parse`` (``OutputParserException``, ``ParseError``), is the parser's deliberate
refusal (an invalid Step with code ``parser-refused``); anything else (``TypeError``,
``IndexError``, ``AttributeError``, ``RecursionError``, ...) is a crash: the loop that
called the parser would have died.

User code is only ever imported with :func:`importlib.import_module` from a
``module:attr`` path; model text and user strings are never evaluated.

The package holds one module per idea, and this facade keeps every public import path:

* :mod:`.base` -- :class:`Target` and :class:`ParseResult`;
* :mod:`.adapters` -- :func:`adapt` and the classification of what a parser raises;
* :mod:`.shapes` -- the keys by which result dicts and objects are read;
* :mod:`.builtin` -- built-in parsers as targets;
* :mod:`.user_code` -- importing ``module:attr`` paths from a working directory;
* :mod:`.worker` -- :class:`FunctionTarget`, a user parser in a worker process;
* :mod:`.callables` -- :class:`CallableTarget` (in-process) and :func:`function_target`;
* :mod:`.regexes` -- :class:`RegexTarget`, the user's own action regex;
* :mod:`.grammar` -- :class:`GrammarTarget`, a user Lark grammar;
* :mod:`.load` -- :func:`load_target` and :func:`load_tools`, the entry points.
"""

from __future__ import annotations

# DEFAULT_TIMEOUT, STARTUP_TIMEOUT, SUPPORTED_RESULTS and TARGET_FORMS are public names
# outside __all__ (the noqa lines), kept importable from here.
from .adapters import SUPPORTED_RESULTS, UnsupportedResultError, adapt  # noqa: F401
from .base import DEFAULT_TIMEOUT, ParseResult, Target  # noqa: F401
from .builtin import BuiltinTarget, builtin_target
from .callables import CallableTarget, function_target
from .grammar import GrammarTarget, grammar_target
from .load import TARGET_FORMS, load_target, load_tools  # noqa: F401
from .regexes import RegexTarget, regex_target
from .worker import STARTUP_TIMEOUT, FunctionTarget  # noqa: F401

__all__ = [
    "BuiltinTarget",
    "CallableTarget",
    "FunctionTarget",
    "GrammarTarget",
    "ParseResult",
    "RegexTarget",
    "Target",
    "UnsupportedResultError",
    "adapt",
    "builtin_target",
    "function_target",
    "grammar_target",
    "load_target",
    "load_tools",
    "regex_target",
]
