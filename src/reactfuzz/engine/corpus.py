"""Findings and the corpus: one readable JSON file per finding, versioned and atomic.

A :class:`Finding` is a failed check, shrunk and classified. It carries everything needed
to reproduce it from the file alone: the target, format, dispatcher and tools it ran
against, the completion (as text and base64), the intent and the outcomes the oracle
accepted. Files are named by a stable hash of what makes the finding distinct, written
atomically (a temporary file, then ``os.replace``), so a crash or Ctrl-C never leaves a
half-written file and never loses one already written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from ..errors import InputFileError
from ..limits import cut_text, id_problem, load_json_text, read_user_file
from ..model import Call, FinalAnswer, Intent, to_jsonable
from ..oracle import Acceptable
from ..parsers import PARSERS

__all__ = [
    "MAX_EXAMPLES",
    "MAX_FIELD_CHARS",
    "SCHEMA_VERSION",
    "AcceptableSpec",
    "Finding",
    "IntentSpec",
    "OriginSpec",
    "SiteSpec",
    "bounded_finding",
    "is_code_reference",
    "iter_corpus",
    "load_finding",
    "merge_by_root",
    "pick_examples",
    "save_finding",
    "sweep_temp_files",
]

SCHEMA_VERSION: Final = 1

MAX_FINDING_BYTES: Final = 16 * 1024 * 1024
"""The largest corpus file read (16 MiB; findings keep their completions short)."""


class IntentSpec(BaseModel):
    """An intent as JSON: a call (tool, args, names) or an answer (text)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["call", "answer"]
    tool: str | None = None
    args: list[Any] = Field(default_factory=list)
    names: list[str] | None = None
    text: str | None = None

    @classmethod
    def of(cls, intent: Intent) -> IntentSpec:
        """The JSON view of an intent."""
        if isinstance(intent, FinalAnswer):
            return cls(kind="answer", text=intent.text)
        return cls(
            kind="call",
            tool=intent.tool,
            args=[to_jsonable(a) for a in intent.args],
            names=list(intent.names) if intent.names is not None else None,
        )

    def intent(self) -> Intent:
        """Back to an Intent (argument values as JSON gave them)."""
        if self.kind == "answer":
            return FinalAnswer(self.text or "")
        names = tuple(self.names) if self.names is not None else None
        return Call(self.tool or "", tuple(self.args), names)


class AcceptableSpec(BaseModel):
    """The oracle's acceptable outcomes, stored so replay needs no abuse operator."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: list[IntentSpec] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)
    rejections: list[str] = Field(default_factory=list)
    reason: str = ""
    representable: bool = True

    @classmethod
    def of(cls, acc: Acceptable) -> AcceptableSpec:
        """The JSON view of an oracle result."""
        return cls(
            calls=[IntentSpec.of(c) for c in acc.calls],
            answers=list(acc.answers),
            rejections=sorted(acc.rejections),
            reason=acc.reason,
            representable=acc.representable,
        )

    def acceptable(self, intent: Intent, registry: Any) -> Acceptable:
        """Back to an Acceptable; stored calls are re-validated so values get their types."""
        calls = []
        for spec in self.calls:
            call = spec.intent()
            assert isinstance(call, Call)
            try:
                if call.names is not None:
                    call = registry.validate(call.tool, call.kwargs())
            except Exception:  # a stored call that no longer validates stays as stored
                pass
            calls.append(call)
        return Acceptable(intent, tuple(calls), tuple(self.answers), frozenset(self.rejections),
                          self.reason, self.representable)


class SiteSpec(BaseModel):
    """One line of the target's code, as a finding stores it (see ``targets.origin.Site``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str  # relative to the import path entry that holds it
    line: int
    function: str = ""
    path: str = ""  # absolute, where the run found it
    code: str = ""  # the line's text

    def where(self) -> str:
        """``file:line in function``."""
        at = f"{self.file}:{self.line}"
        return f"{at} in {self.function}" if self.function else at


