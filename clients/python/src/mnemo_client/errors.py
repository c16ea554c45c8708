"""The one exception the client raises, so callers need a single ``except`` clause.

mnemo answers every error with ``{statusCode, code, error, message, requestId}`` and a
*stable* ``code``; programs should branch on ``code`` (``FILE_NOT_FOUND``,
``PRECONDITION_FAILED``…), not on the message, which is written for people. Failures that
never reached the service get codes of their own (``UNREACHABLE``, ``TIMEOUT``) and
``status`` None, so "mnemo is down" is as easy to tell apart as "the file is missing".
"""

from __future__ import annotations

from typing import Any, Optional

#: Nothing answered at the address: refused, reset, DNS failure, connection dropped.
UNREACHABLE = "UNREACHABLE"
#: The service did not connect or answer within the client's timeout.
TIMEOUT = "TIMEOUT"
#: An error status whose body is not mnemo's error shape (a proxy's HTML page, say).
HTTP_ERROR = "HTTP_ERROR"
#: A success status whose body is not the JSON the API promises.
INVALID_RESPONSE = "INVALID_RESPONSE"


class MnemoError(Exception):
    """An error from mnemo, or from trying to reach it.

    Attributes:
        code: the API's stable code (``FILE_NOT_FOUND``…), or ``UNREACHABLE`` / ``TIMEOUT``
            when the service was not reached, ``HTTP_ERROR`` for an error body that is not
            mnemo's, ``INVALID_RESPONSE`` for an unreadable success body.
        status: the HTTP status, None when there was no answer.
        message: what went wrong, for people.
        request_id: the service's request id (``x-request-id``), to find the request in its log.
        details: the error's structured details when it has some (validation issues, or
            ``{"currentSha256": …}`` on ``PRECONDITION_FAILED``).
        retry_after: seconds the service asked to wait (``Retry-After``), when it said.
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: Optional[int] = None,
        request_id: Optional[str] = None,
        details: Any = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(f"{code}: {message}" if status is None else f"{code} ({status}): {message}")
        self.code = code
        self.message = message
        self.status = status
        self.request_id = request_id
        self.details = details
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return (
            f"MnemoError(code={self.code!r}, status={self.status!r}, message={self.message!r},"
            f" request_id={self.request_id!r})"
        )
