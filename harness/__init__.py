"""One harness for what the tests and the benchmarks run against and drive: servers (the
Procfile's gunicorn, redis-server, the Celery worker, nginx in front of four web processes),
Chromium and what a person does on the page, load clients and the CPU meter. tests/ and bench/
both import it; neither imports the other (pyproject.toml's import contracts)."""
