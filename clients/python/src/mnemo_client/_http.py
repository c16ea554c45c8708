"""What the sync and async clients share about HTTP: the request description, headers,
path encoding, the retry policy and turning failures into :class:`MnemoError`.

The two clients differ only in how they wait (``time.sleep`` or ``asyncio.sleep``) and how
they read bodies; everything that decides *what* to send and *whether* to try again lives
here, once, so the two cannot drift apart.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Optional, Tuple, TypeVar
from urllib.parse import quote

import httpx

from .errors import HTTP_ERROR, INVALID_RESPONSE, TIMEOUT, UNREACHABLE, MnemoError

__version__ = "0.1.0"

T = TypeVar("T")

#: The longest the client waits before one retry, whatever Retry-After says: a caller
#: blocked for minutes on a busy server is worse off than one that gets the error.
MAX_RETRY_WAIT = 10.0
#: First wait after a connection failure; doubled per attempt (0.2, 0.4, 0.8 s…), so a
#: stopped mnemo is reported within about a second and a half with the default 3 retries.
CONNECT_BACKOFF = 0.2
#: Connection errors after which the request surely (ConnectError: nothing was sent) or
#: almost surely (the server closed an idle keep-alive connection as we reused it) was not
#: processed. A connection lost mid-answer is not retried: the write may have happened.
RETRIABLE_TRANSPORT_ERRORS: Tuple[type, ...] = (httpx.ConnectError, httpx.RemoteProtocolError)


@dataclass
class Call(Generic[T]):
    """One API operation: the request to send, whether it may be sent again, and how to read
    the answer. Built by :mod:`mnemo_client._api`, sent by either client."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: Optional[Dict[str, str]] = None
    json: Any = None
    content: Optional[bytes] = None
    headers: Dict[str, str] = field(default_factory=dict)
    #: Safe to send twice: GET/PUT/DELETE, /search, /flush with a flushId.
    retriable: bool = False
    #: Error statuses whose body is an answer, not an error (GET /ready's 503).
    accept: Tuple[int, ...] = ()


