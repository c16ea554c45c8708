"""The asyncio client, :class:`AsyncMnemo`: the same methods as :class:`~mnemo_client.Mnemo`,
awaited. Requests, retries and answers are built by the same code (``_api``, ``_http``);
only the waiting differs."""

from __future__ import annotations

import asyncio
import datetime as _dt
import inspect
import os
from collections import deque
from types import TracebackType
from typing import IO, Any, AsyncIterator, Deque, Dict, Iterable, List, Optional, Type, TypeVar, Union

import httpx

from . import _api, models
from ._http import (
    Call,
    check,
    default_headers,
    events_timeout,
    make_timeout,
    retry_wait,
    settings_from_env,
    transport_error,
)
from .sse import SSEDecoder

T = TypeVar("T")


class AsyncMnemo:
    """An asyncio client of one mnemo service; see :class:`~mnemo_client.Mnemo` for the
    arguments. Use ``async with AsyncMnemo(...) as m`` or ``await m.close()``."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8787",
        token: Optional[str] = None,
        agent: Optional[str] = None,
        user: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        retries: int = 3,
        *,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retries = retries
        self.timeout = timeout
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=default_headers(token, agent, user),
            timeout=make_timeout(timeout),
            transport=transport,
        )

    @classmethod
    def from_env(cls, environ: Optional[Dict[str, str]] = None, **overrides: Any) -> "AsyncMnemo":
        """A client configured as the ``mnemo`` CLI is (see :meth:`Mnemo.from_env`)."""
        settings = settings_from_env(dict(os.environ if environ is None else environ))
        settings.update(overrides)
        return cls(**settings)

    # --- lifecycle ------------------------------------------------------------------------

    async def close(self) -> None:
        """Closes the connections. The client cannot be used afterwards."""
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncMnemo":
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncMnemo({self.base_url!r})"

    # --- transport ------------------------------------------------------------------------

    async def _send(
        self, call: Call[Any], *, stream: bool = False, timeout: Optional[httpx.Timeout] = None
    ) -> httpx.Response:
        """As :meth:`Mnemo._send`, awaiting instead of blocking."""
        extra: Dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        attempt = 0
        while True:
            request = self._http.build_request(
                call.method,
                call.path,
                params=call.params,
                json=call.json,
                content=call.content,
                headers=call.headers,
                **extra,
            )
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TimeoutException as exc:
                raise transport_error(exc, self.base_url) from exc
            except httpx.TransportError as exc:
                wait = retry_wait(call, attempt, self.retries, error=exc)
                if wait is None:
                    raise transport_error(exc, self.base_url) from exc
            else:
                wait = retry_wait(call, attempt, self.retries, response=response)
                if wait is None:
                    if stream and response.status_code >= 400:
                        await self._read_error_body(response)
                    check(call, response)
                    return response
                await response.aclose()
            attempt += 1
            await asyncio.sleep(wait)

    async def _read_error_body(self, response: httpx.Response) -> None:
        try:
            await response.aread()
        except httpx.HTTPError:
            pass  # the status alone makes the error
        finally:
            await response.aclose()

    async def _call(self, call: Call[T], timeout: Optional[httpx.Timeout] = None) -> T:
        return call.parse(await self._send(call, timeout=timeout))

    async def _chunks(self, response: httpx.Response) -> AsyncIterator[bytes]:
        """The body of a streamed response, its connection released at the end (or on error)."""
        try:
            async for chunk in response.aiter_bytes():
                yield chunk
        except httpx.TransportError as exc:
            raise transport_error(exc, self.base_url) from exc
        finally:
            await response.aclose()

    # --- search ---------------------------------------------------------------------------

    async def search(self, query: str, **options: Any) -> models.SearchResult:
        """Searches memory (``POST /search``); options as :meth:`Mnemo.search`."""
        return await self._call(_api.search(query, options))

    async def feedback(self, request_id: str, useful: bool, note: Optional[str] = None) -> models.FeedbackResult:
        """Says whether a search's results helped (``POST /feedback``)."""
        return await self._call(_api.feedback(request_id, useful, note))

    async def searches(self, **filters: Any) -> List[models.LoggedSearch]:
        """The search log, newest first (``GET /searches``); filters as :meth:`Mnemo.searches`."""
        return await self._call(_api.searches(filters))

    # --- files ----------------------------------------------------------------------------

    async def list_files(self) -> List[models.FileInfo]:
        """The indexed files (``GET /files``)."""
        return await self._call(_api.list_files())

    async def read(self, path: str, from_line: Optional[int] = None, lines: Optional[int] = None) -> models.FileWindow:
        """A memory file or a window of its lines (``GET /files/{path}``)."""
        return await self._call(_api.read(path, from_line, lines))

    async def write(
        self,
        path: str,
        content: Union[str, bytes],
        if_match: Optional[str] = None,
        *,
        if_none_match: Optional[str] = None,
    ) -> models.WriteResult:
        """Creates or replaces a memory file (``PUT /files/{path}``); see :meth:`Mnemo.write`."""
        return await self._call(_api.write(path, content, if_match, if_none_match))

    async def append(
        self,
        path: str,
        content: Union[str, bytes],
        key: Optional[str] = None,
        origin: Optional[str] = None,
        *,
        if_match: Optional[str] = None,
        if_none_match: Optional[str] = None,
    ) -> models.WriteResult:
        """Appends lines to a memory file (``POST /files/{path}``); never retried."""
        return await self._call(_api.append(path, content, key, origin, if_match, if_none_match))

    async def delete(
        self, path: str, if_match: Optional[str] = None, *, if_none_match: Optional[str] = None
    ) -> models.DeleteResult:
        """Deletes a memory file (``DELETE /files/{path}``)."""
        return await self._call(_api.delete(path, if_match, if_none_match))

    # --- entries --------------------------------------------------------------------------

    async def flush(
        self,
        content: Optional[str] = None,
        entries: Optional[Iterable[str]] = None,
        flush_id: Optional[str] = None,
        session_id: Optional[str] = None,
        date: Union[str, _dt.date, None] = None,
        key: Optional[str] = None,
        origin: Optional[str] = None,
        *,
        agent_id: Optional[str] = None,
    ) -> models.FlushResult:
        """Appends notes to today's day file (``POST /flush``); see :meth:`Mnemo.flush`."""
        return await self._call(_api.flush(content, entries, flush_id, session_id, date, key, origin, agent_id))

    async def supersede(
        self,
        content: str,
        path: Optional[str] = None,
        start_line: Optional[int] = None,
        end_line: Optional[int] = None,
        key: Optional[str] = None,
        origin: Optional[str] = None,
        *,
        if_match: Optional[str] = None,
    ) -> models.SupersedeResult:
        """Replaces a fact (``POST /supersede``); see :meth:`Mnemo.supersede`."""
        return await self._call(_api.supersede(content, path, start_line, end_line, key, origin, if_match))

    async def forget(self, session_id: str, every_agent: Optional[bool] = None) -> models.ForgetResult:
        """Removes every flush entry of a session (``POST /forget``)."""
        return await self._call(_api.forget(session_id, every_agent))

    # --- index and service ----------------------------------------------------------------

    async def status(self) -> models.IndexStatus:
        """The acting agent's index (``GET /index``)."""
        return await self._call(_api.status())

    async def index(
        self, full: bool = False, wait: bool = False, *, timeout: Optional[float] = None
    ) -> models.IndexStatus:
        """Syncs the index now (``POST /index``); see :meth:`Mnemo.index`."""
        return await self._call(_api.index(full, wait), None if timeout is None else make_timeout(timeout))

    async def ready(self) -> models.Ready:
        """Whether mnemo is ready (``GET /ready``); not ready is ``ready=False``, not an error."""
        return await self._call(_api.ready())

    async def health(self) -> models.Health:
        """Liveness (``GET /health``)."""
        return await self._call(_api.health())

    async def metrics(self) -> str:
        """Prometheus metrics as text (``GET /metrics``; admin token)."""
        return await self._call(_api.metrics())

    async def agents(self) -> models.AgentList:
        """Every agent (``GET /agents``; admin token)."""
        return await self._call(_api.agents())

    async def users(self) -> models.UserList:
        """The users of the acting agent with memory (``GET /users``; admin token)."""
        return await self._call(_api.users())

    async def delete_user(self, user_id: str) -> models.UserDeleteResult:
        """Deletes all of one user's memory (``DELETE /users/{id}``)."""
        return await self._call(_api.delete_user(user_id))

    # --- streams --------------------------------------------------------------------------

    def events(self, last_event_id: Optional[str] = None) -> "AsyncEventStream":
        """The change events (``GET /events``) as an async iterator of ``{"event", "id",
        "data"}`` dicts: ``async for event in m.events(): …``; see :meth:`Mnemo.events`."""
        return AsyncEventStream(self, last_event_id)

    async def export(self, dest: Union[None, str, "os.PathLike[str]", IO[bytes]] = None) -> Any:
        """The memory files as a tar archive (``GET /export``), streamed.

        With ``dest`` (a binary file, or a file name; a ``write`` that returns an awaitable is
        awaited) it is written there and the byte count returned; without, an async iterator
        of chunks: ``async for chunk in await m.export(): …``. Errors are raised by the await.
        """
        response = await self._send(_api.export(), stream=True)
        chunks = self._chunks(response)
        if dest is None:
            return chunks
        if isinstance(dest, (str, os.PathLike)):
            with open(dest, "wb") as f:
                return await _copy(chunks, f)
        return await _copy(chunks, dest)

    async def import_archive(self, archive: _api.ArchiveSource, existing: Optional[str] = None) -> models.ImportResult:
        """Writes the files of a tar archive (``POST /import``); see :meth:`Mnemo.import_archive`.
        A file is read before sending, blocking briefly; archives are at most tens of MiB."""
        return await self._call(_api.import_archive(archive, existing))


