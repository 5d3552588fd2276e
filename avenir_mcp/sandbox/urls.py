"""The sandbox's URLs, under /sandbox/.

- `v1/...`: YNAB's API v1 (`sandbox.api`).
- `_requests`, `_faults`: the test and demo hooks (`sandbox.testing_views`).
"""

from django.urls import include, path

urlpatterns = [
    path("", include("avenir_mcp.sandbox.testing_urls")),
    path("v1/", include("avenir_mcp.sandbox.api.urls")),
]
