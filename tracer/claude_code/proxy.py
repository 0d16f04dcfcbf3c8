"""``record --claude-code --prompt``: a loopback proxy between Claude Code and the real API.

Claude Code is pointed at the proxy with a key made for the session (the proxy refuses any
other: a loopback port is open to every local user); the proxy sends each request on to the
real API (``ANTHROPIC_BASE_URL``, else ``https://api.anthropic.com``) with the user's key in
``x-api-key``, and streams the answer back chunk by chunk as it arrives, so the session runs as
it would without the proxy. The body goes on byte for byte and the answer comes back byte for
byte; the headers that go on are the ones that say what is asked for (the version, the betas,
the client's name), never a credential of Claude Code's. The real key lives only in the proxy's
memory: not in ``claude``'s environment, not in the capture, not in the trace.
"""

from __future__ import annotations

import httpx2

from tracer.claude_code.capture import Exchange

DEFAULT_UPSTREAM = "https://api.anthropic.com"
#: Request headers passed on: what the request asks for, never who is asking.
FORWARDED = ("anthropic-version", "anthropic-beta", "content-type", "user-agent", "x-app")
#: Connecting takes at most this long; an answer may take as long as the API takes.
CONNECT_S = 10.0
READ_S = 600.0


class ProxyBackend:
    """Sends each request to ``upstream`` with ``api_key``; hands back the streaming answer."""

    def __init__(self, upstream: str, api_key: str) -> None:
        self.upstream = upstream.rstrip("/")
        self._key = api_key
        self._client = httpx2.Client(
            timeout=httpx2.Timeout(READ_S, connect=CONNECT_S), follow_redirects=False
        )

    def answer(self, exchange: Exchange) -> httpx2.Response:
        headers = {k: v for k, v in exchange.request_headers.items() if k.lower() in FORWARDED}
        headers["x-api-key"] = self._key
        headers["accept-encoding"] = "identity"  # the chunks go back as they came
        request = self._client.build_request(
            exchange.method,
            self.upstream + exchange.url,
            headers=headers,
            content=exchange.body,
        )
        return self._client.send(request, stream=True)

    def close(self) -> None:
        self._client.close()
