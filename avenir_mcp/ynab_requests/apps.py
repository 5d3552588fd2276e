from django.apps import AppConfig


class YnabRequestsConfig(AppConfig):
    """The YNAB request log: one row per request the YNAB client sent (or tried to), from which
    every process counts the hour's budget (docs/ynab_budget.md)."""

    name = "avenir_mcp.ynab_requests"
    verbose_name = "YNAB requests"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from avenir_mcp.ynab_client import pacing
        from avenir_mcp.ynab_requests.log import DatabaseRequestLog

        pacing.use_request_log(DatabaseRequestLog())
