from django.apps import AppConfig


class AvenirSiteConfig(AppConfig):
    """The project itself, installed so its management commands (runserver, mcp_stdio) load."""

    name = "avenir_site"
    verbose_name = "avenir-mcp"

    def ready(self) -> None:
        """Every SQLite connection keeps the database's files private (`avenir_site.private_database`)."""
        from django.db.backends.signals import connection_created
        from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteDatabase

        from avenir_site.private_database import keep_database_private

        connection_created.connect(
            keep_database_private, sender=SQLiteDatabase, dispatch_uid="avenir_site.private_database"
        )
