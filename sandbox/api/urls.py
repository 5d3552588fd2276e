"""Routes of the sandbox's YNAB API v1 (filled in by the sandbox API work)."""

urlpatterns: list = []
