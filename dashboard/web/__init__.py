"""The web layer: the JSON API, Prometheus /metrics, security headers, the shared cache."""
