"""The client against a real mnemo (see conftest.py): every call goes over HTTP to the
service, so these tests check the client and the API contract together."""

from __future__ import annotations

import asyncio
import io
import socket
import tarfile
import time

import pytest

from mnemo_client import (
    AsyncMnemo,
    FileWindow,
    IndexStatus,
    Mnemo,
    MnemoError,
    SearchHit,
    SearchResult,
    WriteResult,
)


def note_path(word: str) -> str:
    return f"memory/py-client/{word}.md"


# --- search ------------------------------------------------------------------------------


def test_search_finds_a_written_note_with_typed_fields(m: Mnemo, word: str) -> None:
    path = note_path(word)
    written = m.write(path, f"# Deploys\n- The {word} deploy window is Friday evening.\n")
    assert isinstance(written, WriteResult) and written.created and written.indexed

    found = m.search(f"{word} deploy window", max_results=3, min_score=0.1, mode="keyword", path_prefix="memory/")

    assert isinstance(found, SearchResult)
    assert found.mode == "keyword"
    assert found.degraded is None and found.abstained is None
    assert isinstance(found.request_id, str) and found.request_id
    assert found.usage is not None and found.usage.result_tokens > 0
    hit = found.results[0]
    assert isinstance(hit, SearchHit)
    assert hit.path == path
    assert 1 <= hit.start_line <= hit.end_line
    assert word in hit.snippet
    assert 0 < hit.score <= 1 and 0 < hit.text_score <= 1 and hit.vector_score == 0
    assert hit.rerank_score is None
    assert (hit.source, hit.space, hit.status) == ("memory", "agent", "active")
    assert (hit.observed, hit.key, hit.origin) == (None, None, None)

    # The search is in the log, and takes feedback by its request id.
    feedback = m.feedback(found.request_id, useful=True, note="found it")
    assert feedback.request_id == found.request_id and feedback.useful is True
    logged = [s for s in m.searches(limit=20) if s.request_id == found.request_id]
    assert logged and logged[0].results >= 1 and logged[0].feedback is not None


def test_search_options_reach_the_service(m: Mnemo, word: str) -> None:
    m.write(note_path(word), f"- {word} alpha\n")
    assert m.search(word, path_prefix="memory/elsewhere/").results == []
    assert m.search(word, sources=["memory"], spaces="agent", max_tokens=200).results
    with pytest.raises(MnemoError) as caught:
        m.search(word, mode="no-such-mode")
    assert caught.value.code == "VALIDATION_FAILED" and caught.value.status == 400
    with pytest.raises(TypeError):
        m.search(word, maxResults=3)  # camelCase is the API's spelling, not the client's


# --- files -------------------------------------------------------------------------------


def test_read_write_append_delete_with_if_match(m: Mnemo, word: str) -> None:
    path = note_path(word)
    first = m.write(path, "- line one\n- line two\n", if_none_match="*")
    assert first.created and first.total_lines == 2

    window = m.read(path)
    assert isinstance(window, FileWindow)
    assert window.text == "- line one\n- line two"
    assert window.sha256 == first.sha256 and (window.from_line, window.to_line, window.total_lines) == (1, 2, 2)
    assert m.read(path, from_line=2, lines=1).text == "- line two"

    replaced = m.write(path, "- line one\n- line 2\n", if_match=window.sha256)
    assert not replaced.created and replaced.sha256 != first.sha256

    # The hash read before the replace is stale now: nothing is overwritten.
    with pytest.raises(MnemoError) as caught:
        m.write(path, "- lost update\n", if_match=first.sha256)
    err = caught.value
    assert (err.code, err.status) == ("PRECONDITION_FAILED", 412)
    assert err.request_id and err.details == {"currentSha256": replaced.sha256}
    assert m.read(path).sha256 == replaced.sha256

    appended = m.append(path, f"- {word} appended\n")
    assert (appended.start_line, appended.end_line, appended.total_lines) == (3, 3, 3)
    assert path in [f.path for f in m.list_files()]

    with pytest.raises(MnemoError) as caught:
        m.delete(path, if_match=replaced.sha256)
    assert caught.value.code == "PRECONDITION_FAILED"
    deleted = m.delete(path, if_match=appended.sha256)
    assert deleted.deleted and deleted.path == path

    with pytest.raises(MnemoError) as caught:
        m.read(path)
    assert (caught.value.code, caught.value.status) == ("FILE_NOT_FOUND", 404)