def default_headers(token: Optional[str], agent: Optional[str], user: Optional[str]) -> Dict[str, str]:
    """The headers every request carries: who we are and whom we act for."""
    headers = {"user-agent": f"mnemo-client-python/{__version__}", "accept": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    if agent:
        headers["x-mnemo-agent"] = agent
    if user:
        headers["x-mnemo-user"] = user
    return headers


def make_timeout(seconds: Optional[float]) -> httpx.Timeout:
    """The client's timeout. Connecting gets at most 10 s: a blackholed address must fail
    soon even when answers (a full re-index with wait) are allowed longer."""
    if seconds is None:
        return httpx.Timeout(None, connect=10.0)
    return httpx.Timeout(seconds, connect=min(seconds, 10.0))


def file_path(path: str) -> str:
    """``/files/<path>`` with the path as one encoded segment (``memory%2Fa.md``), which
    mnemo decodes once. Encoding the slashes keeps HTTP libraries and proxies from
    normalising ``..`` away, so the service itself sees, and refuses, a traversal."""
    encoded = quote(path, safe="")
    if encoded in (".", ".."):
        encoded = encoded.replace(".", "%2E")
    return "/files/" + encoded


def retry_after(response: httpx.Response) -> Optional[float]:
    """The ``Retry-After`` header in seconds (a number or an HTTP date), None if absent or unreadable."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, float(when.timestamp() - time.time()))


def retry_wait(
    call: Call[Any],
    attempt: int,
    retries: int,
    response: Optional[httpx.Response] = None,
    error: Optional[BaseException] = None,
) -> Optional[float]:
    """Seconds to wait before sending ``call`` again, or None to give up now.

    Only calls that are safe to repeat are retried. A 429 or 503 is retried only when it
    says when (``Retry-After``: ``AGENT_BUSY``, ``OVERLOADED``): a 503 without it
    (``EMBEDDING_UNAVAILABLE``, ``SHUTTING_DOWN``) will not get better in a few seconds.
    """
    if attempt >= retries or not call.retriable:
        return None
    if response is not None:
        if response.status_code in (429, 503) and response.status_code not in call.accept:
            wait = retry_after(response)
            return None if wait is None else min(wait, MAX_RETRY_WAIT)
        return None
    if isinstance(error, RETRIABLE_TRANSPORT_ERRORS) and not isinstance(error, httpx.TimeoutException):
        return min(CONNECT_BACKOFF * 2.0**attempt, MAX_RETRY_WAIT)
    return None


def transport_error(error: Exception, base_url: str) -> MnemoError:
    """A failure to get an answer, as a MnemoError that says where we tried."""
    if isinstance(error, httpx.TimeoutException):
        what = {
            httpx.ConnectTimeout: "connecting",
            httpx.ReadTimeout: "waiting for the answer",
            httpx.WriteTimeout: "sending the request",
            httpx.PoolTimeout: "waiting for a free connection",
        }.get(type(error), "talking to it")
        return MnemoError(TIMEOUT, f"mnemo at {base_url} timed out {what}")
    why = str(error) or type(error).__name__
    if isinstance(error, httpx.ConnectError):
        return MnemoError(UNREACHABLE, f"cannot reach mnemo at {base_url}: {why} (is it running?)")
    return MnemoError(UNREACHABLE, f"lost the connection to mnemo at {base_url}: {why}")


def error_from_response(response: httpx.Response) -> MnemoError:
    """The error an error status stands for, from mnemo's ``{statusCode, code, message,
    requestId}`` body, or ``HTTP_ERROR`` when something else (a proxy) answered."""
    wait = retry_after(response)
    request_id = response.headers.get("x-request-id")
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        return MnemoError(
            body["code"],
            str(body.get("message") or body.get("error") or response.reason_phrase),
            status=response.status_code,
            request_id=body.get("requestId") or request_id,
            details=body.get("details"),
            retry_after=wait,
        )
    text = response.text.strip()[:200]
    message = f"{response.reason_phrase or 'error'}{': ' + text if text else ''}"
    return MnemoError(HTTP_ERROR, message, status=response.status_code, request_id=request_id, retry_after=wait)


def check(call: Call[Any], response: httpx.Response) -> None:
    """Raises the response's error unless its status is a success (or one the call accepts)."""
    if response.status_code >= 400 and response.status_code not in call.accept:
        raise error_from_response(response)


def json_body(response: httpx.Response) -> Any:
    """The JSON body of a success, or ``INVALID_RESPONSE`` when it is not JSON."""
    try:
        return response.json()
    except ValueError as exc:
        raise MnemoError(
            INVALID_RESPONSE,
            f"expected JSON from {response.request.method} {response.request.url.path},"
            f" got {response.headers.get('content-type')!r}",
            status=response.status_code,
            request_id=response.headers.get("x-request-id"),
        ) from exc


def settings_from_env(environ: Dict[str, str]) -> Dict[str, Any]:
    """Client settings from the variables the ``mnemo`` CLI reads, so a shell set up for the
    CLI (or for the service: ``MNEMO_API_TOKEN`` is the same variable) works for Python too."""
    token = environ.get("MNEMO_API_TOKEN") or environ.get("MNEMO_TOKEN")
    token_file = environ.get("MNEMO_API_TOKEN_FILE") or environ.get("MNEMO_TOKEN_FILE")
    if not token and token_file:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().strip()
    timeout_ms = environ.get("MNEMO_TIMEOUT_MS")
    return {
        "base_url": environ.get("MNEMO_URL") or "http://127.0.0.1:8787",
        "token": token or None,
        "agent": environ.get("MNEMO_AGENT") or None,
        "user": environ.get("MNEMO_USER") or None,
        "timeout": float(timeout_ms) / 1000 if timeout_ms else 30.0,
    }


#: Read timeout of GET /events: mnemo sends a comment every 15 s on an idle stream, so
#: three missed keep-alives mean the connection is dead, not quiet.
EVENTS_READ_TIMEOUT = 45.0


def events_timeout(seconds: Optional[float]) -> httpx.Timeout:
    base = make_timeout(seconds)
    read = max(seconds or 0.0, EVENTS_READ_TIMEOUT)
    return httpx.Timeout(base.read, connect=base.connect, read=read)
