"""Typed results of the API, as dataclasses with snake_case fields.

The API speaks camelCase JSON; these classes are what callers see instead, so an editor can
complete ``hit.start_line`` and a typo fails loudly. Each is built by :func:`from_json`,
which maps ``start_line`` to ``startLine`` by rule (or by a field's ``json`` metadata where
the name cannot be Python's, as ``from``), fills fields the answer lacks with their default
(an older server), and ignores fields it does not know (a newer one): the client keeps
working across versions. Top-level results keep the whole answer in ``raw`` for fields not
modelled here.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Type, TypeVar, Union

T = TypeVar("T")


def _raw() -> Any:
    """The ``raw`` field of top-level results: the answer as sent, out of repr and equality."""
    return field(default_factory=dict, repr=False, compare=False)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@dataclass
class EntryLocation:
    """Where an entry is: a file and its 1-based, inclusive line range."""

    path: str
    start_line: int
    end_line: int


@dataclass
class SkippedNote:
    """A note not written again because the same text is already an active entry there."""

    path: str
    start_line: int
    end_line: int
    entry: Optional[int] = None  #: its index in the request's ``entries``


@dataclass
class SearchHit:
    """One search result: a chunk of a file, its lines, and why it scored as it did."""

    path: str
    start_line: int
    end_line: int
    snippet: str
    score: float
    text_score: float = 0.0
    vector_score: float = 0.0
    rerank_score: Optional[float] = None  #: only when reranking ran
    recency: Optional[float] = None  #: only with ``half_life_days``
    source: str = "memory"
    space: str = "agent"
    status: str = "active"  #: ``active`` or ``superseded``
    observed: Optional[str] = None  #: YYYY-MM-DD from the entry's metadata
    key: Optional[str] = None
    origin: Optional[str] = None  #: owner, agent, untrusted, system


@dataclass
class SearchUsage:
    """Tokens a search cost (embedding, rerank) and returned (snippets)."""

    embedding_tokens: int = 0
    rerank_tokens: int = 0
    result_tokens: int = 0


@dataclass
class Abstained:
    """Chunks matched but all scored below ``min_score``: "I don't remember" rather than a weak match."""

    best_score: float
    min_score: float


@dataclass
class SearchResult:
    """The answer to a search. ``degraded`` is set when a stage fell back (reasons for people;
    ``degraded_codes`` has stable codes); ``request_id`` is what :meth:`feedback` takes."""

    results: List[SearchHit]
    mode: str
    request_id: Optional[str] = None
    degraded: Optional[Dict[str, str]] = None
    degraded_codes: Optional[Dict[str, str]] = None
    abstained: Optional[Abstained] = None
    snippets_shortened: Optional[int] = None
    usage: Optional[SearchUsage] = None
    timings_ms: Optional[Dict[str, float]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class FileInfo:
    """An indexed file, as ``GET /files`` lists it."""

    path: str
    source: str
    space: str
    size_bytes: int
    mtime: str
    sha256: str
    chunks: int
    lines: int


@dataclass
class FileWindow:
    """A file, or a window of its lines. ``sha256`` is of the whole file: pass it as ``if_match``."""

    path: str
    from_line: int = field(metadata={"json": "from"})
    to_line: int = field(metadata={"json": "to"})  #: ``from_line - 1`` when past the end
    total_lines: int
    text: str
    sha256: str
    raw: Dict[str, Any] = _raw()


@dataclass
class WriteResult:
    """The answer to a write or append: the file's new hash and the lines this write produced."""

    path: str
    sha256: str
    size_bytes: int
    total_lines: int
    start_line: int
    end_line: int
    created: bool
    indexed: bool
    duplicate: bool = False  #: the text already was an active entry: nothing written
    skipped: List[SkippedNote] = field(default_factory=list)
    superseded: List[EntryLocation] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class DeleteResult:
    path: str
    deleted: bool
    indexed: bool


@dataclass
class FlushResult:
    """The answer to a flush. ``replayed`` means the ``flush_id`` had landed before: nothing appended."""

    indexed: bool
    path: Optional[str] = None
    start_line: Optional[int] = None
    end_line: Optional[int] = None
    replayed: bool = False
    drained: bool = False  #: an empty flush: pending changes synced, nothing appended
    duplicate: bool = False
    skipped: List[SkippedNote] = field(default_factory=list)
    superseded: List[EntryLocation] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()


@dataclass
class SupersedeResult:
    """The new entry and the old one(s) it marked superseded, written in one atomic write."""

    path: str
    sha256: str
    entry: EntryLocation
    superseded: List[EntryLocation]
    indexed: bool
    raw: Dict[str, Any] = _raw()


