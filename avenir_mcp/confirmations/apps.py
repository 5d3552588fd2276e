from django.apps import AppConfig
from django.conf import settings

from avenir_mcp.confirmations import codes


class ConfirmationsConfig(AppConfig):
    """Asking the person before any write: confirm.ask, codes, fingerprints."""

    name = "avenir_mcp.confirmations"
    verbose_name = "Confirmations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Several workers or processes: the codes live where all of them see them. Imported
        # here, so that one process alone never loads Redis's client.
        if settings.REDIS_URL:
            from avenir_mcp.confirmations.shared_codes import SharedConfirmationStore

            codes.store = SharedConfirmationStore()
