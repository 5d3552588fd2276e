from django.apps import AppConfig


class SandboxConfig(AppConfig):
    """A local, YNAB-compatible API at /sandbox/v1: the embedded default and the tests' YNAB."""

    name = "avenir_mcp.sandbox"
    verbose_name = "YNAB sandbox"
    default_auto_field = "django.db.models.BigAutoField"
