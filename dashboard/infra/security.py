"""Security headers for a public demo server: what may run, what may frame it, what leaks.

The Content-Security-Policy allows scripts only from this origin plus Dash's own inline
renderer bootstrap (by hash), so markup smuggled into a URL cannot run even if it were ever
rendered. Plotly needs inline styles and blob: workers for WebGL. The settings' frame_ancestors
(FRAME_ANCESTORS in the environment, config.py) says who may embed the demo (default: only
this origin); set it to e.g. "https://slides.example.com" to embed on purpose.
"""

from __future__ import annotations

from dash import Dash
from flask import Response


def policy(app: Dash, frame_ancestors: str = "'self'", also: tuple[Dash, ...] = ()) -> str:
    """The CSP header value for this app (and the Dash apps `also` on its server: the /fleet
    page's clientside callbacks are inline scripts of its own), framed only by
    `frame_ancestors`."""
    ancestors = frame_ancestors.strip() or "'self'"
    every = dict.fromkeys(h for a in (app, *also) for h in a.csp_hashes())
    hashes = " ".join(every)  # already quoted: 'sha256-...'
    return "; ".join(
        [
            "default-src 'self'",
            # 'unsafe-eval': plotly's WebGL layer (regl) compiles its draw calls with
            # Function(); without it the spine neither draws nor hovers. Inline scripts, the
            # way injected markup would run, stay blocked: only Dash's own, by hash.
            f"script-src 'self' 'unsafe-eval' {hashes}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            f"frame-ancestors {ancestors}",
        ]
    )


def install(app: Dash, frame_ancestors: str = "'self'", also: tuple[Dash, ...] = ()) -> None:
    """Add the headers to every response (call after every callback is registered: the CSP
    carries the hashes of Dash's inline scripts, the other apps' `also` on the server too)."""
    csp = policy(app, frame_ancestors, also)

    @app.server.after_request
    def _headers(resp: Response) -> Response:
        resp.headers["Content-Security-Policy"] = csp
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        resp.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        resp.headers.pop("Server", None)
        return resp
