"""Reports: the console, progress, JSON, NDJSON, JUnit, Markdown and HTML views of results.

Every function here renders data -- a :class:`~reactfuzz.engine.results.RunSummary`, a
:class:`~reactfuzz.engine.results.StudyResult` or the engine's typed events
(:mod:`reactfuzz.engine.events`) -- and
reads no clock and no randomness, so each output can be pinned by a snapshot test. HTML is
written by hand (inline CSS, inline SVG, :func:`html.escape`): a report needs no dependency,
no script and no network to be read.

One module per view: ``console`` (the run report and progress lines), ``json`` (JSON and
NDJSON), ``junit``, ``markdown``, ``html``, ``sarif`` (SARIF 2.1.0 for code scanning,
imported from its module), ``svg`` (the charts inside the HTML), and ``common``
(families, severities, ordering, :func:`visible`, study rates).
"""

from __future__ import annotations

from .common import FAMILIES, visible
from .console import ProgressPrinter, render_console
from .html import render_html, write_html
from .json import NdjsonLog, study_to_dict, summary_to_dict, write_json
from .junit import render_junit, write_junit, xml_safe
from .markdown import render_markdown, render_study_markdown, write_markdown

__all__ = [
    "FAMILIES",
    "NdjsonLog",
    "ProgressPrinter",
    "render_console",
    "render_html",
    "render_junit",
    "render_markdown",
    "render_study_markdown",
    "study_to_dict",
    "summary_to_dict",
    "visible",
    "write_html",
    "write_json",
    "write_junit",
    "write_markdown",
    "xml_safe",
]