@dataclass
class ForgottenEntry:
    """A flush entry :meth:`forget` removed, with its lines before the removal."""

    path: str
    start_line: int
    end_line: int
    agent: str
    flush_id: Optional[str] = None


@dataclass
class ForgetResult:
    session_id: str
    removed: List[ForgottenEntry]
    files: int


@dataclass
class LastSync:
    """How the last sync ended; the answer's other counters are in the parent's ``raw``."""

    at: str
    ok: bool
    full: bool
    reason: str
    duration_ms: float
    error: Optional[str] = None


@dataclass
class SyncProgress:
    """The sync running now."""

    phase: str
    full: bool
    reason: str
    files_done: int
    files_total: int
    chunks_embedded: int
    chunks_to_embed: int
    started_at: str


@dataclass
class EmbeddingStatus:
    provider: str
    model: Optional[str] = None
    dims: Optional[int] = None
    state: str = "none"  #: none, ready, pending (keyword search meanwhile)
    error: Optional[str] = None


@dataclass
class IndexStatus:
    """``GET /index`` (and ``POST /index``): what the acting agent's index holds and is doing."""

    files: int
    chunks: int
    embedding: EmbeddingStatus
    vector_backend: str
    vectors_pending: int
    dirty: bool
    watching: bool
    syncing: bool
    rebuilding: bool
    queued: bool = False
    completed_syncs: int = 0
    progress: Optional[SyncProgress] = None
    last_sync: Optional[LastSync] = None
    sources: Dict[str, Any] = field(default_factory=dict)
    engine: Dict[str, Any] = field(default_factory=dict)
    watch: Dict[str, Any] = field(default_factory=dict)
    raw: Dict[str, Any] = _raw()


@dataclass
class Ready:
    """``GET /ready``. Not ready is an answer (``ready`` False), not an error; ``checks`` says why
    (shown only with a token, or when none is configured)."""

    ready: bool
    checks: Optional[Dict[str, str]] = None


@dataclass
class Health:
    status: str
    uptime_ms: int


@dataclass
class FeedbackResult:
    request_id: str
    useful: bool


@dataclass
class SearchFeedback:
    useful: bool
    note: Optional[str]
    time: str


@dataclass
class LoggedSearch:
    """One search of the search log (``GET /searches``)."""

    request_id: str
    time: str
    agent: str
    query: str
    mode: str
    results: int
    abstained: bool
    latency_ms: float
    user: Optional[str] = None
    best_score: Optional[float] = None
    degraded: List[str] = field(default_factory=list)
    feedback: Optional[SearchFeedback] = None


@dataclass
class UserInfo:
    id: str
    open: bool
    files: int
    chunks: int
    last_sync: Optional[LastSync] = None


@dataclass
class UserList:
    agent: str
    users: List[UserInfo]


@dataclass
class UserDeleteResult:
    agent: str
    user: str
    files: List[str]


@dataclass
class AgentInfo:
    id: str
    open: bool
    files: int
    chunks: int
    last_sync: Optional[LastSync] = None


@dataclass
class AgentList:
    agents: List[AgentInfo]
    team: Optional[Dict[str, Any]] = None


@dataclass
class ImportedFile:
    path: str
    outcome: str  #: created, replaced, unchanged, kept
    indexed: bool


@dataclass
class ImportResult:
    files: List[ImportedFile]
    written: int
    indexed: bool


# --- conversion -------------------------------------------------------------------------

_HINTS: Dict[type, Dict[str, Any]] = {}
_NONE = type(None)


def _hints(cls: type) -> Dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin is Union:  # Optional[X]
        inner = [a for a in typing.get_args(tp) if a is not _NONE]
        return _convert(inner[0], value) if len(inner) == 1 else value
    if origin is list and isinstance(value, list):
        (item,) = typing.get_args(tp)
        return [_convert(item, v) for v in value]
    if dataclasses.is_dataclass(tp) and isinstance(value, dict):
        return from_json(tp, value)
    return value


def from_json(cls: Type[T], data: Dict[str, Any]) -> T:
    """Builds ``cls`` from a camelCase JSON object (see the module docstring for the rules)."""
    hints = _hints(cls)
    kwargs: Dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name == "raw":
            kwargs["raw"] = data
            continue
        name = f.metadata.get("json", _camel(f.name))
        if name in data:
            kwargs[f.name] = _convert(hints[f.name], data[name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs[f.name] = None  # required by the schema, absent here: an older server
    return cls(**kwargs)