class OriginSpec(BaseModel):
    """Where the target decided on a finding's completion: what it raised and where, or
    the line its parse returned from, and how many lines of its code the parse ran."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    exc_type: str = ""
    site: SiteSpec | None = None  # in the user's own code
    inner: SiteSpec | None = None  # in a library the user's code called
    path_lines: int = 0
    path: str = ""  # a hash of the lines the parse ran (see ``Origin.path_digest``)
    key: str = ""
    # lines of the path that read the text (a label test, a split, a decoder): for advice
    notable: list[SiteSpec] = Field(default_factory=list)
    hot: SiteSpec | None = None  # a slow parse: the busiest line where its time went

    @classmethod
    def of(cls, origin: Any) -> OriginSpec | None:
        """The stored view of a ``targets.origin.Origin`` (``None`` stays ``None``)."""
        if origin is None:
            return None

        def site(s: Any) -> SiteSpec | None:
            if s is None:
                return None
            return SiteSpec(file=s.file, line=s.line, function=s.function, path=s.path,
                            code=s.code)

        return cls(exc_type=origin.exc_type, site=site(origin.site), inner=site(origin.inner),
                   path_lines=len(origin.path), path=origin.path_digest(), key=origin.key(),
                   notable=[s for s in map(site, origin.notable) if s is not None],
                   hot=site(getattr(origin, "hot", None)))

    def deciding(self) -> SiteSpec | None:
        """The line to show: the user's own, else the library's, else a slow parse's
        busiest line."""
        return self.site or self.inner or self.hot

    def describe(self) -> str:
        """One line: ``IndexError raised at agent.py:42 in parse``, ``returned at ...`` or
        ``time spent at ...``."""
        if self.hot is not None and self.site is None and self.inner is None:
            return f"time spent at {self.hot.where()}"
        site = self.deciding()
        if site is None:
            return f"{self.exc_type} raised" if self.exc_type else ""
        verb = f"{self.exc_type} raised" if self.exc_type else "returned"
        text = f"{verb} at {site.where()}"
        if self.site is not None and self.inner is not None:
            text += f", in {self.inner.where()}"
        return text


MAX_EXAMPLES = 3
"""How many other completions a finding keeps beside its shortest (distinct, shortest first)."""

MAX_EXAMPLE_CHARS = 2048
"""The longest other example a finding keeps whole (the shortest completion is always whole)."""


class Finding(BaseModel):
    """A failed check, shrunk and classified, with all it takes to reproduce it.

    ``failure`` is the kind of failure the check reported: a verdict kind for the checks
    that read the oracle's verdict (``wrong-call``), the check's own kind otherwise
    (``disagrees:laxer``, ``unclear-rejection``). Files store it under the key
    ``verdict``, as every corpus file written so far does; ``verdict`` also still reads.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", serialize_by_alias=True)

    schema_version: Literal[1] = SCHEMA_VERSION
    target: str
    format: str
    dispatcher: str
    tools: str = "default"
    check: str
    failure: str = Field(validation_alias=AliasChoices("failure", "verdict"),
                         serialization_alias="verdict")
    cause: Literal["design", "protocol"] = "design"
    severity: str
    abuse: str
    completion: str
    completion_b64: str = ""
    intent: IntentSpec
    acceptable: AcceptableSpec
    expected: str
    observed: str
    explanation: str
    seed: int | None = None
    shrunk: bool = True
    # what was observed, values masked (see ``root_key``); empty in files written before it
    signature: str = ""
    # the other abuse operators whose search reached the same root cause
    also_reached: list[str] = Field(default_factory=list)
    # where the target decided (what it raised and where, or the line it returned from)
    origin: OriginSpec | None = None
    # how many failing examples the run met of this bug, and a few other completions
    count: int = 1
    examples: list[str] = Field(default_factory=list)
    # the fix for this bug, chosen from its origin when it shows the mechanism
    fix: str = ""
    # a loop finding (``reactfuzz loop``): the script the fake model played, as data
    script: dict[str, Any] | None = None

    def model_post_init(self, __context: Any) -> None:
        encoded = base64.b64encode(self.completion.encode("utf-8")).decode("ascii")
        if not self.completion_b64:
            object.__setattr__(self, "completion_b64", encoded)
        elif self.completion_b64 != encoded:
            raise ValueError("completion_b64 does not match completion")

    @property
    def verdict(self) -> str:
        """The failure kind under its earlier name (kept for code written against it)."""
        return self.failure

    @property
    def id(self) -> str:
        """Stable identity: what makes two findings the same bug -- its root cause
        (:meth:`root_key`, with the tools), so the bug keeps its file whichever example
        is the shortest; a finding with no signature (written before there were any) is
        known by its completion."""
        if self.signature:
            parts = [self.target, self.format, self.dispatcher, self.tools, self.check,
                     self.failure, self.cause, self.signature]
        else:
            parts = [self.target, self.format, self.dispatcher, self.tools, self.check,
                     self.failure, self.abuse, self.completion]
        key = json.dumps(parts, ensure_ascii=True)
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    def merged(self, other: Finding) -> Finding:
        """This bug with ``other``'s examples added: the shortest completion leads (its
        operator becomes the finding's, the rest ``also_reached``), counts add up, and a
        few distinct other completions are kept."""
        first, second = (self, other) if _shorter_or_same(self, other) else (other, self)
        reached = [*first.also_reached, second.abuse, *second.also_reached,
                   *([] if first is self else [self.abuse])]
        reached = [a for a in dict.fromkeys(reached) if a != first.abuse]
        pool = [second.completion, *first.examples, *second.examples]
        examples = pick_examples(pool, first.completion)
        return first.model_copy(update={
            "also_reached": reached, "count": self.count + other.count,
            "examples": examples,
            "origin": first.origin or second.origin, "fix": first.fix or second.fix})

    @property
    def filename(self) -> str:
        """The corpus file name: readable prefix plus the stable hash."""
        if self.signature:  # one file per bug, whichever operator's example leads
            return f"{self.check}-{self.id}.json".replace("/", "_")
        return f"{self.check}-{self.abuse}-{self.id}.json".replace("/", "_")

    def dedup_key(self) -> tuple[str, ...]:
        """Findings of the same check, failure kind and abuse against a target are one bug."""
        return (self.target, self.format, self.dispatcher, self.check, self.failure, self.abuse)

    def root_key(self) -> tuple[str, ...]:
        """What makes two findings one root cause, whichever operator reached them: the
        target, the check, the failure kind, the cause and the masked observation."""
        return (self.target, self.format, self.dispatcher, self.check, self.failure,
                self.cause, self.signature)

    def reproduction(self) -> str:
        """A five-line Python snippet that calls the target on the completion (for a loop's
        finding, the command that plays its script again)."""
        if self.script is not None:
            return "\n".join([
                "# the loop's finding: its script is in the corpus file; the command replays",
                "# every file of the corpus first, then searches again",
                self.replay_command(),
            ])
        return "\n".join([
            "import base64",
            "from reactfuzz.targets import load_target",
            f"parse = load_target({self.target!r}, {self.format!r}).parse",
            f"completion = base64.b64decode({self.completion_b64!r}).decode('utf-8')",
            "print(parse(completion))",
        ])

    def replay_command(self, path: str | Path | None = None) -> str:
        """The CLI command that replays this finding."""
        if self.script is not None:  # ``reactfuzz loop`` or ``serve``: its corpus directory
            corpus = str(Path(path).parent) if path is not None else "loop_corpus"
            fmt = f" --format {shlex.quote(self.format)}" if self.format != "bracket" else ""
            tools = f" --tools {shlex.quote(self.tools)}" if self.tools != "default" else ""
            if ":" in self.target and not any(c.isspace() for c in self.target):
                head = f"reactfuzz loop --target {self.target}"
            else:
                head = f"reactfuzz serve --command {shlex.quote(self.target)}"
            return f"{head}{fmt}{tools} --corpus {shlex.quote(corpus)}"
        where = str(path) if path is not None else f"fuzz_corpus/{self.filename}"
        # replay never imports what a corpus file names: a user target or tools module is
        # named on the command line
        extra = f" --target {self.target}" if is_code_reference(self.target) else ""
        if is_code_reference(self.tools, tools=True):
            extra += f" --tools {self.tools}"
        return f"reactfuzz replay {where}{extra}"


