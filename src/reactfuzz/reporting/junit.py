"""JUnit XML: one test case per target × check × abuse family, failing with its findings."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from ..engine.advice import advice_for
from ..engine.corpus import Finding
from ..engine.results import OperatorStats, RunSummary
from ..textsafe import token
from .common import (
    checks_found,
    families_found,
    family_of,
    free_text,
    reached_line,
    replay_command,
    targets_found,
    visible,
    where_line,
    worst_first,
    write_atomic,
)

__all__ = ["render_junit", "write_junit", "xml_safe"]

# --------------------------------------------------------------------------------------
# JUnit XML.

_XML_FORBIDDEN = re.compile(
    "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def xml_safe(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids (controls, lone surrogates,
    U+FFFE/U+FFFF): each is replaced by its :func:`visible` escape, so nothing is lost."""
    return _XML_FORBIDDEN.sub(lambda m: token(m.group()), text)


def _xml_text(text: str) -> str:
    return html.escape(xml_safe(text), quote=False)


def _xml_attr(text: str) -> str:
    # Attribute values are normalised by parsers (a newline becomes a space): encode them.
    esc = html.escape(xml_safe(text), quote=True)
    return esc.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")


def _attrs(**kw: Any) -> str:
    return "".join(f' {k}="{_xml_attr(str(v))}"' for k, v in kw.items())


def _finding_block(summary: RunSummary, f: Finding) -> str:
    decided = where_line(f)
    return "\n".join([
        f"[{f.severity}] {f.failure} · {f.abuse} · {f.target}",
        f"  completion: {visible(f.completion)}",
        *([f"  where:      {decided}"] if decided else []),
        f"  expected:   {free_text(f.expected)}",
        f"  observed:   {free_text(f.observed)}",
        f"  why:        {free_text(f.explanation)}",
        f"  fix:        {advice_for(f)}",
        f"  reached:    {reached_line(f)}",
        *(f"  another:    {visible(e, limit=300)}" for e in f.examples[:2]),
        f"  replay:     {replay_command(summary, f)}",
    ])


def _bug_name(f: Finding) -> str:
    """A test case's name for one bug: check, failure and where the parser decided."""
    decided = f.origin.deciding() if f.origin is not None else None
    at = f" at {decided.file}:{decided.line}" if decided is not None else f" ({f.abuse})"
    return f"{f.check} / {f.failure}{at} [{f.id[:8]}]"


def render_junit(summary: RunSummary) -> str:
    """JUnit XML: one failing test case per bug (finding), and one passing or skipped case
    per target × check × abuse family where nothing failed.

    A family whose operators were all skipped for a target is a skipped case; protocol
    notes go to the case's ``system-out`` (they never fail it).
    """
    checks, fams = checks_found(summary), families_found(summary)
    cases: list[str] = []
    n_fail = n_skip = 0
    for target in targets_found(summary) or ["(none)"]:
        ops_by_fam: dict[str, list[OperatorStats]] = {}
        for o in summary.operators:
            if o.target == target:
                ops_by_fam.setdefault(family_of(o.abuse), []).append(o)
        for check in checks:
            for fam in fams:
                def mine(fs: list[Finding], check: str = check, fam: str = fam,
                         target: str = target) -> list[Finding]:
                    return worst_first(f for f in fs if f.target == target and f.check == check
                                   and family_of(f.abuse) == fam)

                found, notes = mine(summary.findings), mine(summary.protocol_notes)
                ops = ops_by_fam.get(fam, [])
                secs = sum(o.elapsed for o in ops) / max(1, len(checks))
                for f in found:  # one failing case per bug
                    n_fail += 1
                    msg = f"{f.failure} ({f.severity}): {free_text(f.explanation)[:300]}"
                    cases.append(
                        "    <testcase" + _attrs(classname=f"reactfuzz.{target}",
                                                 name=_bug_name(f), time="0.000") + ">\n"
                        f"      <failure{_attrs(message=msg, type=f.failure)}>"
                        f"{_xml_text(_finding_block(summary, f))}</failure>\n    </testcase>")
                head = "    <testcase" + _attrs(classname=f"reactfuzz.{target}",
                                                    name=f"{check} / {fam}", time=f"{secs:.3f}")
                body: list[str] = []
                if found:
                    if not notes:
                        continue  # the family's bugs are cases of their own
                elif ops and all(o.skipped for o in ops):
                    n_skip += 1
                    why = "; ".join(dict.fromkeys(f"{o.abuse}: {o.skipped}" for o in ops))
                    body.append(f"      <skipped{_attrs(message=why)}/>")
                if notes:
                    text = "protocol notes (the format cannot carry these intents; not counted "\
                           "as failures):\n" + "\n".join(
                               f"  {f.failure} · {f.abuse}: {visible(f.completion)}" for f in notes)
                    body.append(f"      <system-out>{_xml_text(text)}</system-out>")
                cases.append(f"{head}>\n" + "\n".join(body) + "\n    </testcase>" if body
                             else f"{head}/>")
    props = {
        "seed": summary.seed, "targets": ", ".join(summary.targets), "format": summary.format,
        "dispatcher": summary.dispatcher, "tools": summary.tools, "examples": summary.examples,
        "replayed": summary.replayed, "reproduced": summary.reproduced,
        "known": summary.known, "new": len(summary.new_findings), "fixed": summary.fixed,
        "protocol_notes": len(summary.protocol_notes), "exit_code": summary.exit_code,
    }
    suite = _attrs(name="reactfuzz", tests=len(cases), failures=n_fail, errors=0,
                   skipped=n_skip, time=f"{summary.elapsed:.3f}")
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<testsuites{_attrs(name='reactfuzz', tests=len(cases), failures=n_fail, errors=0)}"
        f'{_attrs(time=f"{summary.elapsed:.3f}")}>',
        f"  <testsuite{suite}>",
        "    <properties>",
        *(f"      <property{_attrs(name=k, value=v)}/>" for k, v in props.items()),
        "    </properties>",
        *cases,
        "  </testsuite>",
        "</testsuites>",
    ]
    return "\n".join(lines) + "\n"


def write_junit(summary: RunSummary, path: str | Path) -> Path:
    """Write :func:`render_junit` to ``path``."""
    return write_atomic(path, render_junit(summary))
