"""The sandbox's URLs (filled by the sandbox API)."""

urlpatterns: list = []
