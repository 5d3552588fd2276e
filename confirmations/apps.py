from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps  # the module: its AdminConfig is not this app's


class ConfirmationsConfig(AppConfig):
    """Asking the person before any write: confirm.ask, codes, fingerprints."""

    name = "confirmations"
    verbose_name = "Confirmations"
    default_auto_field = "django.db.models.BigAutoField"


class AdminConfig(admin_apps.AdminConfig):
    """`django.contrib.admin`, its site (`admin.site`) being `confirmations.admin.AdminSite`."""

    default = False  # INSTALLED_APPS' "confirmations" still means ConfirmationsConfig
    default_site = "confirmations.admin.AdminSite"