async def _copy(chunks: AsyncIterator[bytes], dest: Any) -> int:
    size = 0
    async for chunk in chunks:
        written = dest.write(chunk)
        if inspect.isawaitable(written):
            await written
        size += len(chunk)
    return size


class AsyncEventStream:
    """An open ``GET /events`` stream for asyncio: ``async for`` it; ``await close()`` hangs up.
    Connects on first use; ``last_event_id`` is for reconnecting."""

    def __init__(self, client: AsyncMnemo, last_event_id: Optional[str] = None) -> None:
        self._client = client
        self._decoder = SSEDecoder()
        self._decoder.last_event_id = last_event_id
        self._response: Optional[httpx.Response] = None
        self._chunks: Optional[AsyncIterator[bytes]] = None
        self._pending: Deque[Dict[str, Any]] = deque()
        self._closed = False

    @property
    def last_event_id(self) -> Optional[str]:
        return self._decoder.last_event_id

    async def open(self) -> "AsyncEventStream":
        """Connects, if not yet connected."""
        if self._response is None and not self._closed:
            call = _api.events(self._decoder.last_event_id)
            self._response = await self._client._send(
                call, stream=True, timeout=events_timeout(self._client.timeout)
            )
            self._chunks = self._client._chunks(self._response)
        return self

    async def close(self) -> None:
        self._closed = True
        if self._response is not None:
            await self._response.aclose()

    def __aiter__(self) -> "AsyncEventStream":
        return self

    async def __anext__(self) -> Dict[str, Any]:
        await self.open()
        if self._closed:
            raise StopAsyncIteration
        while not self._pending:
            if self._closed or self._chunks is None:
                raise StopAsyncIteration
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                await self.close()
                raise
            self._pending.extend(self._decoder.feed(chunk))
        return self._pending.popleft()

    async def __aenter__(self) -> "AsyncEventStream":
        return await self.open()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
