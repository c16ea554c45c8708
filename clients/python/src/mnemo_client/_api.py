"""Every operation of the API as a :class:`Call`: the request, and how to read its answer.

Both clients build their calls here, so the mapping from Python arguments (snake_case,
``None`` meaning "leave it to the server's default") to the API's camelCase JSON is written
once. Nothing here does I/O.
"""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any, BinaryIO, Dict, Iterable, List, Mapping, Optional, Union
from urllib.parse import quote

import httpx

from . import models
from ._http import Call, error_from_response, file_path, json_body
from .models import from_json

#: search()'s options and their names in the API; anything else is a TypeError at once,
#: as the API would refuse an unknown field with a 400.
SEARCH_OPTIONS: Dict[str, str] = {
    "max_results": "maxResults",
    "min_score": "minScore",
    "mode": "mode",
    "rerank": "rerank",
    "sources": "sources",
    "path_prefix": "pathPrefix",
    "scope": "scope",
    "spaces": "spaces",
    "max_tokens": "maxTokens",
    "after": "after",
    "before": "before",
    "dated_only": "datedOnly",
    "include_superseded": "includeSuperseded",
    "origins": "origins",
    "half_life_days": "halfLifeDays",
    "mmr": "mmr",
    "mmr_lambda": "mmrLambda",
    "expand": "expand",
}

#: searches()' filters and their query parameters.
SEARCHES_FILTERS: Dict[str, str] = {
    "agent": "agent",
    "user": "user",
    "since": "since",
    "no_results": "noResults",
    "limit": "limit",
}

TEXT = "text/markdown; charset=utf-8"

#: What import_archive() takes: an open binary file, the bytes, or a file name.
ArchiveSource = Union[bytes, bytearray, str, "os.PathLike[str]", BinaryIO]


def _value(value: Any) -> Any:
    """A Python value as the API wants it: dates as ISO strings, one string as a list of one."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return value


def _listed(value: Any) -> Any:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, Mapping)):
        return list(value)
    return value


def _param(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(_value(value))


def _compact(body: Dict[str, Any]) -> Dict[str, Any]:
    """Drops the fields left as None: the server's default applies to them."""
    return {k: _value(v) for k, v in body.items() if v is not None}


def _conditions(if_match: Optional[str], if_none_match: Optional[str]) -> Dict[str, str]:
    headers = {}
    if if_match is not None:
        headers["if-match"] = if_match
    if if_none_match is not None:
        headers["if-none-match"] = if_none_match
    return headers


def _parser(cls: Any) -> Any:
    return lambda response: from_json(cls, json_body(response))


def _text_or_json(content: Union[str, bytes], fields: Dict[str, Any]) -> Dict[str, Any]:
    """A file body: the text itself when there is nothing else to say, else JSON with it."""
    extra = _compact(fields)
    if extra:
        text = content.decode("utf-8") if isinstance(content, (bytes, bytearray)) else content
        return {"json": {"content": text, **extra}}
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    return {"content": data, "headers": {"content-type": TEXT}}


# --- search ------------------------------------------------------------------------------


def search(query: str, options: Dict[str, Any]) -> Call[models.SearchResult]:
    unknown = sorted(set(options) - set(SEARCH_OPTIONS))
    if unknown:
        raise TypeError(f"search() got unknown option(s) {', '.join(unknown)}; known: {', '.join(SEARCH_OPTIONS)}")
    body: Dict[str, Any] = {"query": query}
    for name, value in options.items():
        if value is not None:
            body[SEARCH_OPTIONS[name]] = _listed(value) if name in ("sources", "spaces", "origins") else _value(value)
    # A search changes nothing: sending it twice is harmless.
    return Call("POST", "/search", _parser(models.SearchResult), json=body, retriable=True)


def feedback(request_id: str, useful: bool, note: Optional[str]) -> Call[models.FeedbackResult]:
    body = _compact({"requestId": request_id, "useful": useful, "note": note})
    return Call("POST", "/feedback", _parser(models.FeedbackResult), json=body)


def searches(filters: Dict[str, Any]) -> Call[List[models.LoggedSearch]]:
    unknown = sorted(set(filters) - set(SEARCHES_FILTERS))
    if unknown:
        raise TypeError(f"searches() got unknown filter(s) {', '.join(unknown)}; known: {', '.join(SEARCHES_FILTERS)}")
    params = {SEARCHES_FILTERS[k]: _param(v) for k, v in filters.items() if v is not None}
    parse = lambda r: [from_json(models.LoggedSearch, s) for s in json_body(r)["searches"]]  # noqa: E731
    return Call("GET", "/searches", parse, params=params, retriable=True)


# --- files -------------------------------------------------------------------------------


def list_files() -> Call[List[models.FileInfo]]:
    parse = lambda r: [from_json(models.FileInfo, f) for f in json_body(r)["files"]]  # noqa: E731
    return Call("GET", "/files", parse, retriable=True)


def read(path: str, from_line: Optional[int], lines: Optional[int]) -> Call[models.FileWindow]:
    params = {k: str(v) for k, v in (("from", from_line), ("lines", lines)) if v is not None}
    return Call("GET", file_path(path), _parser(models.FileWindow), params=params, retriable=True)


def write(
    path: str,
    content: Union[str, bytes],
    if_match: Optional[str],
    if_none_match: Optional[str],
) -> Call[models.WriteResult]:
    body = _text_or_json(content, {})
    headers = {**body.pop("headers", {}), **_conditions(if_match, if_none_match)}
    # A PUT replaces the whole file: sending it again leaves the same file.
    return Call("PUT", file_path(path), _parser(models.WriteResult), headers=headers, retriable=True, **body)


