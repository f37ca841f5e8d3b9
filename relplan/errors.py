"""TODO docstring for relplan.errors."""

from __future__ import annotations


class ConfigError(Exception):
    """A config or argument is wrong: ``key`` names it, ``message`` says what is wrong."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class InfeasibleJobError(ValueError):
    """The job would (almost) never finish: failures come faster than it can restart."""
