"""Retries and error mapping against a tiny local HTTP server that answers from a script,
so the 429/503 paths can be tested without making a real mnemo busy."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator, List, Optional, Tuple

import pytest

from mnemo_client import AsyncMnemo, Mnemo, MnemoError

Answer = Tuple[int, dict, Optional[dict]]  # status, headers, JSON body


class Scripted:
    """A server answering each request with the next scripted answer (the last one repeats)."""

    def __init__(self, answers: List[Answer]) -> None:
        self.answers = list(answers)
        self.requests: List[Tuple[str, str, dict, bytes]] = []
        self.times: List[float] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                scripted.requests.append((self.command, self.path, dict(self.headers), body))
                scripted.times.append(time.monotonic())
                status, headers, payload = (
                    scripted.answers.pop(0) if len(scripted.answers) > 1 else scripted.answers[0]
                )
                data = json.dumps(payload).encode() if payload is not None else b"<html>busy</html>"
                self.send_response(status)
                self.send_header("content-type", "application/json" if payload is not None else "text/html")
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that timed out and hung up is what some tests do on purpose

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def busy(code: str = "OVERLOADED", status: int = 503, retry_after: Optional[str] = "1") -> Answer:
    body = {"statusCode": status, "code": code, "error": "Busy", "message": "try later", "requestId": "r-1"}
    return status, ({"retry-after": retry_after} if retry_after is not None else {}), body


HEALTHY: Answer = (200, {}, {"status": "ok", "uptimeMs": 5})


@pytest.fixture
def scripted() -> Iterator[callable]:
    servers: List[Scripted] = []

    def make(*answers: Answer) -> Scripted:
        servers.append(Scripted(list(answers)))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def test_503_with_retry_after_is_retried_after_the_wait(scripted) -> None:
    srv = scripted(busy(), HEALTHY)
    with Mnemo(srv.url) as m:
        assert m.health().status == "ok"
    assert len(srv.requests) == 2
    assert srv.times[1] - srv.times[0] >= 0.9


def test_429_is_retried_for_a_search(scripted) -> None:
    results = {"results": [], "mode": "keyword", "usage": {}, "timingsMs": {}}
    srv = scripted(busy("AGENT_BUSY", 429, "0"), (200, {}, results))
    with Mnemo(srv.url) as m:
        assert m.search("x").results == []
    assert [r[0] for r in srv.requests] == ["POST", "POST"]


def test_retries_stop_after_the_limit_with_the_last_error(scripted) -> None:
    srv = scripted(busy(retry_after="0"))
    with Mnemo(srv.url, retries=2) as m:
        with pytest.raises(MnemoError) as caught:
            m.status()
    assert len(srv.requests) == 3
    err = caught.value
    assert (err.code, err.status, err.retry_after, err.request_id) == ("OVERLOADED", 503, 0.0, "r-1")


def test_the_wait_is_capped(scripted, monkeypatch) -> None:
    import mnemo_client._http as http

    monkeypatch.setattr(http, "MAX_RETRY_WAIT", 0.2)
    srv = scripted(busy(retry_after="3600"), HEALTHY)
    started = time.monotonic()
    with Mnemo(srv.url) as m:
        m.health()
    assert time.monotonic() - started < 2


def test_503_without_retry_after_is_not_retried(scripted) -> None:
    srv = scripted(busy("EMBEDDING_UNAVAILABLE", retry_after=None), HEALTHY)
    with Mnemo(srv.url) as m:
        with pytest.raises(MnemoError) as caught:
            m.search("x", mode="vector")
    assert caught.value.code == "EMBEDDING_UNAVAILABLE" and len(srv.requests) == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.append("memory/a.md", "- a\n"),
        lambda m: m.flush(entries=["- a"]),  # no flush_id: a retry could append twice
        lambda m: m.supersede("- a", key="k"),
        lambda m: m.forget("s"),
        lambda m: m.import_archive(b"tar"),
    ],
)
def test_non_idempotent_posts_are_never_retried(scripted, call) -> None:
    srv = scripted(busy(retry_after="0"), HEALTHY)
    with Mnemo(srv.url) as m:
        with pytest.raises(MnemoError) as caught:
            call(m)
    assert caught.value.code == "OVERLOADED" and caught.value.retry_after == 0
    assert len(srv.requests) == 1


def test_a_flush_with_a_flush_id_is_retried(scripted) -> None:
    srv = scripted(busy(retry_after="0"), (200, {}, {"indexed": True, "replayed": True}))
    with Mnemo(srv.url) as m:
        assert m.flush(entries=["- a"], flush_id="s:1").replayed
    assert len(srv.requests) == 2
    assert json.loads(srv.requests[1][3]) == {"entries": ["- a"], "flushId": "s:1"}


def test_an_error_body_that_is_not_mnemos_is_http_error(scripted) -> None:
    srv = scripted((502, {}, None))
    with Mnemo(srv.url) as m:
        with pytest.raises(MnemoError) as caught:
            m.status()
    assert (caught.value.code, caught.value.status) == ("HTTP_ERROR", 502)
    assert "busy" in caught.value.message


def test_ready_not_ready_is_an_answer(scripted) -> None:
    srv = scripted((503, {"retry-after": "0"}, {"ready": False, "checks": {"initialSync": "pending"}}))
    with Mnemo(srv.url) as m:
        ready = m.ready()
    assert ready.ready is False and ready.checks == {"initialSync": "pending"}
    assert len(srv.requests) == 1


def test_a_slow_server_is_a_timeout(scripted) -> None:
    gate = threading.Event()
    srv = scripted(HEALTHY)
    original = srv.httpd.RequestHandlerClass._answer

    def slow(self) -> None:
        gate.wait(3)
        original(self)

    srv.httpd.RequestHandlerClass.do_GET = slow
    try:
        with Mnemo(srv.url, timeout=0.3) as m:
            started = time.monotonic()
            with pytest.raises(MnemoError) as caught:
                m.health()
            assert time.monotonic() - started < 2
    finally:
        gate.set()
    assert caught.value.code == "TIMEOUT" and caught.value.status is None


def test_async_client_retries_too(scripted) -> None:
    srv = scripted(busy(retry_after="0"), HEALTHY)

    async def scenario() -> str:
        async with AsyncMnemo(srv.url) as m:
            return (await m.health()).status

    assert asyncio.run(scenario()) == "ok"
    assert len(srv.requests) == 2


def test_async_client_unreachable() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def scenario() -> None:
        async with AsyncMnemo(f"http://127.0.0.1:{port}") as m:
            await m.status()

    started = time.monotonic()
    with pytest.raises(MnemoError) as caught:
        asyncio.run(scenario())
    assert caught.value.code == "UNREACHABLE" and time.monotonic() - started < 5
