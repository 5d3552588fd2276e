from django.apps import AppConfig


class ToolsConfig(AppConfig):
    """The MCP tools, the YNAB client behind them, the operation log and MCP tokens."""

    name = "tools"
    verbose_name = "MCP tools and operation log"
    default_auto_field = "django.db.models.BigAutoField"
