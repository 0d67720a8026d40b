"""Seed inputs for a campaign: the operators' clean and abused completions, and a corpus.

A fuzzer that starts from nothing spends its first hours discovering ``Action:``. The
seeds are what reactfuzz's own abuse operators write for the format and the tools (the
clean renderings and every abuse, drawn with a fixed seed, so the same seed gives the
same files), plus every completion of a reactfuzz corpus directory (its findings' JSON
files) and every raw input of a libFuzzer corpus directory.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .._determinism import pinned
from ..engine.corpus import iter_corpus
from ..engine.explore import build_pool
from ..errors import InputFileError
from ..formats import Format
from ..strategies import ABUSES, abuse_ids
from ..tools import ToolRegistry

__all__ = ["corpus_inputs", "operator_seeds", "seed_inputs", "write_inputs"]


@pinned
def operator_seeds(fmt: Format, registry: ToolRegistry, *, seed: int = 0,
                   per_operator: int = 4) -> list[bytes]:
    """The completions every abuse operator of ``fmt`` writes (clean ones first), seeded."""
    ids = [a for a in abuse_ids(fmt) if ABUSES[a].applies_to(fmt)]
    ids.sort(key=lambda a: not a.startswith("clean."))
    pool = build_pool(registry, fmt, ids, per_operator, seed)
    return list(dict.fromkeys(sc.completion.encode("utf-8") for sc in pool))


def corpus_inputs(directories: Iterable[str | os.PathLike[str]]) -> list[bytes]:
    """The inputs in corpus directories: a finding's completion for each reactfuzz JSON
    file, the bytes of every other file (a libFuzzer corpus)."""
    out: list[bytes] = []
    for d in directories:
        p = Path(d)
        if not p.exists():
            continue
        files = [p] if p.is_file() else sorted(f for f in p.iterdir() if f.is_file())
        for f in files:
            if f.name.startswith("."):
                continue
            if f.suffix == ".json":
                try:
                    out += [x.completion.encode("utf-8") for _, x in iter_corpus(f)]
                    continue
                except InputFileError:
                    pass  # a JSON input that is no finding: fuzz its bytes
            out.append(f.read_bytes())
    return list(dict.fromkeys(out))


def seed_inputs(fmt: Format, registry: ToolRegistry, *, seed: int = 0, per_operator: int = 4,
                corpus: Iterable[str | os.PathLike[str]] = ()) -> list[bytes]:
    """The operators' completions, then the corpus directories' inputs, without repeats."""
    return list(dict.fromkeys([*operator_seeds(fmt, registry, seed=seed,
                                                per_operator=per_operator),
                               *corpus_inputs(corpus)]))


def write_inputs(inputs: Iterable[bytes], directory: str | os.PathLike[str]) -> int:
    """Write inputs into a libFuzzer corpus directory, each named by its SHA-1 as
    libFuzzer names them, atomically; returns how many were new."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    new = 0
    for data in inputs:
        path = d / hashlib.sha1(data).hexdigest()  # the name libFuzzer gives it
        if path.exists():
            continue
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        new += 1
    return new
