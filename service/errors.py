"""Typed refusals of the service: each carries the HTTP status and names what was wrong."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.message}
        if self.field:
            body["field"] = self.field
        return body

    @property
    def headers(self) -> dict[str, str]:
        """Answer headers the refusal needs (Retry-After for a 429)."""
        return {}


class BadRequest(ServiceError):
    status = 400


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class Invalid(ServiceError):
    """422: well-formed JSON whose content is refused (unknown ruleset, bad option, ...)."""

    status = 422


class TooMany(ServiceError):
    """429: a limit on what mails other people was reached; says which and when to retry."""

    status = 429

    def __init__(self, message: str, retry_after: float, field: str | None = None) -> None:
        super().__init__(message, field)
        self.retry_after = max(1, int(retry_after + 0.999))

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "retry_after": self.retry_after}

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class OrdersRefused(ServiceError):
    """422 with every bad line of an order text; nothing was stored."""

    status = 422

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"line {e['line']}: {e['message']}" for e in errors))
        self.errors = errors

    def to_json(self) -> dict[str, Any]:
        return {"errors": self.errors}
