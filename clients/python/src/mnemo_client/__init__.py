"""Python client for mnemo, a memory service for AI agents.

    from mnemo_client import Mnemo

    with Mnemo("http://127.0.0.1:8787", token="…") as m:
        m.flush(entries=["- The user prefers Postgres 16."], flush_id="s-42:7", session_id="s-42")
        for hit in m.search("which postgres version").results:
            print(f"{hit.path}#L{hit.start_line}-L{hit.end_line}", hit.score, hit.snippet)

:class:`AsyncMnemo` has the same methods for asyncio. Every failure is a :class:`MnemoError`
with the API's stable ``code`` (or ``UNREACHABLE`` / ``TIMEOUT`` when mnemo was not reached).
"""

from ._http import __version__
from .async_client import AsyncEventStream, AsyncMnemo
from .client import EventStream, Mnemo
from .errors import HTTP_ERROR, INVALID_RESPONSE, TIMEOUT, UNREACHABLE, MnemoError
from .models import (
    Abstained,
    AgentInfo,
    AgentList,
    DeleteResult,
    EmbeddingStatus,
    EntryLocation,
    FeedbackResult,
    FileInfo,
    FileWindow,
    FlushResult,
    ForgetResult,
    ForgottenEntry,
    Health,
    ImportedFile,
    ImportResult,
    IndexStatus,
    LastSync,
    LoggedSearch,
    Ready,
    SearchFeedback,
    SearchHit,
    SearchResult,
    SearchUsage,
    SkippedNote,
    SupersedeResult,
    SyncProgress,
    UserDeleteResult,
    UserInfo,
    UserList,
    WriteResult,
)

__all__ = [
    "__version__",
    "Mnemo",
    "AsyncMnemo",
    "EventStream",
    "AsyncEventStream",
    "MnemoError",
    "UNREACHABLE",
    "TIMEOUT",
    "HTTP_ERROR",
    "INVALID_RESPONSE",
    "Abstained",
    "AgentInfo",
    "AgentList",
    "DeleteResult",
    "EmbeddingStatus",
    "EntryLocation",
    "FeedbackResult",
    "FileInfo",
    "FileWindow",
    "FlushResult",
    "ForgetResult",
    "ForgottenEntry",
    "Health",
    "ImportedFile",
    "ImportResult",
    "IndexStatus",
    "LastSync",
    "LoggedSearch",
    "Ready",
    "SearchFeedback",
    "SearchHit",
    "SearchResult",
    "SearchUsage",
    "SkippedNote",
    "SupersedeResult",
    "SyncProgress",
    "UserDeleteResult",
    "UserInfo",
    "UserList",
    "WriteResult",
]
