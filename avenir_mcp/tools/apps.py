from django.apps import AppConfig


class ToolsConfig(AppConfig):
    """The MCP tools: reads, writes and their logic."""

    name = "avenir_mcp.tools"
    verbose_name = "MCP tools"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Import every tool module of the catalog, so each write tool's kind is registered with
        the operation log (`oplog.kinds`) in every process, the admin's included."""
        import importlib

        from avenir_mcp.mcp_surface.catalog import TOOL_MODULES

        for module in TOOL_MODULES:
            importlib.import_module(module)
