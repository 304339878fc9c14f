"""A small HTTP/1.1 client on asyncio streams for the router's viewers: one kept-alive
connection a viewer, as a browser tab holds one, and a few microseconds of the client's CPU a
request.

Why not httpx: its asyncio client spent ~5 ms of CPU a request here (measured through nginx
at 50 connections: web 2.0 ms, nginx 0.3, redis 0.1, client 5.2), so 200 viewers' 600
requests a second needed three cores for the client alone, on the same two cores as the
servers it measured. This one writes the request line and headers itself and reads a
response by its Content-Length (or chunks), nothing more: loopback, no TLS, no redirects.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode, urlsplit

import brotli


class HttpError(Exception):
    """The request got no complete response (refused, reset, timed out, or garbled)."""


class Connection:
    """One kept-alive connection to `base` (http://host:port), opened on first use and again
    after a failure or a `Connection: close`."""

    def __init__(self, base: str, timeout_s: float = 60.0) -> None:
        u = urlsplit(base)
        self.host, self.port = u.hostname or "127.0.0.1", u.port or 80
        self.timeout_s = timeout_s
        self._rw: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def close(self) -> None:
        if self._rw:
            w = self._rw[1]
            self._rw = None
            w.close()
            try:
                await w.wait_closed()
            except OSError:
                pass

    async def post(
        self, path: str, body: bytes, params: dict | None = None, decode: bool = True
    ) -> tuple[int, dict[str, str], bytes]:
        """POST `body` (JSON) to path?params: (status, headers lower-cased, body; brotli
        decoded unless `decode` is False: a viewer's charts are not read, only timed)."""
        target = path + ("?" + urlencode(params) if params else "")
        head = (
            f"POST {target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Content-Type: application/json\r\nAccept-Encoding: br\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        try:
            return await asyncio.wait_for(self._exchange(head + body, decode), self.timeout_s)
        except (
            TimeoutError,
            OSError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ValueError,
        ) as e:
            await self.close()
            raise HttpError(f"{type(e).__name__}: {e}") from e

    async def _exchange(self, request: bytes, decode: bool) -> tuple[int, dict[str, str], bytes]:
        if self._rw is None:
            self._rw = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._rw
        writer.write(request)
        await writer.drain()
        status_line = await reader.readuntil(b"\r\n")
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
            raise ValueError(f"not an HTTP response: {status_line[:60]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            data = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            data = await _chunks(reader)
        elif status in (204, 304):
            data = b""
        else:
            raise ValueError("a response with neither Content-Length nor chunks")
        if headers.get("connection", "").lower() == "close":
            await self.close()
        if decode and headers.get("content-encoding") == "br":
            data = brotli.decompress(data)
        return status, headers, data


async def _chunks(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailers
            return bytes(out)
        out += await reader.readexactly(size)
        await reader.readexactly(2)
