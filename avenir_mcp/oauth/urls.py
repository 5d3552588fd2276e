"""The consent page; the OAuth endpoints themselves are served by `oauth.endpoints` (asgi.py)."""

from django.urls import path

from avenir_mcp.oauth.consent import consent

app_name = "oauth"
urlpatterns = [path("consent", consent, name="consent")]
