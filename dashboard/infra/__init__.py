"""The app's infrastructure, under both the page and the web layer: the shared cache and the
model's memoised answers (cache, results), stored callback responses, background jobs (the
managers, the Celery app and the chunk runner) and the security headers."""
