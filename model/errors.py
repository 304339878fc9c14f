"""The one error the model raises for bad input: it names the offending token."""

from __future__ import annotations


class ScenarioError(ValueError):
    """Bad scenario input. `token` is the exact piece of input that was wrong."""

    def __init__(self, message: str, token: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
