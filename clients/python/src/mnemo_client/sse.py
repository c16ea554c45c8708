"""An incremental Server-Sent Events decoder, shared by the sync and async clients.

``GET /events`` is an endless ``text/event-stream``; bytes arrive in arbitrary chunks, so the
decoder keeps the partial line between calls and hands out whole events only. It follows the
WHATWG rules that matter here: ``:`` lines are comments (mnemo's 15 s keep-alives), a blank
line dispatches, ``data:`` lines are joined with newlines, a block without data is not an
event (the stream's leading ``retry:``), and the last ``id:`` seen is remembered for
reconnecting with ``Last-Event-ID``. Lines end in ``\\n`` or ``\\r\\n`` (what mnemo sends).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional


class SSEDecoder:
    """Feed it bytes, get events as ``{"event": name, "id": id or None, "data": …}`` dicts.

    ``data`` is the parsed JSON when the data is JSON (mnemo's always is: a ChangeEvent, or
    ``{"type": "ready"|"reset"|"overflow", …}``), else the text.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: List[str] = []
        self._id: Optional[str] = None
        #: The id to send as ``Last-Event-ID`` when reconnecting.
        self.last_event_id: Optional[str] = None
        #: The reconnection delay the server asked for, in milliseconds.
        self.retry_ms: Optional[int] = None

    def feed(self, chunk: bytes) -> List[Dict[str, Any]]:
        """Takes the next bytes of the stream; returns the events they complete, in order."""
        self._buffer += chunk
        events: List[Dict[str, Any]] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return events
            line = self._buffer[:end]
            self._buffer = self._buffer[end + 1 :]
            if line.endswith(b"\r"):
                line = line[:-1]
            event = self._line(line.decode("utf-8", "replace"))
            if event is not None:
                events.append(event)

    def _line(self, line: str) -> Optional[Dict[str, Any]]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._id = value
                self.last_event_id = value
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None

    def _dispatch(self) -> Optional[Dict[str, Any]]:
        event, data, event_id = self._event, self._data, self._id
        self._event, self._data, self._id = "", [], None
        if not data:
            return None
        text = "\n".join(data)
        try:
            payload: Any = json.loads(text)
        except ValueError:
            payload = text
        return {"event": event or "message", "id": event_id, "data": payload}
