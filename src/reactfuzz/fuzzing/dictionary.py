"""A libFuzzer dictionary written from a format's data.

Byte mutations rarely spell ``\\nAction: `` or a tool's name; a dictionary hands the
fuzzer the strings the format treats specially, so its mutations land on the protocol:
the labels (at line starts, too), delimiters, stop sequences, quotes, fences and tags,
line breaks and invisible characters, look-alike labels, the registry's tool and
parameter names and the JSON keys. Everything is read from the format object and the
tool registry, so a TOML format or a user's tools get their own dictionary.
"""

from __future__ import annotations

from ..formats import Format
from ..strategies import adversarial_pieces
from ..tools import ToolRegistry

__all__ = ["dictionary_entries", "dictionary_text"]

_VALUES = ("true", "false", "null", "-5", "1.0", "0", "2026-07-01", "\\n", "\\\"", " ")
"""Values a tool argument's schema may refuse or a JSON string may escape."""


def dictionary_entries(fmt: Format, registry: ToolRegistry) -> list[str]:
    """Every dictionary string for ``fmt`` and ``registry``, in a stable order, no repeats."""
    labels = fmt.labels
    words = [w for w in (labels.thought, labels.action, labels.action_input,
                         labels.observation, labels.answer, *labels.headers) if w]
    out: list[str] = [*adversarial_pieces(fmt)]
    for w in words:
        out += [f"{w}:", f"\n{w}: ", f"{w} 1:"]
    out += [s for s in fmt.stop if s]
    fam = fmt.family
    out += [p for p in (fam.open, fam.close, fam.separator, fam.quote) if p]
    if fmt.fence:
        out += [fmt.fence, f"```{fmt.fence}\n", "\n```"]
    else:
        out += ["```json\n", "\n```"]
    if fmt.finish_action:
        out.append(fmt.finish_action)
    for tag in (fmt.tag, fmt.think_tag):
        if tag:
            out += [f"<{tag}>", f"</{tag}>"]
    for key in (fmt.tool_key, fmt.args_key, fmt.answer_key):
        if key:
            out += [f'"{key}"', f'"{key}": ']
    out += ["{", "}", ": ", '"', "'"]
    for tool in registry:
        out += [tool.name, f"{tool.name}{fam.open or '['}", f'"{tool.name}"']
        for name in tool.names:
            out += [name, f'"{name}": ', f"{name}="]
    out += list(_VALUES)
    return list(dict.fromkeys(p for p in out if p))


def _escape(piece: str) -> str:
    """A dictionary value: printable ASCII as is, ``\\\\`` and ``\\"`` escaped, every other
    byte of the UTF-8 encoding as ``\\xNN`` (libFuzzer's dictionary syntax)."""
    out = []
    for b in piece.encode("utf-8"):
        c = chr(b)
        if c in '\\"':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append(f"\\x{b:02X}")
    return "".join(out)


def dictionary_text(fmt: Format, registry: ToolRegistry) -> str:
    """The dictionary file's text: one ``name="value"`` line per entry, with a header."""
    lines = [f"# libFuzzer dictionary for the {fmt.name!r} format (reactfuzz), written from"
             " its labels, delimiters, stop sequences, quotes, fences, tags, tool names and"
             " keys"]
    lines += [f'kw{i}="{_escape(p)}"' for i, p in enumerate(dictionary_entries(fmt, registry))]
    return "\n".join(lines) + "\n"
