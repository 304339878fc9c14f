"""The /metrics exporter: DCGM- and NMX-named families (families, labels) read from one
scenario (metrics: one rack; domain: a multi-rack domain), written as Prometheus text
(promtext), served by route."""
