"""Routes of the sandbox's test hooks (filled in by the traffic work)."""

urlpatterns: list = []
