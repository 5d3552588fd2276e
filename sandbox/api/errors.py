"""YNAB's error envelope: `{"error": {"id", "name", "detail"}}` with YNAB's ids."""

from __future__ import annotations


class ApiError(Exception):
    """An answer YNAB gives instead of data; raised anywhere in a view, rendered once."""

    def __init__(self, status: int, error_id: str, name: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.body = {"error": {"id": error_id, "name": name, "detail": detail}}


def bad_request(detail: str, index: int | None = None) -> ApiError:
    """400, naming the field; `(index: N)` for the item of an array the problem is in."""
    suffix = f" (index: {index})" if index is not None else ""
    return ApiError(400, "400", "bad_request", detail + suffix)


def unauthorized() -> ApiError:
    return ApiError(401, "401", "unauthorized", "Unauthorized")


def not_found() -> ApiError:
    """404.2: an id that does not exist in this plan (or was deleted)."""
    return ApiError(404, "404.2", "resource_not_found", "Resource not found")


def no_such_route() -> ApiError:
    """404.1: the URI does not exist."""
    return ApiError(404, "404.1", "not_found", "Not found")


def conflict(detail: str) -> ApiError:
    return ApiError(409, "409", "conflict", detail)
