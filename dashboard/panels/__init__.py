"""Panels of the page: each one's layout, callbacks and component IDs together."""
