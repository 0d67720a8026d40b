"""Arguments as agents really send them: SQL, code, shell commands, paths, URLs, Markdown.

The other operators draw plain words for a free-text argument, or a short piece of real
text (``content.real-text``). An agent's arguments are longer and denser: a query for a
database tool, a snippet for a code runner, a command for a shell, a path, a link with a
query string, a Markdown table for a report, a message of several paragraphs. Parsers
grow guards keyed on such content (a ``;`` taken for the end of a statement, a ``|`` or
a ``&`` for the end of a field, a code fence for the end of the action, a ``#`` for a
comment to strip, a line break for the end of the input), and those guards meet real
arguments only in production.

``content.domain-text`` writes a clean call whose free-text argument is one such text,
built from small pools by Hypothesis so a failure shrinks to the simplest text of its
kind:

* **SQL**: ``SELECT * FROM users WHERE name = 'O''Brien';`` with doubled quotes,
  ``LIKE '%refund%'``, ``IN (1, 2)``, ``--`` comments and semicolons, on one line or
  one clause a line;
* **code**: a Python or JavaScript snippet with brackets, braces, both quotes, a ``#`` or
  ``//`` comment, a template literal and indentation, over several lines, half the time
  in a code fence as models write code in chat;
* **shell**: commands joined by ``|``, ``&&``, ``;`` or ``||``, with ``$(...)``,
  redirects (``>``, ``2>&1``), globs and quoted arguments;
* **paths**: POSIX paths with spaces and parentheses, ``~`` and ``./``, Windows paths
  (``C:\\Users\\Ana\\Documents\\Q3 report.xlsx``) and UNC shares;
* **URLs**: query strings with ``&``, ``=``, ``%20``, ``ids[]=`` brackets, an encoded
  URL as a value, and a ``#`` fragment;
* **Markdown**: a report: a ``#`` heading or none, a table of ``|`` rows (an escaped
  ``\\|`` in a cell), a list or a quote, then a fenced code block, the blocks separated
  by blank lines;
* **paragraphs**: two or three paragraphs of prose with commas, quotes and colons.

``size.long-domain-text`` (in :mod:`.size`) writes such text at the size operators'
lengths, as the answer or as an argument.

The format writes the value as it writes any text: a JSON family escapes quotes,
backslashes and line breaks; a bracket format quotes the argument as a JSON string where
a comma, a bracket, a quote or a line break needs it (``search["a, b"]``); an XML format
writes it raw. A format that cannot carry a text as drawn gets the nearest text it
carries: blank lines closed up where a format reads a blank line as the end of the input,
every line break a space where a format has one line for the argument; the texts never
hold a label, a stop sequence or a closing tag, so the intended call is always what the
text says.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import DOMAIN_TEXT, QUOTE, Advice
from ...formats import Format
from ...model import Call
from ...render import representable
from ..catalogue import Context, Writing, register_abuse
from ..values import validates
from ._parts import free_call

__all__ = ["DOMAINS", "carried", "domain_text", "text_forms"]


# --- SQL -------------------------------------------------------------------------------

_SQL_COLUMNS = ("*", "id, name", "COUNT(*) AS n", "name, SUM(total) AS spent")
_SQL_TABLES = ("users", "invoices i", "\"order items\"")
_SQL_WHERE = (
    "name = 'O''Brien'", "note LIKE '%refund%'", "id IN (1, 2, 3)",
    "city = 'Zürich' AND total > 100", "email = 'a@b.co' OR status <> 'closed'",
    "created_at >= '2024-07-01'",
)
_SQL_TAILS = (";", "", " -- newest first", "; -- done", " ORDER BY id DESC;",
              " LIMIT 10; SELECT 1;")


@st.composite
def _sql(draw: st.DrawFn) -> str:
    sep = draw(st.sampled_from((" ", "\n")))  # one line, or one clause a line
    cols, table, where, tail = (draw(st.sampled_from(p)) for p in (
        _SQL_COLUMNS, _SQL_TABLES, _SQL_WHERE, _SQL_TAILS))
    return f"SELECT {cols}{sep}FROM {table}{sep}WHERE {where}{tail}"


# --- code ------------------------------------------------------------------------------

_CODE = (
    'def total(items):\n{i}# sum the "price" fields\n{i}return sum(x["price"] for x in items)',
    "for name in ['a', 'b']:\n{i}if name != 'b':  # skip b\n{i}{i}print(f\"{{name}}: ok\")",
    "data = {{'ids': [1, 2], \"q\": 'it\\'s'}}\nprint(data['ids'][0])  # -> 1",
    "const q = {{ name: \"O'Brien\", tags: ['a', 'b'] }};\n"
    "fetch(`/api/users?name=${{q.name}}`)  // template literal\n{i}.then(r => r.json());",
    "function add(a, b) {{\n{i}// add two numbers\n{i}return a + b;\n}}",
    "x = [i * 2 for i in range(3) if i % 2 == 0]; print(x)  # one line",
)
"""Snippets with ``{i}`` for one level of indentation (``{{`` for a literal brace)."""


@st.composite
def _code(draw: st.DrawFn) -> str:
    indent = draw(st.sampled_from(("    ", "  ", "\t")))
    code = draw(st.sampled_from(_CODE)).format(i=indent)
    if draw(st.booleans()):  # in a fence, as models write code in chat
        lang = "javascript" if ";\n" in code or "{\n" in code else "python"
        code = f"```{lang}\n{code}\n```"
    return code


# --- shell -----------------------------------------------------------------------------

_SHELL = (
    "ls -la | grep \"a b\"", "cd /tmp && tar czf backup.tgz \"$HOME/My Docs\"",
    "echo $(date +%F) >> log.txt", "grep -rn 'TODO' src 2>&1 | sort | uniq -c",
    "find . -name '*.py' -exec wc -l {} \\;", "curl -s 'https://x.io/a?b=1&c=2' | jq '.[0]'",
    "export PATH=\"$PATH:~/bin\"", "test -f a.txt || touch a.txt",
)
_SHELL_JOINS = (" && ", " | ", "; ", " || ")


@st.composite
def _shell(draw: st.DrawFn) -> str:
    commands = draw(st.lists(st.sampled_from(_SHELL), min_size=1, max_size=3))
    return draw(st.sampled_from(_SHELL_JOINS)).join(commands)


# --- paths -----------------------------------------------------------------------------

_PATHS = (
    "/home/ana/My Documents/report (final).pdf", "C:\\Users\\Ana\\Documents\\Q3 report.xlsx",
    "./src/app.py", "~/notes/2024-07-01.md", "\\\\server\\share\\team, old\\a.txt",
    "D:\\data\\[archive]\\a,b.csv", "/var/log/nginx/access.log.1",
    "C:/Program Files (x86)/App/config.ini", "docs/#1 notes & ideas.md",
)


# --- URLs ------------------------------------------------------------------------------

_URL_BASES = ("https://example.com/search", "http://localhost:8080/api/v1/items",
              "https://user:pa%40ss@example.org/a/b;v=1", "https://example.com/wiki/C++_(lang)")
_URL_PARAMS = ("q=a%20b", "lang=en", "ids[]=1", "ids[]=2", "sort=-date", "x=", "q=1+2%3D3",
               "next=https%3A%2F%2Fexample.com%2F%3Fa%3D1%26b%3D2", "tag=a,b")
_URL_FRAGMENTS = ("", "#results", "#L10-L20", "#/route?x=1")


@st.composite
def _url(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from(_URL_BASES))
    params = draw(st.lists(st.sampled_from(_URL_PARAMS), min_size=0, max_size=3))
    query = "?" + "&".join(params) if params else ""
    return base + query + draw(st.sampled_from(_URL_FRAGMENTS))


# --- Markdown --------------------------------------------------------------------------

_MD_HEADINGS = ("", "## Summary", "# Q3 report: *draft*")
_MD_BODIES = (
    "| name | total |\n|---|---:|\n| O'Brien | $1,200 |",
    "- first item\n- second, with `code`\n  1. nested [link](https://x.io/a?b=1&c=2)",
    "| a | b |\n|---|---|\n| 3 \\| 4 | `x | y` |",
    "> quoted **bold** and _italic_ text",
)
_MD_FENCES = ("```python\nprint(\"hi\")  # say hi\n```", "```\n$ make && ./run --flag=1\n```")


@st.composite
def _markdown(draw: st.DrawFn) -> str:
    """A heading, a table or a list, and a fenced block: what a report in Markdown holds
    (shrinks to a table and a fence)."""
    parts = (draw(st.sampled_from(p)) for p in (_MD_HEADINGS, _MD_BODIES, _MD_FENCES))
    return "\n\n".join(p for p in parts if p)


# --- paragraphs ------------------------------------------------------------------------

_SENTENCES = (
    "Thanks for the update, it's clear now.", "The invoice (no. 7) was paid twice: once "
    "by card, once by transfer.", "Could you \"double-check\" the amount?",
    "Please refund 50% — not the whole $120.", "Best regards, Ana",
    "See the attached file; it lists every charge.",
)


@st.composite
def _paragraphs(draw: st.DrawFn) -> str:
    paragraph = st.lists(st.sampled_from(_SENTENCES), min_size=1, max_size=3).map(" ".join)
    return "\n\n".join(draw(st.lists(paragraph, min_size=2, max_size=3)))


DOMAINS: dict[str, st.SearchStrategy[str]] = {
    "sql": _sql(),
    "code": _code(),
    "shell": _shell(),
    "path": st.sampled_from(_PATHS),
    "url": _url(),
    "markdown": _markdown(),
    "paragraphs": _paragraphs(),
}
"""The kinds of argument text, each a strategy that shrinks to its simplest text."""

_ANY = st.one_of(*DOMAINS.values())


def domain_text(kind: str | None = None) -> st.SearchStrategy[str]:
    """Domain-shaped text: one of :data:`DOMAINS` (``kind``), or any of them."""
    return _ANY if kind is None else DOMAINS[kind]


def text_forms(value: str) -> list[str]:
    """``value``, then the nearer texts a format may carry instead: blank lines closed up,
    then every line break (and the indentation after it) one space."""
    closed = "\n".join(line for line in value.split("\n") if line.strip())
    one_line = " ".join(line.strip() for line in closed.split("\n"))
    return list(dict.fromkeys((value, closed, one_line)))


def carried(ctx: Context, base: Call, name: str, value: str) -> tuple[Call, bool]:
    """The call with the first form of ``value`` the format carries, and whether it is
    written in the format's quotes (a bracket argument holding a comma or a line break)."""
    fmt: Format = ctx.fmt
    for form in text_forms(value):
        intent = Call.named(base.tool, **(base.kwargs() | {name: form}))
        if representable(intent, fmt):
            return intent, False
        if fmt.family.quote is not None and representable(intent, fmt, quote=True):
            return intent, True
    assume(False)
    raise AssertionError("unreachable")  # pragma: no cover


@register_abuse(
    "content.domain-text", family="content",
    description="a free-text argument holding what agents really send: SQL "
    "(`WHERE name = 'O''Brien';`), a code snippet, shell commands (pipes, `&&`, `$(...)`), a "
    "POSIX or Windows path, a URL with a query string (`?q=a%20b&lang=en#top`), a "
    "Markdown table or code fence, several paragraphs; written as the format writes text",
    why="a guard keyed on content (split on `;`, a field ended at a pipe or an `&`, the "
    "action ended at a code fence, a `#` comment stripped, the input ended at a line break) "
    "never meets such arguments in tests, and cuts or drops the call in production",
    expects="the intended call, with the text exactly as meant",
    # the classic bracket regexes split a quoted argument at its commas; the classic
    # action-input regex reads the input's first line only
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        DOMAIN_TEXT,
        "Take SQL, code, commands, paths, URLs and Markdown as text the format carries; a guard"
        " that refuses an argument for its content belongs in the tool, against its schema.",
        family={"bracket": QUOTE}),
)
def _domain_text(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    value = ctx.draw(domain_text())
    intent, quoted = carried(ctx, base, name, value)
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent, quote=quoted), quoted=quoted)