def test_path_traversal_is_refused_by_the_service(m: Mnemo) -> None:
    for call in (lambda: m.read("../x.md"), lambda: m.write("../x.md", "x\n"), lambda: m.read("..")):
        with pytest.raises(MnemoError) as caught:
            call()
        assert caught.value.code == "PATH_INVALID"
        assert 400 <= caught.value.status < 500


# --- entries -----------------------------------------------------------------------------


def test_flush_is_idempotent_by_flush_id(m: Mnemo, word: str) -> None:
    session = f"py-{word}"
    notes = [f"- The {word} cache TTL is 300 seconds."]
    first = m.flush(entries=notes, flush_id=f"{session}:1", session_id=session)
    assert first.indexed and not first.replayed and first.path and first.path.startswith("memory/")
    again = m.flush(entries=notes, flush_id=f"{session}:1", session_id=session)
    assert again.replayed and (again.path, again.start_line, again.end_line) == (
        first.path,
        first.start_line,
        first.end_line,
    )
    assert len(m.search(word).results) == 1

    with pytest.raises(MnemoError) as caught:
        m.flush(entries=["- other notes"], flush_id=f"{session}:1", session_id=session)
    assert (caught.value.code, caught.value.status) == ("FLUSH_ID_CONFLICT", 409)

    assert m.flush().drained  # no notes: waits for the index, appends nothing

    forgotten = m.forget(session, every_agent=False)
    assert forgotten.session_id == session and len(forgotten.removed) == 1
    assert forgotten.removed[0].flush_id == f"{session}:1"
    assert m.search(word).results == []


def test_supersede_by_key(m: Mnemo, word: str) -> None:
    key = f"deploy-day-{word}"
    m.flush(content=f"- {word} deploys happen on Fridays.", key=key, session_id=f"s-{word}")
    done = m.supersede(f"- {word} deploys happen on Mondays.", key=key)
    assert len(done.superseded) == 1 and done.indexed
    assert done.entry.start_line > done.superseded[0].end_line - 1

    current = m.search(word).results
    assert [h.snippet.strip() for h in current] == [f"- {word} deploys happen on Mondays."]
    assert current[0].key == key and current[0].status == "active" and current[0].observed

    everything = m.search(word, include_superseded=True).results
    assert sorted(h.status for h in everything) == ["active", "superseded"]

    with pytest.raises(MnemoError) as caught:
        m.supersede("- nothing", key=f"no-such-key-{word}")
    assert caught.value.code == "ENTRY_NOT_FOUND"


# --- service -----------------------------------------------------------------------------


def test_status_ready_index_health(m: Mnemo, server) -> None:
    ready = m.ready()
    assert ready.ready is True
    status = m.status()
    assert isinstance(status, IndexStatus) and status.files >= 0 and status.embedding.provider
    synced = m.index(wait=True)
    assert isinstance(synced, IndexStatus) and synced.last_sync is not None and synced.last_sync.ok
    assert isinstance(m.index(), IndexStatus)  # 202: started
    assert m.health().status == "ok"
    if server.started:  # admin-only routes
        assert m.users().agent == "main"
        assert "main" in [a.id for a in m.agents().agents]
        assert "mnemo" in m.metrics()


