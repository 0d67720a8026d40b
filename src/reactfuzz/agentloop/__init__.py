"""The fake model drives the user's whole agent loop (``reactfuzz loop``).

A loop is ``run(llm, tools, task) -> str``. The fake model (:class:`ScriptedModel`) plays a
:class:`Script` of turns with a provider's stop and length semantics; the fake tools
(:class:`FakeTools`) record each call and return a unique observation. The loop checks
(:data:`LOOP_CHECKS`) say what a careful loop does with each turn; :func:`run_loop` searches
every kind of script, shrinks each bug to its shortest script and reports as ``fuzz`` does.

``script`` holds the scripts and their strategies, ``fakes`` the fake model and tools,
``play`` one run of the loop, ``checks`` the loop checks, ``search`` the search and shrink,
``run`` the command's driver.
"""

from .checks import LOOP_CHECKS, LoopCheck, LoopFailure, loop_failures
from .fakes import FakeTools, ModelCall, ModelText, ScriptedModel, StepBoundExceeded, ToolCall
from .play import LoopFn, LoopRun, play
from .run import LoopConfig, replay_loop_finding, run_loop
from .script import LOOP_KINDS, Script, ScriptTurn, script_kinds, scripts

__all__ = [
    "LOOP_CHECKS", "LOOP_KINDS", "FakeTools", "LoopCheck", "LoopConfig", "LoopFailure",
    "LoopFn", "LoopRun", "ModelCall", "ModelText", "Script", "ScriptTurn", "ScriptedModel",
    "StepBoundExceeded", "ToolCall", "loop_failures", "play", "replay_loop_finding",
    "run_loop", "script_kinds", "scripts",
]
