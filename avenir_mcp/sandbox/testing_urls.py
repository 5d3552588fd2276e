"""Routes of the sandbox's test and demo hooks (`sandbox.testing_views`), under /sandbox/."""

from __future__ import annotations

from django.urls import path

from avenir_mcp.sandbox import testing_views

urlpatterns = [
    path("_requests", testing_views.request_log, name="sandbox-requests"),
    path("_faults", testing_views.fault_list, name="sandbox-faults"),
]
