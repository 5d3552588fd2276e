"""Where the service says it is: the issuer, the protected resource (/mcp) and their metadata.

Everything follows `AVENIR_MCP_PUBLIC_URL` (the address clients use, behind HTTPS when the
service is reached from the internet); unset, the local address `AVENIR_MCP_SELF_URL`.
Clients compare these strings exactly (RFC 8414 §3.3, RFC 8707), so they are built in one place.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

MCP_PATH = "/mcp"
AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server"
PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource" + MCP_PATH


def public_url() -> str:
    """The service's public origin, without a trailing slash: the OAuth issuer."""
    return (settings.AVENIR_MCP_PUBLIC_URL or settings.AVENIR_MCP_SELF_URL).rstrip("/")


def resource_url() -> str:
    """This service's MCP endpoint: the only resource its tokens are valid for (RFC 8707)."""
    return public_url() + MCP_PATH


def resource_metadata_url() -> str:
    """The Protected Resource Metadata of /mcp (RFC 9728 §3.1), named in every 401."""
    return public_url() + PROTECTED_RESOURCE_METADATA_PATH


def is_this_resource(resource: str) -> bool:
    """Whether a resource indicator names this service's /mcp: scheme and host in any case, a
    trailing slash aside, no query or fragment (RFC 8707 §2)."""
    given, ours = urlsplit(resource), urlsplit(resource_url())
    return (
        given.scheme.lower() == ours.scheme.lower()
        and given.netloc.lower() == ours.netloc.lower()
        and given.path.rstrip("/") == ours.path
        and not given.query
        and not given.fragment
    )
