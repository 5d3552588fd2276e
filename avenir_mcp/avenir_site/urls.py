"""URL map: what runs where (/), the admin, the audit API (/api), the YNAB sandbox (/sandbox),
and the OAuth consent page (/oauth/consent).

/mcp is not here: asgi.py routes it to the MCP application before Django sees it.
"""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from avenir_mcp.avenir_site.api import api
from avenir_mcp.avenir_site.home import home

urlpatterns = [
    path("", home, name="home"),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("sandbox/", include("avenir_mcp.sandbox.urls")),
    path("oauth/", include("avenir_mcp.oauth.urls")),
    # Browsers ask every site for /favicon.ico; without one each page logs a 404 in the console.
    path("favicon.ico", RedirectView.as_view(url=static("avenir_site/favicon.svg"))),
]
