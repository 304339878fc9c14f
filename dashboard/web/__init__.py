"""The HTTP layer that mounts the JSON API (dashboard/api) and the /metrics exporter
(dashboard/exporter) under one error handler, and serves /docs."""
