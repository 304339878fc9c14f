"""Shared fixtures: the Flask test client of the real app."""

import pytest


@pytest.fixture(scope="session")
def client():
    from app import server

    server.config.update(TESTING=False)
    return server.test_client()
