"""`{% consent_asked next as asking %}`: the login page's question when the owner comes from
a consent page (`oauth.consent.consent_asked`; the page is avenir_mcp/oauth/templates/oauth/sign_in.html)."""

from django import template

from avenir_mcp.oauth.consent import consent_asked

register = template.Library()
register.simple_tag(consent_asked)
