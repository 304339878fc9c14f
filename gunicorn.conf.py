"""gunicorn settings the Procfile's web: command reads (PORT and WEB_CONCURRENCY come from the
environment as gunicorn itself reads them)."""

# The worker's pid in each access-log line: the tests check that both workers served.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms pid=%(p)s'
accesslog = "-"
