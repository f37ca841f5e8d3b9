"""The errors and warnings relplan gives its users.

Every error relplan raises on purpose is a :class:`RelplanError`: an input mistake is a
:class:`ConfigError` naming the config key or the argument at fault, and
:class:`InfeasibleJobError` refuses a job that would never finish. The command line
reports each as one line and exit code 2.

A legal but suspicious setting is a :class:`RelplanWarning` (a :class:`UserWarning`),
given with :func:`warnings.warn`: a notebook shows it, a script can filter it or turn it
into an error (``warnings.simplefilter("error", RelplanWarning)``), and the command line
prints it as one ``warning: KEY: message`` line on stderr.

Examples
--------
>>> issubclass(ConfigError, RelplanError), issubclass(RelplanWarning, UserWarning)
(True, True)
>>> str(RelplanWarning("job.checkpoint.write", "longer than the interval"))
'job.checkpoint.write: longer than the interval'
"""

from __future__ import annotations


class RelplanError(Exception):
    """Base class of every error relplan raises on purpose (bad input, an infeasible job)."""


class ConfigError(RelplanError):
    """A config or argument is wrong: ``key`` names it, ``message`` says what is wrong."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class InfeasibleJobError(RelplanError, ValueError):
    """The job would (almost) never finish: failures come faster than it can restart."""


class RelplanWarning(UserWarning):
    """A legal but suspicious setting: ``key`` names it, ``message`` says why.

    ``str()`` gives ``KEY: message``, the line the command line prints after ``warning:``.
    """

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RelplanWarning)
                and (self.key, self.message) == (other.key, other.message))  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.key, self.message))


BAD_INPUT_EXIT_CODE = 2
"""Exit code of a command refused for bad input (a config key or an argument)."""

INTERRUPTED_EXIT_CODE = 130
"""Exit code of a run stopped by Ctrl-C (128 + SIGINT), as shells report it."""