def _shorter_or_same(a: Finding, b: Finding) -> bool:
    """Whether ``a``'s completion leads ``b``'s: shorter, or as short and shrunk."""
    return (len(a.completion), not a.shrunk) <= (len(b.completion), not b.shrunk)


def merge_by_root(group: list[Finding], finding: Finding,
                  corpus: str | Path | None = None) -> bool:
    """Merge ``finding`` into the finding of ``group`` with its root cause, if there is one
    (its operator and examples are added, the shorter completion leads, and the bug's
    corpus file, named by the root cause, is rewritten when ``corpus`` is given)."""
    for i, known in enumerate(group):
        if known.root_key() == finding.root_key():
            group[i] = known.merged(finding)
            if corpus:
                save_finding(group[i], corpus)
            return True
    return False


def pick_examples(pool: list[str], lead: str) -> list[str]:
    """Up to :data:`MAX_EXAMPLES` distinct completions other than ``lead``, shortest first,
    each cut to :data:`MAX_EXAMPLE_CHARS`."""
    seen = {lead}
    out: list[str] = []
    for text in sorted(pool, key=len):
        short = cut_text(text, MAX_EXAMPLE_CHARS, MAX_EXAMPLE_CHARS - 80)
        if text in seen or short in seen:
            continue
        seen.update((text, short))
        out.append(short)
        if len(out) == MAX_EXAMPLES:
            break
    return out


def is_code_reference(ref: str, *, tools: bool = False) -> bool:
    """Whether a finding's target (or ``tools``) names code that loading would import.

    Built-in parsers, ``regex:`` and ``grammar:`` targets, ``default`` and ``.json`` tools
    are data; anything else is a ``module:attr`` that replay must not import on a file's say.
    """
    if tools:
        return ref != "default" and not ref.lower().endswith(".json")
    return not (ref in PARSERS or ref.startswith(("regex:", "grammar:")))


