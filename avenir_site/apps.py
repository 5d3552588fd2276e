from django.apps import AppConfig


class AvenirSiteConfig(AppConfig):
    """The project itself, installed so its management commands (runserver, mcp_stdio) load."""

    name = "avenir_site"
    verbose_name = "avenir-mcp"
