"""The floor for opening the page (issue 13's bench): a bare Dash page with one empty
dcc.Graph, served like the app (gunicorn, compressed, the same Dash and plotly.js), so the
time the same browser takes to open it is what Dash and plotly.js cost before any of ours."""

from __future__ import annotations

from dash import Dash, dcc, html

app = Dash(__name__, title="bare", update_title=None, compress=True, serve_locally=True)
app.layout = html.Div([dcc.Graph(id="graph")])
server = app.server
server.add_url_rule("/healthz", "healthz", lambda: ("ok\n", 200, {"Content-Type": "text/plain"}))
# plotly/dash#3971, as app.py does: without it a fresh worker's concurrent first requests
# can get HTTP 500 on the JS bundles, and the bare page then never draws its graph (seen as
# the floor's first open timing out)
with server.app_context():
    app._setup_server()
