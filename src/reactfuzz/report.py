"""The reports, under their old import path: everything here lives in :mod:`reactfuzz.reporting`."""

from __future__ import annotations

from .reporting import (
    FAMILIES,
    NdjsonLog,
    ProgressPrinter,
    render_console,
    render_html,
    render_junit,
    render_markdown,
    render_study_markdown,
    study_to_dict,
    summary_to_dict,
    visible,
    write_html,
    write_json,
    write_junit,
    write_markdown,
    xml_safe,
)

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
