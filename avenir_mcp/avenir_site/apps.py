from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps  # the module: its AdminConfig is not this app's


class AvenirSiteConfig(AppConfig):
    """The project itself, installed so its management commands (runserver, mcp_stdio) load."""

    name = "avenir_mcp.avenir_site"
    verbose_name = "avenir-mcp"

    def ready(self) -> None:
        """Every SQLite connection keeps the database's files private (`avenir_site.private_database`)."""
        from django.db.backends.signals import connection_created
        from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteDatabase

        from avenir_mcp.avenir_site.private_database import keep_database_private

        connection_created.connect(
            keep_database_private,
            sender=SQLiteDatabase,
            dispatch_uid="avenir_mcp.avenir_site.private_database",
        )


class AdminConfig(admin_apps.AdminConfig):
    """`django.contrib.admin`, its site (`admin.site`) being the owner's console (`avenir_site.console`)."""

    default = False  # INSTALLED_APPS' "avenir_site" still means AvenirSiteConfig
    default_site = "avenir_mcp.avenir_site.console.ConsoleSite"
