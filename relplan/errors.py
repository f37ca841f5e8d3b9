"""The errors relplan reports to its users as one line and exit code 2.

Every input mistake is a :class:`ConfigError` naming the config key or the argument at
fault; :class:`InfeasibleJobError` refuses a job that would never finish.
"""

from __future__ import annotations


class ConfigError(Exception):
    """A config or argument is wrong: ``key`` names it, ``message`` says what is wrong."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class InfeasibleJobError(ValueError):
    """The job would (almost) never finish: failures come faster than it can restart."""


BAD_INPUT_EXIT_CODE = 2
"""Exit code of a command refused for bad input (a config key or an argument)."""

INTERRUPTED_EXIT_CODE = 130
"""Exit code of a run stopped by Ctrl-C (128 + SIGINT), as shells report it."""