MAX_FIELD_CHARS: Final = 4096
"""The longest text a finding keeps in ``observed``, ``expected``, ``explanation`` and
``signature``; the completion is always kept whole, so the finding still replays."""

_BOUNDED_FIELDS: Final = ("observed", "expected", "explanation", "signature")


def _bounded(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    return cut_text(text, limit, limit - 80)


def bounded_finding(finding: Finding) -> Finding:
    """``finding`` with its long text fields cut to :data:`MAX_FIELD_CHARS` (the length and
    a hash of the whole text kept), so a parser returning megabytes gives a small file and
    small reports."""
    long = {k: _bounded(getattr(finding, k)) for k in _BOUNDED_FIELDS
            if len(getattr(finding, k)) > MAX_FIELD_CHARS}
    return finding.model_copy(update=long) if long else finding


def save_finding(finding: Finding, directory: str | Path) -> Path:
    """Write a finding atomically into ``directory``; returns its path (idempotent)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    finding = bounded_finding(finding)
    path = d / finding.filename
    stored = _stored(path, finding)
    if stored is not None:  # the bug's file from an earlier run: its examples are kept
        finding = bounded_finding(finding.merged(stored).model_copy(
            update={"count": finding.count}))
    text = json.dumps(finding.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=d)
    try:
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; corpus files are for the whole team
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _stored(path: Path, finding: Finding) -> Finding | None:
    """The finding ``path`` holds when it is the same bug as ``finding`` (else ``None``:
    no file, an unreadable one, or a finding written before bugs had signatures)."""
    if not finding.signature or not path.is_file():
        return None
    try:
        stored = load_finding(path)
    except InputFileError:
        return None
    return stored if stored.id == finding.id and stored.completion != finding.completion \
        else None


STALE_TEMP_SECONDS: Final = 3600.0
"""A corpus temporary file older than this was left by a process that was killed while
saving (``SIGKILL``): no save takes that long, so it is removed."""


def sweep_temp_files(directory: str | Path, *, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove ``.tmp-*.json`` files a killed run left in ``directory``; returns how many.

    Recent ones may belong to a run saving right now (runs may share a corpus), so only
    files older than ``older_than`` seconds go.
    """
    import time

    d = Path(directory)
    removed = 0
    if not d.is_dir():
        return 0
    now = time.time()
    for f in d.glob(".tmp-*.json"):
        try:
            if f.is_file() and not f.is_symlink() and now - f.stat().st_mtime > older_than:
                f.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def load_finding(path: str | Path) -> Finding:
    """Read and validate one corpus file; a bad file is one readable error."""
    p = Path(path)
    raw = read_user_file(p, "corpus file", limit=MAX_FINDING_BYTES)
    try:
        data = load_json_text(raw.decode("utf-8"), str(p))
    except json.JSONDecodeError as e:
        raise InputFileError(f"{p}:{e.lineno}: not valid JSON ({e.msg})") from None
    except UnicodeDecodeError as e:
        raise InputFileError(f"{p}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    if not isinstance(data, dict):
        raise InputFileError(f"{p}: a corpus file holds one JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise InputFileError(
            f"{p}: schema_version {version!r} is not supported (this reactfuzz reads"
            f" {SCHEMA_VERSION}); re-run the fuzzer to regenerate it"
        )
    try:
        finding = Finding.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = str(err["msg"]).removeprefix("Value error, ")
        raise InputFileError(f"{p}: key '{key}': {msg}") from None
    except ValueError as e:  # a field check outside pydantic's own wording
        raise InputFileError(f"{p}: {e}") from None
    problem = _fields_problem(finding)
    if problem is not None:
        raise InputFileError(f"{p}: {problem}")
    return finding


def _fields_problem(finding: Finding) -> str | None:
    """What is inconsistent between a finding's fields that pydantic cannot see, or ``None``."""
    for key, spec in [("intent", finding.intent),
                      *((f"acceptable.calls.{i}", c)
                        for i, c in enumerate(finding.acceptable.calls))]:
        if spec.kind == "call" and spec.names is not None and len(spec.names) != len(spec.args):
            return (f"key '{key}': {len(spec.names)} names for {len(spec.args)} args"
                    " (names and args go in pairs)")
    for key in ("check", "abuse"):
        problem = id_problem(key, getattr(finding, key))
        if problem is not None:
            return f"key '{key}': {problem}"
    return None


def iter_corpus(path: str | Path) -> Iterator[tuple[Path, Finding]]:
    """Every finding in a corpus directory (sorted by name), or one file."""
    p = Path(path)
    if not p.exists():
        return
    if not p.is_dir():  # a file, or a special file that load_finding refuses
        yield p, load_finding(p)
        return
    for f in sorted(p.glob("*.json")):
        if f.name.startswith(".tmp-"):
            continue
        yield f, load_finding(f)
