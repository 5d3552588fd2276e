"""The sandbox's "today": UTC, as YNAB's current month and its no-future-dates rule."""

from __future__ import annotations

from datetime import date

from django.utils import timezone


def utc_today() -> date:
    return timezone.now().date()
