"""Admin registrations of the tools app, one module per subject."""

from tools import admin_operations, admin_tokens, admin_ynab  # noqa: F401  (importing registers them)
