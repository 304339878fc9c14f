"""Security headers for a public demo server: what may run, what may frame it, what leaks.

The Content-Security-Policy allows scripts only from this origin plus Dash's own inline
renderer bootstrap (by hash), so markup smuggled into a URL cannot run even if it were ever
rendered. Plotly needs inline styles and blob: workers for WebGL. FRAME_ANCESTORS says who
may embed the demo (default: only this origin); set it to e.g. "https://slides.example.com"
to embed on purpose.
"""

from __future__ import annotations

import os

from dash import Dash
from flask import Response


def policy(app: Dash) -> str:
    """The CSP header value for this app."""
    ancestors = os.environ.get("FRAME_ANCESTORS", "'self'").strip() or "'self'"
    hashes = " ".join(app.csp_hashes())  # already quoted: 'sha256-...'
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


def install(app: Dash) -> None:
    """Add the headers to every response (call after every callback is registered)."""
    csp = policy(app)

    @app.server.after_request
    def _headers(resp: Response) -> Response:
        resp.headers["Content-Security-Policy"] = csp
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        resp.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        resp.headers.pop("Server", None)
        return resp