def append(
    path: str,
    content: Union[str, bytes],
    key: Optional[str],
    origin: Optional[str],
    if_match: Optional[str],
    if_none_match: Optional[str],
) -> Call[models.WriteResult]:
    body = _text_or_json(content, {"key": key, "origin": origin})
    headers = {**body.pop("headers", {}), **_conditions(if_match, if_none_match)}
    return Call("POST", file_path(path), _parser(models.WriteResult), headers=headers, **body)


def delete(path: str, if_match: Optional[str], if_none_match: Optional[str]) -> Call[models.DeleteResult]:
    headers = _conditions(if_match, if_none_match)
    return Call("DELETE", file_path(path), _parser(models.DeleteResult), headers=headers, retriable=True)


# --- entries -----------------------------------------------------------------------------


def flush(
    content: Optional[str],
    entries: Optional[Iterable[str]],
    flush_id: Optional[str],
    session_id: Optional[str],
    date: Union[str, _dt.date, None],
    key: Optional[str],
    origin: Optional[str],
    agent_id: Optional[str],
) -> Call[models.FlushResult]:
    body = _compact(
        {
            "content": content,
            "entries": None if entries is None else _listed(entries),
            "flushId": flush_id,
            "sessionId": session_id,
            "date": date,
            "key": key,
            "origin": origin,
            "agentId": agent_id,
        }
    )
    # A flushId makes the flush idempotent by design: a retry appends nothing twice.
    return Call("POST", "/flush", _parser(models.FlushResult), json=body, retriable=flush_id is not None)


def supersede(
    content: str,
    path: Optional[str],
    start_line: Optional[int],
    end_line: Optional[int],
    key: Optional[str],
    origin: Optional[str],
    if_match: Optional[str],
) -> Call[models.SupersedeResult]:
    body = _compact(
        {"content": content, "path": path, "startLine": start_line, "endLine": end_line, "key": key, "origin": origin}
    )
    return Call(
        "POST", "/supersede", _parser(models.SupersedeResult), json=body, headers=_conditions(if_match, None)
    )


def forget(session_id: str, every_agent: Optional[bool]) -> Call[models.ForgetResult]:
    body = _compact({"sessionId": session_id, "everyAgent": every_agent})
    return Call("POST", "/forget", _parser(models.ForgetResult), json=body)


# --- index and service -------------------------------------------------------------------


def status() -> Call[models.IndexStatus]:
    return Call("GET", "/index", _parser(models.IndexStatus), retriable=True)


def index(full: bool, wait: bool) -> Call[models.IndexStatus]:
    params = {"wait": "true"} if wait else None
    return Call("POST", "/index", _parser(models.IndexStatus), params=params, json={"full": bool(full)})


def ready() -> Call[models.Ready]:
    # Not ready is a 503 with the same body: an answer to the question, not a failure, and
    # asking again at once would not change it.
    def parse(response: httpx.Response) -> models.Ready:
        if response.status_code != 503:
            return from_json(models.Ready, json_body(response))
        try:
            body = response.json()
        except ValueError:
            body = None
        if not (isinstance(body, dict) and "ready" in body):
            raise error_from_response(response)  # a 503 from something else (a proxy)
        return from_json(models.Ready, body)

    return Call("GET", "/ready", parse, accept=(503,))


def health() -> Call[models.Health]:
    return Call("GET", "/health", _parser(models.Health), retriable=True)


def metrics() -> Call[str]:
    return Call("GET", "/metrics", lambda r: r.text, headers={"accept": "text/plain"}, retriable=True)


def agents() -> Call[models.AgentList]:
    return Call("GET", "/agents", _parser(models.AgentList), retriable=True)


def users() -> Call[models.UserList]:
    return Call("GET", "/users", _parser(models.UserList), retriable=True)


def delete_user(user_id: str) -> Call[models.UserDeleteResult]:
    path = "/users/" + quote(user_id, safe="")
    return Call("DELETE", path, _parser(models.UserDeleteResult), retriable=True)


# --- streams -----------------------------------------------------------------------------


def events(last_event_id: Optional[str]) -> Call[None]:
    headers = {"accept": "text/event-stream"}
    if last_event_id is not None:
        headers["last-event-id"] = last_event_id
    return Call("GET", "/events", lambda r: None, headers=headers, retriable=True)


def export() -> Call[None]:
    return Call("GET", "/export", lambda r: None, headers={"accept": "application/x-tar"}, retriable=True)


def import_archive(archive: ArchiveSource, existing: Optional[str]) -> Call[models.ImportResult]:
    """The archive is read whole before sending: mnemo reads and checks the whole archive
    before writing anything anyway (and caps it at half its in-flight body budget, 32 MiB by
    default), and a body in memory has a Content-Length that any proxy accepts."""
    if isinstance(archive, (bytes, bytearray, memoryview)):
        data = bytes(archive)
    elif isinstance(archive, (str, os.PathLike)):
        with open(archive, "rb") as f:
            data = f.read()
    elif hasattr(archive, "read"):
        data = archive.read()
        if isinstance(data, str):
            raise TypeError("import_archive() needs a file opened in binary mode ('rb')")
    else:
        raise TypeError(f"import_archive() takes bytes, a binary file or a path, not {type(archive).__name__}")
    params = {"existing": existing} if existing is not None else None
    return Call(
        "POST",
        "/import",
        _parser(models.ImportResult),
        params=params,
        content=data,
        headers={"content-type": "application/x-tar"},
    )
