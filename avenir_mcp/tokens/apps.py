from django.apps import AppConfig


class TokensConfig(AppConfig):
    """Static bearer tokens for /mcp and the caller they make (a `Principal`)."""

    name = "avenir_mcp.tokens"
    verbose_name = "MCP access tokens"
    default_auto_field = "django.db.models.BigAutoField"
