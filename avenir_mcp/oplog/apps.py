from django.apps import AppConfig


class OplogConfig(AppConfig):
    """The operation log: every write, its settling and its undo."""

    name = "avenir_mcp.oplog"
    verbose_name = "Operation log"
    default_auto_field = "django.db.models.BigAutoField"
