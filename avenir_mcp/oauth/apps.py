from django.apps import AppConfig


class OauthConfig(AppConfig):
    """Sign-in for hosted MCP clients: the service as OAuth authorization and resource server."""

    name = "avenir_mcp.oauth"
    verbose_name = "MCP sign-in (OAuth clients and grants)"
    default_auto_field = "django.db.models.BigAutoField"
