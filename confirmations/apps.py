from django.apps import AppConfig


class ConfirmationsConfig(AppConfig):
    """Asking the person before any write: confirm.ask, codes, fingerprints."""

    name = "confirmations"
    verbose_name = "Confirmations"
    default_auto_field = "django.db.models.BigAutoField"
