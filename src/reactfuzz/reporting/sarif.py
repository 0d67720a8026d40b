"""SARIF 2.1.0: a run's findings as a static-analysis log, for code-scanning views.

One run, the tool ``reactfuzz`` with one rule per check, one result per finding: its level
from the severity, the message with the advice (how to fix it), the shrunk completion, the
replay command and the advice as properties, and a location. For a ``module:function``
target the location is the line where the function (or the parser object's class) is
defined, read with :mod:`inspect` from the module the run already imported: nothing is
imported here. Other targets point at the format file (a TOML format), the grammar file
(a ``grammar:`` target) or the finding's corpus file. Paths inside the working directory
are written relative to it (``%SRCROOT%``), as code-scanning uploads expect.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any, Final

from ..engine.advice import advice_for
from ..engine.corpus import Finding, is_code_reference
from ..engine.results import RunSummary
from .common import (
    checks_found,
    reached_line,
    replay_command,
    visible,
    where_line,
    worst_first,
    write_atomic,
)

__all__ = ["SARIF_SCHEMA", "render_sarif", "repository_root", "source_location",
           "summary_to_sarif", "write_sarif"]

SARIF_SCHEMA: Final = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
"""The ``$schema`` a log names: the OASIS standard's schema of SARIF 2.1.0."""

_LEVEL: Final = {"critical": "error", "high": "error", "medium": "warning", "low": "note",
                 "none": "none"}
"""SARIF level per severity (a result's ``level``)."""

_SECURITY_SEVERITY: Final = {"critical": "9.0", "high": "7.0", "medium": "5.0", "low": "3.0",
                             "none": "0.0"}
"""The numeric ``security-severity`` code-scanning views sort and colour by."""

_ROOT: Final = "%SRCROOT%"

Location = tuple[str, int]
"""A source file and a 1-based line."""


def source_location(target: str) -> Location | None:
    """Where a ``module:function`` target is defined, if its module is already imported.

    ``module:attr.path`` is looked up in :data:`sys.modules` only (a run imports its
    targets in this process before fuzzing them); an object with a ``parse`` method points
    at its class. ``None`` for any other target, a module not imported, or an object whose
    source :mod:`inspect` cannot find (a builtin, a C extension).
    """
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr or target.startswith(("regex:", "grammar:")):
        return None
    obj: Any = sys.modules.get(module)
    if obj is None:
        return None
    try:
        for part in attr.split("."):
            obj = getattr(obj, part)
        if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)):
            obj = type(obj)  # a parser object: its class holds the parse method
        obj = inspect.unwrap(obj)
        path = inspect.getsourcefile(obj)
        _, line = inspect.getsourcelines(obj)
    except (AttributeError, OSError, TypeError, ValueError):
        return None
    if path is None:
        return None
    return path, max(1, line)


