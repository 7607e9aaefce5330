"""The one exception of the web app's modules: a request refused, with its HTTP status."""

from __future__ import annotations


class ApiError(Exception):
    """A request the server refuses: the HTTP status and a message saying what was wrong
    and what is allowed. The server answers it as ``{"error": message, "status": status}``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


__all__ = ["ApiError"]
