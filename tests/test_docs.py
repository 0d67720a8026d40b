"""The docs stay true to the CLI: command lines parse, links resolve, every command is documented.

Checked command lines are the ``reactfuzz ...`` (or ``python -m reactfuzz ...``) commands in
fenced ``sh``/``bash``/``shell`` blocks (every line), ``console`` blocks (lines starting
with ``$ ``) and ``yaml`` blocks (``run:`` lines) of ``docs/*.md`` and ``README.md``. Each
must name an existing subcommand and only options that subcommand accepts, spelled in
full, with values argparse accepts. Optional parts written ``[--opt value]`` are checked as
if given. A line holding a placeholder, written ``<UPPER_CASE>`` or as a shell variable
(``$VAR``, ``${{ ... }}``), is skipped, and so is a console command whose output is a
``reactfuzz: error:`` line (it shows a mistake on purpose).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from reactfuzz.cli import build_parser
from reactfuzz.docgen import _COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
SOURCES = [*DOCS, ROOT / "README.md"]

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.M | re.S)
_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*>|\$[{A-Za-z_]")
_OPTIONAL = re.compile(r"\[(-[^\[\]]*)\]")
_OPERATORS = {"|", "||", "&&", ";", "&"}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _joined(lines: list[str]) -> list[str]:
    """Join shell continuation lines (a trailing backslash)."""
    out: list[str] = []
    buf = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return out


def _command_lines(text: str) -> list[str]:
    """The shell command lines of a Markdown file's fenced blocks."""
    found: list[str] = []
    for m in _FENCE.finditer(text):
        lang, body = m.group(1).lower(), m.group(2)
        lines = body.splitlines()
        if lang in ("sh", "bash", "shell"):
            found += _joined(lines)
        elif lang == "console":
            i = 0
            while i < len(lines):
                line = lines[i]
                i += 1
                if not line.startswith("$ "):
                    continue
                cmd = line[2:]
                while cmd.rstrip().endswith("\\") and i < len(lines):
                    cmd = cmd.rstrip()[:-1] + " " + lines[i]
                    i += 1
                shows_error = i < len(lines) and lines[i].startswith("reactfuzz: error:")
                if not shows_error:  # a command shown failing on purpose is not checked
                    found.append(cmd)
        elif lang in ("yaml", "yml"):
            for line in _joined(lines):
                s = line.strip()
                s = s[len("run:"):].strip() if s.startswith("run:") else s
                if s.startswith(("reactfuzz ", "python -m reactfuzz ")):
                    found.append(s)
    return found


def _simple_commands(line: str) -> list[list[str]]:
    """Split one shell line into simple commands (pipes, &&, ;), redirections dropped."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    commands: list[list[str]] = [[]]
    redirected = False
    for tok in lex:
        if tok in _OPERATORS:
            commands.append([])
            redirected = False
        elif tok and set(tok) <= set("<>&"):
            cmd = commands[-1]
            if cmd and cmd[-1].isdigit() and not redirected:  # the 2 of 2>&1
                cmd.pop()
            redirected = True
        elif not redirected:
            commands[-1].append(tok)
    return [c for c in commands if c]


def _reactfuzz_argv(cmd: list[str]) -> list[str] | None:
    while cmd and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", cmd[0]):  # VAR=value prefixes
        cmd = cmd[1:]
    if cmd[:1] == ["reactfuzz"]:
        return cmd[1:]
    if cmd[:3] == ["python", "-m", "reactfuzz"]:
        return cmd[3:]
    return None


def _documented_invocations() -> list[tuple[str, str, list[str]]]:
    out = []
    for path in SOURCES:
        for line in _command_lines(path.read_text(encoding="utf-8")):
            if _PLACEHOLDER.search(line):
                continue
            line = _OPTIONAL.sub(r"\1", line)
            for cmd in _simple_commands(line):
                argv = _reactfuzz_argv(cmd)
                if argv is not None:
                    out.append((path.name, line.strip(), argv))
    return out


INVOCATIONS = _documented_invocations()


def test_the_docs_show_commands() -> None:
    assert len(INVOCATIONS) > 30
    assert {argv[0] for _, _, argv in INVOCATIONS if argv} >= set(_COMMANDS)


@pytest.mark.parametrize(
    ("where", "line", "argv"), INVOCATIONS, ids=[f"{w}:{a[0] if a else ''}" for w, _, a in INVOCATIONS]
)
def test_documented_command_line_parses(where: str, line: str, argv: list[str]) -> None:
    subs = _subparsers()
    assert argv, f"{where}: bare 'reactfuzz' in {line!r}"
    if argv[0] not in ("--version", "--help", "-h"):
        assert argv[0] in subs, f"{where}: no command {argv[0]!r} in {line!r}"
        known = subs[argv[0]]._option_string_actions
        for tok in argv[1:]:
            if tok.startswith("-") and tok != "-":
                name = tok.split("=", 1)[0]
                assert name in known, f"{where}: {argv[0]} has no option {name!r} ({line!r})"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(argv)
        except SystemExit as e:
            assert e.code == 0, f"{where}: {line!r}: {err.getvalue().strip()}"


def test_pytest_options_in_the_docs_exist() -> None:
    from reactfuzz import pytest_plugin

    class _Group:
        def __init__(self) -> None:
            self.names: set[str] = set()

        def addoption(self, name: str, **kw: object) -> None:
            self.names.add(name)

    group = _Group()

    class _Parser:
        def getgroup(self, *a: object) -> _Group:
            return group

    pytest_plugin.pytest_addoption(_Parser())
    used = set()
    for path in SOURCES:
        for line in _command_lines(path.read_text(encoding="utf-8")):
            used |= set(re.findall(r"--reactfuzz-[\w-]+", line))
    assert used, "the docs show no --reactfuzz-* option"
    assert used <= group.names, sorted(used - group.names)


def test_every_command_has_a_section_and_a_generated_help_block() -> None:
    assert set(_subparsers()) == set(_COMMANDS), "update _COMMANDS in reactfuzz.docgen"
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in _COMMANDS:
        assert f"\n## {name}\n" in text, f"docs/cli.md has no section for {name}"
        assert f"<!-- BEGIN help-{name} -->" in text


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def _links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\[[^\]\n]*\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for target in _links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(target)
    assert not broken, f"{path.name}: broken links {broken}"
