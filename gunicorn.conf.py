"""gunicorn settings the Procfile's web: command reads (PORT and WEB_CONCURRENCY come from the
environment as gunicorn itself reads them)."""

# The worker's pid in each access-log line: the tests check that both workers served.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms pid=%(p)s'
accesslog = "-"
# No keep-alive: a connection stays with the worker that accepted it, and one worker's
# threads share one GIL. Under 50 viewers on kept-alive connections one worker served
# 4,334 of 4,500 requests and p95 was 505-568 ms; closing after each response spreads
# requests over both workers (2,258 / 2,242) and p95 fell to 314-394 ms (bench/README.md).
# TLS ends at the platform's router, so a new connection from it costs little.
keepalive = 0