def repository_root(start: Path) -> Path:
    """The root of the repository holding ``start`` (the nearest folder with ``.git``),
    else ``start`` itself: code-scanning views resolve paths against the repository."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def _artifact(path: str, root: Path) -> dict[str, Any]:
    """An ``artifactLocation``: relative to ``root`` (``%SRCROOT%``) when inside it."""
    p = Path(path)
    absolute = p if p.is_absolute() else root / p
    try:
        rel = Path(os.path.normpath(absolute)).relative_to(root)
    except ValueError:
        return {"uri": Path(os.path.normpath(absolute)).as_uri()}
    return {"uri": rel.as_posix(), "uriBaseId": _ROOT}


def _corpus_file(summary: RunSummary, f: Finding) -> str:
    return f"{(summary.corpus_dir or 'fuzz_corpus').rstrip('/')}/{f.filename}"


def _location(summary: RunSummary, f: Finding, root: Path,
              sources: dict[str, Location], format_file: str | None) -> dict[str, Any]:
    """Where a finding points: the line of the user's code where the parser raised or
    decided (an installed package's frame is named in the message, the location staying
    at the user's call into it), else the target's definition, else the format, grammar
    or corpus file."""
    o = f.origin if is_code_reference(f.target) else None  # a built-in's code is ours
    site = o.site if o is not None else None
    if o is not None and site is not None and site.path and Path(site.path).is_file():
        what = (f"{o.exc_type} raised here" if o.exc_type else
                "the parser decided here (its parse returned from this line)")
        if o.inner is not None:
            what += f", in {o.inner.where()}" + (f": {o.inner.code}" if o.inner.code else "")
        return {"physicalLocation": {"artifactLocation": _artifact(site.path, root),
                                     "region": {"startLine": max(1, site.line)}},
                "message": {"text": what}}
    where = sources.get(f.target)
    if where is None and o is not None and o.inner is not None and o.inner.path:
        where = (o.inner.path, o.inner.line)  # no user frame: the library's own line
    if where is not None:
        path, line = where
        return {"physicalLocation": {"artifactLocation": _artifact(path, root),
                                     "region": {"startLine": line}},
                "message": {"text": f"the parser under test, {f.target}"}}
    if f.target.startswith("grammar:"):
        path, what = f.target.removeprefix("grammar:"), "the grammar under test"
    elif format_file is not None:
        path, what = format_file, f"the format {f.format}"
    else:
        path, what = _corpus_file(summary, f), "the finding's corpus file"
    return {"physicalLocation": {"artifactLocation": _artifact(path, root)},
            "message": {"text": what}}


def _rules(summary: RunSummary) -> list[dict[str, Any]]:
    from ..engine.checks import CHECKS

    worst: dict[str, str] = {}
    order = list(_LEVEL)[::-1]  # critical first
    for f in summary.findings:
        if f.check not in worst or order.index(f.severity) < order.index(worst[f.check]):
            worst[f.check] = f.severity
    rules = []
    for check in checks_found(summary):
        known = CHECKS.get(check)
        text = known.description if known is not None else check
        rule: dict[str, Any] = {
            "id": check,
            "name": "".join(w.capitalize() for w in check.replace("_", "-").split("-")),
            "shortDescription": {"text": text},
            "fullDescription": {"text": text},
            "help": {"text": f"reactfuzz check {check}: {text}. Run `reactfuzz checks` for"
                             " every check, and replay a finding with the command in its"
                             " properties."},
            "properties": {"tags": ["reactfuzz", "agent-parser", "security"]},
        }
        if check in worst:
            rule["defaultConfiguration"] = {"level": _LEVEL.get(worst[check], "warning")}
            rule["properties"]["security-severity"] = _SECURITY_SEVERITY.get(
                worst[check], "5.0")
        rules.append(rule)
    return rules


def _message(summary: RunSummary, f: Finding) -> dict[str, str]:
    head = f"{f.severity.upper()} {f.failure}: {f.explanation}"
    text = (f"{head} (abuse {f.abuse}; expected: {f.expected}; observed: {f.observed})."
            f" Completion: {visible(f.completion, limit=300)}")
    md = [f"**{f.severity.upper()} {f.failure}** ({f.check}, abuse `{f.abuse}`):"
          f" {f.explanation}", "",
          f"- expected: {f.expected}", f"- observed: {f.observed}",
          f"- reached: {reached_line(f)}"]
    decided = where_line(f)
    if decided:
        text += f" Where: {decided}."
        md.append(f"- where: {decided}")
    advice = advice_for(f)
    if advice:
        text += f" Fix: {advice}"
        md += [f"- **fix:** {advice}"]
    md += ["", "completion:", "```", visible(f.completion), "```",
           "replay:", "```sh", replay_command(summary, f), "```"]
    return {"text": text, "markdown": "\n".join(md)}


def summary_to_sarif(summary: RunSummary, *, root: str | Path | None = None,
                     sources: dict[str, Location] | None = None,
                     format_file: str | None = None) -> dict[str, Any]:
    """A run as a SARIF 2.1.0 log (a dict ready for :func:`json.dumps`).

    ``root`` is the directory paths are made relative to (default: the working directory);
    ``sources`` maps a target to its source file and line (default: :func:`source_location`
    of each target); ``format_file`` is the TOML format file the run read, if any.
    """
    from .. import __version__

    base = Path(root).resolve() if root is not None else repository_root(Path.cwd())
    if sources is None:
        sources = {t: loc for t in summary.targets if (loc := source_location(t)) is not None}
    rules = _rules(summary)
    index = {r["id"]: i for i, r in enumerate(rules)}
    known = set(summary.known_ids)
    results = []
    for f in worst_first(summary.findings):
        properties: dict[str, Any] = {
            "severity": f.severity, "failure": f.failure, "cause": f.cause,
            "abuse": f.abuse, "target": f.target, "format": f.format,
            "dispatcher": f.dispatcher, "tools": f.tools,
            "completion": f.completion, "replay": replay_command(summary, f),
            "expected": f.expected, "observed": f.observed,
        }
        if f.also_reached:
            properties["alsoReached"] = list(f.also_reached)
        properties["examples"] = f.count
        if f.origin is not None:
            properties["origin"] = f.origin.model_dump(mode="json", exclude={"notable"})
        advice = advice_for(f)
        if advice:  # SARIF's ``fixes`` are patches: the advice is words, in the message too
            properties["advice"] = advice
        results.append({
            "ruleId": f.check,
            "ruleIndex": index[f.check],
            "kind": "fail",
            "level": _LEVEL.get(f.severity, "warning"),
            "message": _message(summary, f),
            "locations": [_location(summary, f, base, sources, format_file)],
            "partialFingerprints": {"reactfuzz/finding": f.id},
            "baselineState": "unchanged" if f.id in known else "new",
            "properties": properties,
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "reactfuzz", "version": __version__, "semanticVersion": __version__,
                "rules": rules,
            }},
            "originalUriBaseIds": {_ROOT: {"uri": base.as_uri() + "/"}},
            "invocations": [{"executionSuccessful": not summary.interrupted,
                             "exitCode": summary.exit_code}],
            "results": results,
            "properties": {
                "seed": summary.seed, "format": summary.format,
                "dispatcher": summary.dispatcher, "examples": summary.examples,
                "known": summary.known, "new": len(summary.new_findings),
                "fixed": summary.fixed,
            },
        }],
    }


def render_sarif(summary: RunSummary, **options: Any) -> str:
    """The SARIF log as JSON text (see :func:`summary_to_sarif` for ``options``)."""
    return json.dumps(summary_to_sarif(summary, **options), indent=2, ensure_ascii=False) + "\n"


def write_sarif(summary: RunSummary, path: str | Path, **options: Any) -> Path:
    """Write the SARIF log of a run to ``path`` (parent folders made as needed)."""
    return write_atomic(path, render_sarif(summary, **options), json=True)
