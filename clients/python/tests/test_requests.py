"""What the client puts on the wire, checked with httpx's MockTransport (no server):
headers, path encoding, the snake_case → camelCase mapping, and how answers are read."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Callable, Dict, List

import httpx
import pytest

from mnemo_client import FileWindow, Mnemo, SearchResult
from mnemo_client.models import from_json
from mnemo_client.sse import SSEDecoder

HIT = {
    "path": "MEMORY.md",
    "startLine": 10,
    "endLine": 12,
    "snippet": "## Setup",
    "score": 0.9,
    "textScore": 0.9,
    "vectorScore": 0,
    "rerankScore": 0.8,
    "source": "memory",
    "space": "agent",
    "status": "active",
    "observed": None,
    "key": None,
    "origin": "owner",
    "someFutureField": 1,
}


def client(handler: Callable[[httpx.Request], httpx.Response], **kwargs: Any) -> Mnemo:
    return Mnemo("http://mnemo.test/prefix", transport=httpx.MockTransport(handler), **kwargs)


def recorder(answer: Any, status: int = 200) -> "tuple[List[httpx.Request], Callable]":
    seen: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json=answer)

    return seen, handler


def test_identity_headers() -> None:
    seen, handler = recorder({"status": "ok", "uptimeMs": 1})
    with client(handler, token="t0ken", agent="ops", user="alice") as m:
        m.health()
    headers = seen[0].headers
    assert headers["authorization"] == "Bearer t0ken"
    assert headers["x-mnemo-agent"] == "ops" and headers["x-mnemo-user"] == "alice"
    assert headers["user-agent"].startswith("mnemo-client-python/")
    assert seen[0].url.raw_path == b"/prefix/health"  # a base path (behind a proxy) is kept


def test_no_identity_headers_when_not_set() -> None:
    seen, handler = recorder({"status": "ok", "uptimeMs": 1})
    with client(handler) as m:
        m.health()
    assert not {"authorization", "x-mnemo-agent", "x-mnemo-user"} & set(seen[0].headers.keys())


def test_search_maps_options_to_camel_case() -> None:
    seen, handler = recorder({"results": [HIT], "mode": "keyword", "requestId": "r1", "usage": {"resultTokens": 3}})
    with client(handler) as m:
        found = m.search(
            "q",
            max_results=3,
            min_score=0.2,
            path_prefix="memory/",
            sources="memory",
            spaces=("agent",),
            after=dt.date(2026, 2, 16),
            dated_only=True,
            include_superseded=True,
            half_life_days=30,
            mmr_lambda=0.5,
            mode=None,  # None: the server's default, not sent
        )
    assert json.loads(seen[0].content) == {
        "query": "q",
        "maxResults": 3,
        "minScore": 0.2,
        "pathPrefix": "memory/",
        "sources": ["memory"],
        "spaces": ["agent"],
        "after": "2026-02-16",
        "datedOnly": True,
        "includeSuperseded": True,
        "halfLifeDays": 30,
        "mmrLambda": 0.5,
    }
    assert isinstance(found, SearchResult) and found.request_id == "r1"
    hit = found.results[0]
    assert (hit.start_line, hit.end_line, hit.text_score, hit.rerank_score, hit.origin) == (10, 12, 0.9, 0.8, "owner")
    assert found.usage.result_tokens == 3 and found.usage.embedding_tokens == 0
    assert found.raw["results"][0]["someFutureField"] == 1


def test_file_paths_are_one_encoded_segment() -> None:
    window = {"path": "memory/a b.md", "from": 2, "to": 3, "totalLines": 9, "text": "x", "sha256": "h"}
    seen, handler = recorder(window)
    with client(handler) as m:
        got = m.read("memory/a b.md", from_line=2, lines=2)
        m.read("..")
    assert seen[0].url.raw_path == b"/prefix/files/memory%2Fa%20b.md?from=2&lines=2"
    assert seen[1].url.raw_path == b"/prefix/files/%2E%2E"  # not normalised away by anything
    assert isinstance(got, FileWindow) and (got.from_line, got.to_line, got.total_lines) == (2, 3, 9)


def test_write_and_append_bodies() -> None:
    result = {"path": "p", "sha256": "h", "sizeBytes": 1, "totalLines": 1, "startLine": 1, "endLine": 1,
              "created": True, "indexed": True}
    seen, handler = recorder(result)
    with client(handler) as m:
        m.write("memory/a.md", "- é\n", if_match="abc")
        m.append("memory/a.md", "- x\n", key="k", origin="agent", if_none_match="*")
        m.append("memory/a.md", b"- raw\n")
    put, keyed, plain = seen
    assert put.method == "PUT" and put.headers["if-match"] == "abc"
    assert put.headers["content-type"].startswith("text/markdown") and put.content == "- é\n".encode()
    assert keyed.method == "POST" and keyed.headers["if-none-match"] == "*"
    assert json.loads(keyed.content) == {"content": "- x\n", "key": "k", "origin": "agent"}
    assert plain.content == b"- raw\n"


def test_flush_supersede_forget_feedback_index_bodies() -> None:
    seen, handler = recorder({})
    with client(handler) as m:
        for call in (
            lambda: m.flush(entries=iter(["- a"]), flush_id="f:1", session_id="s", date=dt.date(2026, 3, 1), key="k"),
            lambda: m.supersede("- new", path="memory/a.md", start_line=3, end_line=4, if_match="h"),
            lambda: m.forget("s", every_agent=False),
            lambda: m.feedback("r1", False, note="missed"),
            lambda: m.index(full=True, wait=True),
        ):
            try:
                call()
            except TypeError:
                pass  # {} is no valid answer for some: only the requests matter here
    bodies = [json.loads(r.content) for r in seen]
    assert bodies == [
        {"entries": ["- a"], "flushId": "f:1", "sessionId": "s", "date": "2026-03-01", "key": "k"},
        {"content": "- new", "path": "memory/a.md", "startLine": 3, "endLine": 4},
        {"sessionId": "s", "everyAgent": False},
        {"requestId": "r1", "useful": False, "note": "missed"},
        {"full": True},
    ]
    assert seen[1].headers["if-match"] == "h"
    assert seen[4].url.params["wait"] == "true"


def test_searches_filters_are_query_parameters() -> None:
    seen, handler = recorder({"searches": []})
    with client(handler) as m:
        since = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
        assert m.searches(no_results=True, limit=5, since=since) == []
        with pytest.raises(TypeError):
            m.searches(noResults=True)
    assert dict(seen[0].url.params) == {"noResults": "true", "limit": "5", "since": "2026-01-02T03:04:05+00:00"}


def test_models_tolerate_missing_and_unknown_fields() -> None:
    hit = from_json(SearchResult, {"results": [{"path": "a", "startLine": 1, "endLine": 1, "snippet": "", "score": 1}],
                                   "mode": "keyword", "brandNew": True})
    assert hit.results[0].status == "active" and hit.results[0].key is None and hit.degraded is None


def test_sse_decoder_handles_split_chunks_comments_and_multiline_data() -> None:
    stream = (
        b"retry: 2000\n\n"
        b": keep-alive\n\n"
        b"id: p-main-1\r\nevent: file.written\r\ndata: {\"path\":\r\n"
        b"data: \"memory/a.md\"}\r\n\r\n"
        b"event: reset\ndata: plain text\n\n"
        b"data: no name\n\n"
    )
    decoder = SSEDecoder()
    events: List[Dict[str, Any]] = []
    for i in range(0, len(stream), 7):  # arbitrary chunk boundaries, mid-line and mid-CRLF
        events.extend(decoder.feed(stream[i : i + 7]))
    assert events == [
        {"event": "file.written", "id": "p-main-1", "data": {"path": "memory/a.md"}},
        {"event": "reset", "id": None, "data": "plain text"},
        {"event": "message", "id": None, "data": "no name"},
    ]
    assert decoder.last_event_id == "p-main-1" and decoder.retry_ms == 2000


def test_events_stream_over_a_mock_transport() -> None:
    body = (
        b"retry: 2000\n\n"
        b"id: a-1\nevent: ready\ndata: {\"type\":\"ready\"}\n\n"
        b"id: a-2\nevent: file.indexed\ndata: {\"path\":\"x\"}\n\n"
    )
    seen: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    with client(handler) as m:
        stream = m.events(last_event_id="a-0")
        events = list(stream)
    assert [e["event"] for e in events] == ["ready", "file.indexed"]
    assert stream.last_event_id == "a-2"
    assert seen[0].headers["last-event-id"] == "a-0" and seen[0].headers["accept"] == "text/event-stream"


def test_from_env_reads_the_cli_variables(tmp_path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-a-file\n")
    m = Mnemo.from_env({"MNEMO_URL": "http://h:1", "MNEMO_API_TOKEN_FILE": str(token_file), "MNEMO_AGENT": "ops",
                        "MNEMO_TIMEOUT_MS": "1500"})
    try:
        assert m.base_url == "http://h:1" and m.timeout == 1.5
        assert m._http.headers["authorization"] == "Bearer from-a-file"
        assert m._http.headers["x-mnemo-agent"] == "ops"
    finally:
        m.close()
