"""The JSON API (/api/v1/...): routes, the telemetry importer's endpoint, a domain's telemetry."""
