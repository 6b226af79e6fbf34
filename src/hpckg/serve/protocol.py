"""uvicorn's HTTP protocol (httptools when installed, else h11), writing each response in one system call.

uvicorn writes a response's status line and headers as soon as the application starts the response, and
the body as a second write. Over a keep-alive connection that is two wake-ups of the client per response
(it reads the head, then waits again for the body), which costs a lookup about as much as the query does.
CoalescingHTTPProtocol hands uvicorn's protocol a transport that holds a write back until the next one
(Starlette sends head and body back to back, in the same event-loop iteration) and passes both on as one
write; a write with nothing after it in its iteration (a HEAD response) goes out at the end of the
iteration. Large writes, closing and aborting flush at once, so nothing is delayed or reordered.

uvicorn closes a keep-alive connection idle between requests, but waits forever for a connection's first
request and for the rest of a request head (slowloris). The protocol here also closes, with 408, a
connection on which no request is being answered and none has arrived complete for HEAD_TIMEOUT seconds.
A request whose head arrived is the application's: its body has a read timeout there (app.read_body), and
its query the query time limit.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.auto import AutoHTTPProtocol

FLUSH_NOW = 64 * 1024  # a first write this large is not held back
HEAD_TIMEOUT = 10.0  # seconds a connection may take to send a complete request head
# Bytes a request head (request line and headers) may take: a GET query of 100 KiB fits; a 64 MiB header
# would otherwise be buffered whole (httptools has no limit; h11's is uvicorn's h11_max_incomplete_event_size).
MAX_HEAD = 128 * 1024
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    b"x-content-type-options: nosniff\r\n"
                    b"content-length: 31\r\nconnection: close\r\n\r\nthe request head took too long\n")
_TOO_LARGE = b"the request head is larger than 128 KiB\n"
TOO_LARGE_RESPONSE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                      b"x-content-type-options: nosniff\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
                      % (len(_TOO_LARGE), _TOO_LARGE))


class CoalescingTransport:
    """An asyncio transport that joins a write with the next one made in the same loop iteration; everything
    else is the wrapped transport's."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._pending:  # a response's head: hold it until its body, or the end of this iteration
            self._pending.append(bytes(data))
            self._size = len(data)
            if self._size >= FLUSH_NOW:
                self.flush()
            else:
                self._loop.call_soon(self.flush)
            return
        self._pending.append(bytes(data))  # its body: both go out now, in one write
        self.flush()

    def writelines(self, lines) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending.clear()
        self._size = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._pending.clear()
        self._size = 0
        self._transport.abort()

    def __getattr__(self, name: str):
        return getattr(self._transport, name)


class CoalescingHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's HTTP protocol over a CoalescingTransport; pass it as uvicorn.Config(http=...)."""

    head_timeout = HEAD_TIMEOUT
    max_head = MAX_HEAD
    # httptools calls these as a head completes and a request ends; h11 (whose own limit uvicorn sets from
    # h11_max_incomplete_event_size) has no such callbacks, and the count below is left to it.
    _counts_heads = hasattr(AutoHTTPProtocol, "on_headers_complete")

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        loop = asyncio.get_running_loop()
        super().connection_made(CoalescingTransport(transport, loop))  # type: ignore[arg-type]
        self._waiting_since: float | None = loop.time()
        self._cycle_seen = None  # the request cycle the last look saw: another one means a request arrived
        self._watch: asyncio.TimerHandle | None = loop.call_later(1.0, self._check_waiting)
        self._head_bytes: int | None = 0  # bytes of the request head being received; None while a body is

    def data_received(self, data: bytes) -> None:
        before = self._head_bytes
        super().data_received(data)
        # Still in the same head after parsing this data (a head that completed in it is not counted: its
        # body's bytes are the body limit's): past max_head, refused before the parser buffers one more read.
        if self._counts_heads and before is not None and self._head_bytes == before:
            self._head_bytes = before + len(data)
            if self._head_bytes > self.max_head:
                transport = self.transport
                if not transport.is_closing():
                    transport.write(TOO_LARGE_RESPONSE)
                    transport.close()

    def on_headers_complete(self) -> None:
        self._head_bytes = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._head_bytes = 0

    def _check_waiting(self) -> None:
        """Once a second: close the connection if it has waited HEAD_TIMEOUT for a request head."""
        loop = asyncio.get_running_loop()
        cycle = getattr(self, "cycle", None)
        now = loop.time()
        if cycle is not None and not cycle.response_complete:
            self._waiting_since = None  # a request is being answered
        elif self._waiting_since is None or cycle is not self._cycle_seen:
            # Answered since the last look, or a request came and went between two looks (quick requests
            # back to back on a keep-alive connection): the wait for the next head starts now, not before.
            self._waiting_since = now
        self._cycle_seen = cycle
        if self._waiting_since is not None and now - self._waiting_since >= self.head_timeout:
            self._watch = None
            transport = self.transport
            if not transport.is_closing():
                transport.write(TIMEOUT_RESPONSE)
                transport.close()
            return
        self._watch = loop.call_later(1.0, self._check_waiting)

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_watch", None) is not None:
            self._watch.cancel()
            self._watch = None
        super().connection_lost(exc)
