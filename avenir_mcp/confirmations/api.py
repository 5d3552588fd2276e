"""The pending confirmations as JSON: `GET /api/confirmations`, read-only, for staff.

Mounted in `avenir_site.api`. The same list as the admin's "Pending confirmations" page,
never the codes themselves. A staff session is required: no session answers 401, a
logged-in user who is not staff 403. Like the page, it shows the store of the process
that answers: its memory, or with `REDIS_URL` what every process issued (codes are never
written to the database).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.errors import HttpError
from ninja.security import SessionAuth

from avenir_mcp.confirmations import codes


class StaffSession(SessionAuth):
    """A logged-in staff user; 401 without a session, 403 for anyone else."""

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = request.user
        if not user.is_authenticated:
            return None
        if not user.is_staff:
            raise HttpError(403, "Pending confirmations are for staff.")
        return user


router = Router(tags=["confirmations"], auth=StaffSession())


class PendingConfirmationOut(Schema):
    id: str = Field(description="Public id, to revoke it in the admin; never the code itself.")
    kind: Literal["code", "question"] = Field(
        description="`code`: a confirmation code given to the agent; `question`: an input-required "
        "question waiting for the client's answer."
    )
    tool: str
    plan_id: str
    token: str = Field(description="The name of the MCP token (or local principal) that asked.")
    preview: str = Field(description="The text the person is asked to agree to.")
    issued_at: dt.datetime
    expires_in_seconds: int


@router.get("", response=list[PendingConfirmationOut], summary="Confirmations waiting in this process")
def list_pending(request: HttpRequest) -> list[PendingConfirmationOut]:
    """Codes and questions waiting for the person, soonest to expire first."""
    return [
        PendingConfirmationOut(
            id=item.id,
            kind=item.kind.value,
            tool=item.tool,
            plan_id=item.plan_id,
            token=item.principal_name,
            preview=item.preview,
            issued_at=item.issued_at,
            expires_in_seconds=item.expires_in_seconds,
        )
        for item in codes.store.pending()
    ]
