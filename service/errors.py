"""The service's errors, each answered with its status and its one-line message; below the
match service (:mod:`service.core`, which re-exports them) and the modules it uses."""

from __future__ import annotations


class NotFound(LookupError):
    """-> 404 with this message."""


class Conflict(Exception):
    """-> 409 with this message."""


class Unprocessable(ValueError):
    """-> 422 with this message (the adjudicator or the table spec refuses the input)."""
