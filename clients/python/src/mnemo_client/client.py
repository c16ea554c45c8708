"""The synchronous client, :class:`Mnemo`."""

from __future__ import annotations

import datetime as _dt
import os
import time
from collections import deque
from types import TracebackType
from typing import IO, Any, Deque, Dict, Iterable, Iterator, List, Optional, Type, TypeVar, Union

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


class Mnemo:
    """A client of one mnemo service, acting as one agent (and user).

    Args:
        base_url: where mnemo listens, e.g. ``http://127.0.0.1:8787`` (a path prefix, for a
            mnemo behind a proxy, is kept).
        token: the admin or an agent token, sent as ``Authorization: Bearer``.
        agent: the agent to act for (``X-Mnemo-Agent``; with the admin token).
        user: the user inside the agent to act for (``X-Mnemo-User``).
        timeout: seconds to wait for an answer (connecting: at most 10 s); None waits forever.
        retries: how many times a request that is safe to repeat is sent again after a
            429/503 with ``Retry-After`` (each wait capped at 10 s) or a failed connection.
        transport: an ``httpx`` transport to use instead of the network (tests, proxies).

    Every method raises :class:`~mnemo_client.MnemoError` on failure. Use it as a context
    manager, or call :meth:`close`, to release its connections.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8787",
        token: Optional[str] = None,
        agent: Optional[str] = None,
        user: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        retries: int = 3,
        *,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retries = retries
        self.timeout = timeout
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=default_headers(token, agent, user),
            timeout=make_timeout(timeout),
            transport=transport,
        )

    @classmethod
    def from_env(cls, environ: Optional[Dict[str, str]] = None, **overrides: Any) -> "Mnemo":
        """A client configured as the ``mnemo`` CLI is: ``MNEMO_URL``, ``MNEMO_API_TOKEN`` (or
        ``MNEMO_API_TOKEN_FILE``), ``MNEMO_AGENT``, ``MNEMO_USER``, ``MNEMO_TIMEOUT_MS``."""
        settings = settings_from_env(dict(os.environ if environ is None else environ))
        settings.update(overrides)
        return cls(**settings)

    # --- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connections. The client cannot be used afterwards."""
        self._http.close()

    def __enter__(self) -> "Mnemo":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Mnemo({self.base_url!r})"

    # --- transport ------------------------------------------------------------------------

    def _send(
        self, call: Call[Any], *, stream: bool = False, timeout: Optional[httpx.Timeout] = None
    ) -> httpx.Response:
        """Sends ``call``, retrying as :func:`retry_wait` allows; returns a success (or an
        accepted status), raises MnemoError otherwise. With ``stream`` the body is left unread."""
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
                response = self._http.send(request, stream=stream)
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
                        self._read_error_body(response)
                    check(call, response)
                    return response
                response.close()
            attempt += 1
            time.sleep(wait)

    def _read_error_body(self, response: httpx.Response) -> None:
        try:
            response.read()
        except httpx.HTTPError:
            pass  # the status alone makes the error
        finally:
            response.close()

    def _call(self, call: Call[T], timeout: Optional[httpx.Timeout] = None) -> T:
        return call.parse(self._send(call, timeout=timeout))

    def _chunks(self, response: httpx.Response) -> Iterator[bytes]:
        """The body of a streamed response, its connection released at the end (or on error)."""
        try:
            for chunk in response.iter_bytes():
                yield chunk
        except httpx.TransportError as exc:
            raise transport_error(exc, self.base_url) from exc
        finally:
            response.close()

    # --- search ---------------------------------------------------------------------------

    def search(self, query: str, **options: Any) -> models.SearchResult:
        """Searches memory (``POST /search``).

        Options, all optional and left to the server's defaults when not given:
        ``max_results``, ``min_score``, ``mode`` (hybrid, keyword, vector), ``rerank``,
        ``sources``, ``path_prefix``, ``scope`` (private, shared), ``spaces``,
        ``max_tokens``, ``after``/``before`` (ISO strings, or ``date``/``datetime``),
        ``dated_only``, ``include_superseded``, ``origins``, ``half_life_days``, ``mmr``,
        ``mmr_lambda``, ``expand``. An unknown option is a TypeError before any request.
        Retried like a read: a search changes nothing.
        """
        return self._call(_api.search(query, options))

    def feedback(self, request_id: str, useful: bool, note: Optional[str] = None) -> models.FeedbackResult:
        """Says whether a search's results helped (``POST /feedback``), by its ``request_id``."""
        return self._call(_api.feedback(request_id, useful, note))

    def searches(self, **filters: Any) -> List[models.LoggedSearch]:
        """The search log, newest first (``GET /searches``). Filters: ``agent``, ``user``,
        ``since`` (ISO string or datetime), ``no_results`` (bool), ``limit``."""
        return self._call(_api.searches(filters))

    # --- files ----------------------------------------------------------------------------

    def list_files(self) -> List[models.FileInfo]:
        """The indexed files (``GET /files``)."""
        return self._call(_api.list_files())

    def read(self, path: str, from_line: Optional[int] = None, lines: Optional[int] = None) -> models.FileWindow:
        """A memory file, or ``lines`` lines of it from ``from_line`` (1-based) (``GET /files/{path}``).
        Its ``sha256`` is what :meth:`write` and :meth:`delete` take as ``if_match``."""
        return self._call(_api.read(path, from_line, lines))

    def write(
        self,
        path: str,
        content: Union[str, bytes],
        if_match: Optional[str] = None,
        *,
        if_none_match: Optional[str] = None,
    ) -> models.WriteResult:
        """Creates or replaces a memory file, atomically (``PUT /files/{path}``).

        ``if_match``: the sha256 the file must still have (or ``"*"``: it must exist), else
        ``PRECONDITION_FAILED`` and nothing is written — so an edit made meanwhile by someone
        else is not lost. ``if_none_match="*"``: only create. A replace takes no origin (mnemo
        takes origins on appends): write the metadata comment into ``content`` instead.
        """
        return self._call(_api.write(path, content, if_match, if_none_match))

    def append(
        self,
        path: str,
        content: Union[str, bytes],
        key: Optional[str] = None,
        origin: Optional[str] = None,
        *,
        if_match: Optional[str] = None,
        if_none_match: Optional[str] = None,
    ) -> models.WriteResult:
        """Appends lines to a memory file, creating it (``POST /files/{path}``). With a ``key`` or
        ``origin`` the text becomes an entry; a ``key`` supersedes the active entry with that key.
        Never retried: an append sent twice would be written twice."""
        return self._call(_api.append(path, content, key, origin, if_match, if_none_match))

    def delete(
        self, path: str, if_match: Optional[str] = None, *, if_none_match: Optional[str] = None
    ) -> models.DeleteResult:
        """Deletes a memory file and its chunks (``DELETE /files/{path}``), if it still has
        ``if_match`` as its sha256 when given."""
        return self._call(_api.delete(path, if_match, if_none_match))

    # --- entries --------------------------------------------------------------------------

    def flush(
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
        """Appends notes to the day file ``memory/<date>.md`` under a heading (``POST /flush``).

        Give a ``flush_id`` (unique per batch of notes, e.g. ``"<session>:<turn>"``): the same
        id sent again appends nothing and answers ``replayed=True``, which is also why only a
        flush with an id is retried. With no notes at all it waits until the index is current.
        """
        return self._call(_api.flush(content, entries, flush_id, session_id, date, key, origin, agent_id))

    def supersede(
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
        """Replaces a fact (``POST /supersede``): the old entry, named by ``path`` and
        ``start_line`` (``end_line``) or by ``key``, is marked superseded in place and
        ``content`` written after it, in one atomic write."""
        return self._call(_api.supersede(content, path, start_line, end_line, key, origin, if_match))

    def forget(self, session_id: str, every_agent: Optional[bool] = None) -> models.ForgetResult:
        """Removes every flush entry of a session from the day files (``POST /forget``)."""
        return self._call(_api.forget(session_id, every_agent))

    # --- index and service ----------------------------------------------------------------

    def status(self) -> models.IndexStatus:
        """The acting agent's index: files, chunks, embedding, sync state (``GET /index``)."""
        return self._call(_api.status())

    def index(self, full: bool = False, wait: bool = False, *, timeout: Optional[float] = None) -> models.IndexStatus:
        """Syncs the index now (``POST /index``); ``full`` rebuilds it, ``wait`` answers when done.
        ``timeout`` overrides the client's for this call: a full rebuild can take a while."""
        return self._call(_api.index(full, wait), None if timeout is None else make_timeout(timeout))

    def ready(self) -> models.Ready:
        """Whether mnemo is ready (``GET /ready``); not ready is ``ready=False``, not an error."""
        return self._call(_api.ready())

    def health(self) -> models.Health:
        """Liveness (``GET /health``)."""
        return self._call(_api.health())

    def metrics(self) -> str:
        """Prometheus metrics as text (``GET /metrics``; admin token)."""
        return self._call(_api.metrics())

    def agents(self) -> models.AgentList:
        """Every agent (``GET /agents``; admin token)."""
        return self._call(_api.agents())

    def users(self) -> models.UserList:
        """The users of the acting agent with memory (``GET /users``; admin token)."""
        return self._call(_api.users())

    def delete_user(self, user_id: str) -> models.UserDeleteResult:
        """Deletes all of one user's memory, files and index (``DELETE /users/{id}``)."""
        return self._call(_api.delete_user(user_id))

    # --- streams --------------------------------------------------------------------------

    def events(self, last_event_id: Optional[str] = None) -> "EventStream":
        """The change events of the acting agent's memory (``GET /events``), as an iterator of
        ``{"event", "id", "data"}`` dicts; ``data`` is the ChangeEvent. The stream opens with
        ``event: ready`` (``reset`` first when ``last_event_id`` is too old to replay) and
        ends when the server closes it; reconnect with ``stream.last_event_id``. Use it in a
        ``with`` block (or call ``close()``) to hang up early.
        """
        return EventStream(self, last_event_id)

    def export(self, dest: Union[None, str, "os.PathLike[str]", IO[bytes]] = None) -> Any:
        """The memory files as a tar archive (``GET /export``), streamed.

        With ``dest`` (a binary file or a file name) the archive is written there and the
        number of bytes returned; without, an iterator of the archive's chunks is returned.
        Errors (a wrong token…) are raised here, before any byte is handed out.
        """
        response = self._send(_api.export(), stream=True)
        chunks = self._chunks(response)
        if dest is None:
            return chunks
        if isinstance(dest, (str, os.PathLike)):
            with open(dest, "wb") as f:
                return _copy(chunks, f)
        return _copy(chunks, dest)

    def import_archive(self, archive: _api.ArchiveSource, existing: Optional[str] = None) -> models.ImportResult:
        """Writes the files of a tar archive, as :meth:`export` makes them (``POST /import``).
        ``archive``: a binary file, bytes or a file name. ``existing``: ``"replace"`` (the
        server's default) or ``"keep"``. All or nothing: one bad entry and nothing is written."""
        return self._call(_api.import_archive(archive, existing))


def _copy(chunks: Iterator[bytes], dest: IO[bytes]) -> int:
    size = 0
    for chunk in chunks:
        dest.write(chunk)
        size += len(chunk)
    return size


class EventStream:
    """An open ``GET /events`` stream: iterate it for events; ``close()`` hangs up.

    It connects on first use (iterating, or entering ``with``), so errors such as
    ``UNAUTHORIZED`` surface there. ``last_event_id`` is the id of the last event received,
    for reconnecting without missing any.
    """

    def __init__(self, client: Mnemo, last_event_id: Optional[str] = None) -> None:
        self._client = client
        self._decoder = SSEDecoder()
        self._decoder.last_event_id = last_event_id
        self._response: Optional[httpx.Response] = None
        self._chunks: Optional[Iterator[bytes]] = None
        self._pending: Deque[Dict[str, Any]] = deque()
        self._closed = False

    @property
    def last_event_id(self) -> Optional[str]:
        return self._decoder.last_event_id

    def open(self) -> "EventStream":
        """Connects, if not yet connected."""
        if self._response is None and not self._closed:
            call = _api.events(self._decoder.last_event_id)
            self._response = self._client._send(call, stream=True, timeout=events_timeout(self._client.timeout))
            self._chunks = self._client._chunks(self._response)
        return self

    def close(self) -> None:
        self._closed = True
        if self._response is not None:
            self._response.close()

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> Dict[str, Any]:
        self.open()
        if self._closed:
            raise StopIteration
        while not self._pending:
            if self._closed or self._chunks is None:
                raise StopIteration
            try:
                chunk = next(self._chunks)
            except StopIteration:
                self.close()
                raise
            self._pending.extend(self._decoder.feed(chunk))
        return self._pending.popleft()

    def __enter__(self) -> "EventStream":
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()
