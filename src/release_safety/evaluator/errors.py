"""API errors: every non-200 answer carries the error payload `{status: error, error: {...}}`."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An answer other than 200, with its error name, status code, message and details."""

    def __init__(self, status_code: int, name: str, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.name = name
        self.message = message
        self.data = data

    def payload(self) -> dict[str, Any]:
        """The error payload of docs/contract.md#evaluator-api."""
        error: dict[str, Any] = {
            "name": self.name,
            "statusCode": self.status_code,
            "message": self.message,
        }
        if self.data is not None:
            error["data"] = self.data
        return {"status": "error", "error": error}


def unauthorized(message: str) -> ApiError:
    """401: a missing, malformed, unknown or expired token."""
    return ApiError(401, "AuthorizationError", message)


def forbidden(message: str) -> ApiError:
    """403: the caller may not see or change this."""
    return ApiError(403, "ForbiddenError", message)


def not_found(message: str) -> ApiError:
    """404: an unknown project or resource."""
    return ApiError(404, "NotFoundError", message)


def invalid(fields: dict[str, dict[str, Any]]) -> ApiError:
    """422: values that fail their declared type or enum, named in `data`."""
    names = ", ".join(sorted(fields))
    return ApiError(422, "ValidateError", f"Invalid value for: {names}", fields)


def field_error(name: str, message: str, value: Any) -> dict[str, dict[str, Any]]:
    """One failing field in the shape ValidateError carries in `data`."""
    return {name: {"message": message, "value": value}}
