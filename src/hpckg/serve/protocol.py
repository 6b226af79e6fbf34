"""uvicorn's HTTP protocol (httptools when installed, else h11), writing each response in one system call.

uvicorn writes a response's status line and headers as soon as the application starts the response, and
the body as a second write. Over a keep-alive connection that is two wake-ups of the client per response
(it reads the head, then waits again for the body), which costs a lookup about as much as the query does.
CoalescingHTTPProtocol hands uvicorn's protocol a transport that holds a write back until the next one
(Starlette sends head and body back to back, in the same event-loop iteration) and passes both on as one
write; a write with nothing after it in its iteration (a HEAD response) goes out at the end of the
iteration. Large writes, closing and aborting flush at once, so nothing is delayed or reordered.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.auto import AutoHTTPProtocol

FLUSH_NOW = 64 * 1024  # a first write this large is not held back


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

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(CoalescingTransport(transport, asyncio.get_running_loop()))  # type: ignore[arg-type]