def test_wrong_token_is_unauthorized(server) -> None:
    if not server.token:
        pytest.skip("the mnemo under test has no token")
    with Mnemo(server.url, token="wrong-token-0123456789abcdef") as bad:
        with pytest.raises(MnemoError) as caught:
            bad.search("anything")
    err = caught.value
    assert (err.code, err.status) == ("UNAUTHORIZED", 401)
    assert err.request_id and "token" in err.message.lower()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_stopped_server_is_unreachable_quickly() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with Mnemo(url, retries=3) as down:
        started = time.monotonic()
        with pytest.raises(MnemoError) as caught:
            down.status()  # a GET: retried 3 times with backoff first
        assert time.monotonic() - started < 5
        assert caught.value.code == "UNREACHABLE" and caught.value.status is None
        assert url in caught.value.message

        started = time.monotonic()
        with pytest.raises(MnemoError) as caught:
            down.append("memory/x.md", "- x\n")  # not retried at all
        assert time.monotonic() - started < 1
        assert caught.value.code == "UNREACHABLE"


# --- streams -----------------------------------------------------------------------------


def test_events_announce_a_write(m: Mnemo, word: str) -> None:
    path = note_path(word)
    with m.events() as stream:
        first = next(stream)
        assert first["event"] == "ready" and first["id"]
        m.write(path, f"- {word}\n")
        deadline = time.monotonic() + 20
        seen = []
        for event in stream:
            seen.append(event)
            if event["event"] == "file.written" and event["data"].get("path") == path:
                break
            assert time.monotonic() < deadline, f"no file.written for {path}: {seen}"
        assert event["data"]["type"] == "file.written" and event["id"] == event["data"]["id"]
        assert stream.last_event_id == event["id"]
        last_id = stream.last_event_id

    # Reconnecting with the last id replays what came after it, then says ready.
    m.delete(path)
    with m.events(last_event_id=last_id) as stream:
        replayed = []
        for event in stream:
            replayed.append(event)
            if event["event"] == "ready":
                break
    assert any(e["event"] == "file.deleted" and e["data"]["path"] == path for e in replayed), replayed


def test_export_is_a_tar_and_imports_back(m: Mnemo, word: str) -> None:
    path = note_path(word)
    m.write(path, f"- {word} exported\n")

    archive = b"".join(m.export())
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        names = tar.getnames()
    member = next(n for n in names if n.endswith(path))  # main/<path> for the admin token

    sink = io.BytesIO()
    assert m.export(sink) == len(sink.getvalue()) > 0

    m.delete(path)
    imported = m.import_archive(io.BytesIO(archive))
    outcomes = {f.path: f.outcome for f in imported.files}
    assert outcomes[member] == "created" and imported.written >= 1 and imported.indexed
    assert m.read(path).text == f"- {word} exported"

    again = m.import_archive(archive, existing="keep")
    assert again.written == 0

    with pytest.raises(MnemoError) as caught:
        m.import_archive(b"this is not a tar archive")
    assert caught.value.code == "ARCHIVE_INVALID"


# --- asyncio -----------------------------------------------------------------------------


def test_async_client_searches(server, word: str) -> None:
    async def scenario() -> None:
        async with AsyncMnemo(server.url, token=server.token) as am:
            written = await am.write(note_path(word), f"- The {word} async note.\n")
            found = await am.search(f"{word} async note", max_results=2)
            assert isinstance(found, SearchResult)
            assert [h.path for h in found.results] == [written.path]
            assert isinstance(found.results[0], SearchHit)

            with pytest.raises(MnemoError) as caught:
                await am.read("memory/py-client/no-such-file.md")
            assert caught.value.code == "FILE_NOT_FOUND"

            stream = am.events()
            async with stream:
                first = await stream.__anext__()
                assert first["event"] == "ready"
                await am.delete(written.path)
                async for event in stream:
                    if event["event"] == "file.deleted":
                        assert event["data"]["path"] == written.path
                        break

            chunks = [c async for c in await am.export()]
            assert tarfile.open(fileobj=io.BytesIO(b"".join(chunks))).getnames()

    asyncio.run(asyncio.wait_for(scenario(), timeout=60))
