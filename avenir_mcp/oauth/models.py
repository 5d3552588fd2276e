"""Rows of the OAuth sign-in: registered clients, the owner's grants, their codes and tokens.

A client registers itself (RFC 7591); the owner, logged in, allows it once on the consent
page, which issues a single-use authorization code; exchanging the code creates a grant (the
owner's consent, as the admin shows and revokes it) with a short-lived access token and a
refresh token. Each refresh rotates the refresh token; presenting a rotated one again, or a
code twice, revokes the whole grant (RFC 6749 §4.1.2, §10.4). Revoking a grant or a client
invalidates every token under it.

As for `tokens.models.McpToken`, only SHA-256 hashes of secrets are stored: client secrets,
codes, access and refresh tokens.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from avenir_mcp.tokens.models import TOOLSETS_HELP, TOOLSETS_LENGTH, hash_token
from avenir_mcp.values.toolsets import stored_toolsets

SCOPE_READ = "plans:read"
SCOPE_WRITE = "plans:write"
SCOPES = (SCOPE_READ, SCOPE_WRITE)
"""What a client may ask for: reading the plans, or reading them and proposing changes (each
change still previewed and confirmed by the person). They map to today's read-only and
read-write MCP tokens."""

REGISTRATION_WINDOW = timedelta(minutes=10)
"""Client registrations are counted per address in windows this long (`oauth.registration`)."""

CODE_LIFETIME = timedelta(minutes=5)
ACCESS_TOKEN_LIFETIME = timedelta(hours=1)
REFRESH_TOKEN_LIFETIME = timedelta(days=30)

# Prefixes say what a secret is when one turns up in a log or a paste; static tokens are `avm_`.
_CODE_PREFIX = "avc_"
ACCESS_TOKEN_PREFIX = "avo_"
_REFRESH_TOKEN_PREFIX = "avr_"


def new_secret(prefix: str) -> str:
    """A secret of 256 random bits (RFC 6749 §10.10 asks at least 128 for codes)."""
    return prefix + secrets.token_urlsafe(32)


def prune_expired() -> None:
    """Forget codes and tokens expired for a day: they can no longer be used, and a replayed
    one is refused as unknown. Runs on each consent and refresh (one DELETE each, indexed)."""
    cutoff = timezone.now() - timedelta(days=1)
    OAuthCode.objects.filter(expires_at__lt=cutoff).delete()
    OAuthToken.objects.filter(expires_at__lt=cutoff).delete()


def scope_text(scopes: list[str] | tuple[str, ...]) -> str:
    """Scopes as OAuth writes them: space-separated, in a stable order."""
    return " ".join(scope for scope in SCOPES if scope in scopes)


class ActiveQuerySet(models.QuerySet):
    def active(self) -> ActiveQuerySet:
        return self.filter(revoked_at__isnull=True)


class OAuthClient(models.Model):
    """A client that registered itself (RFC 7591): Claude, ChatGPT, an IDE..."""

    client_id = models.CharField(max_length=64, unique=True, editable=False)
    name = models.CharField(max_length=200, help_text="The name the client gave itself.")
    secret_hash = models.CharField(max_length=64, blank=True, editable=False)
    redirect_uris = models.JSONField(editable=False, help_text="Where codes may be sent, exactly.")
    registration = models.JSONField(editable=False, help_text="The metadata as registered (no secret).")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ActiveQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "OAuth client"

    def __str__(self) -> str:
        return self.name

    def secret_matches(self, presented: str) -> bool:
        return bool(self.secret_hash) and secrets.compare_digest(self.secret_hash, hash_token(presented))

    def revoke(self) -> None:
        """Refuse the client from now on, with every grant it holds."""
        now = timezone.now()
        with transaction.atomic():
            OAuthClient.objects.filter(pk=self.pk, revoked_at__isnull=True).update(revoked_at=now)
            self.grants.filter(revoked_at__isnull=True).update(revoked_at=now)


class OAuthGrant(models.Model):
    """The owner's consent to one client, and what its tokens may do."""

    client = models.ForeignKey(OAuthClient, on_delete=models.CASCADE, related_name="grants")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    scope = models.CharField(max_length=100, help_text="Granted scopes, space-separated.")
    resource = models.CharField(max_length=500, help_text="The only resource its tokens are valid for.")
    toolsets = models.CharField(max_length=TOOLSETS_LENGTH, blank=True, default="", help_text=TOOLSETS_HELP)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ActiveQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "OAuth grant"

    def __str__(self) -> str:
        return f"{self.client.name} ({self.scope})"

    @property
    def read_only(self) -> bool:
        return SCOPE_WRITE not in self.scope.split()

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def chosen_toolsets(self) -> frozenset[str] | None:
        """The toolsets its tokens are limited to; None: not limited (docs/conventions.md#toolsets)."""
        return stored_toolsets(self.toolsets)

    def revoke(self) -> None:
        """Refuse every access and refresh token of this grant from now on."""
        OAuthGrant.objects.filter(pk=self.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())

    def issue_tokens(self, scopes: list[str]) -> tuple[str, str]:
        """A new access token and refresh token for `scopes` (within the grant's); returns
        their plaintexts, which are never stored."""
        access, refresh = new_secret(ACCESS_TOKEN_PREFIX), new_secret(_REFRESH_TOKEN_PREFIX)
        now = timezone.now()
        scope = scope_text(scopes)
        OAuthToken.objects.bulk_create(
            [
                OAuthToken(
                    grant=self,
                    kind=OAuthToken.Kind.ACCESS,
                    token_hash=hash_token(access),
                    scope=scope,
                    expires_at=now + ACCESS_TOKEN_LIFETIME,
                ),
                OAuthToken(
                    grant=self,
                    kind=OAuthToken.Kind.REFRESH,
                    token_hash=hash_token(refresh),
                    scope=scope,
                    expires_at=now + REFRESH_TOKEN_LIFETIME,
                ),
            ]
        )
        return access, refresh


class OAuthCode(models.Model):
    """A single-use authorization code, issued when the owner allows a client."""

    code_hash = models.CharField(max_length=64, unique=True)
    client = models.ForeignKey(OAuthClient, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    scope = models.CharField(max_length=100)
    resource = models.CharField(max_length=500)
    code_challenge = models.CharField(max_length=128)
    redirect_uri = models.CharField(max_length=2000)
    redirect_uri_provided_explicitly = models.BooleanField(default=True)
    expires_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)
    grant = models.ForeignKey(
        OAuthGrant, null=True, blank=True, on_delete=models.CASCADE, related_name="+", help_text="Once used."
    )

    @classmethod
    def issue(cls, **fields: object) -> str:
        """Store a code (its hash) for the consent just given; returns the plaintext."""
        prune_expired()
        plaintext = new_secret(_CODE_PREFIX)
        cls.objects.create(
            code_hash=hash_token(plaintext), expires_at=timezone.now() + CODE_LIFETIME, **fields
        )
        return plaintext

    def exchange(self) -> tuple[OAuthGrant, str, str] | None:
        """Use the code: a new grant with its first tokens, or None when it was used already.

        The conditional update claims the code exactly once, also under concurrent requests.
        """
        with transaction.atomic():
            unused = OAuthCode.objects.filter(pk=self.pk, used_at__isnull=True)
            claimed = unused.update(used_at=timezone.now())
            if not claimed:
                return None
            grant = OAuthGrant.objects.create(
                client_id=self.client_id, owner_id=self.owner_id, scope=self.scope, resource=self.resource
            )
            OAuthCode.objects.filter(pk=self.pk).update(grant=grant)
            access, refresh = grant.issue_tokens(self.scope.split())
        return grant, access, refresh


class OAuthToken(models.Model):
    """An access or refresh token of a grant."""

    class Kind(models.TextChoices):
        ACCESS = "access", "access token"
        REFRESH = "refresh", "refresh token"

    grant = models.ForeignKey(OAuthGrant, on_delete=models.CASCADE, related_name="tokens")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    scope = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)
    # A refresh token is used once (rotated); an access token is retired when its grant refreshes.
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "OAuth token"

    @property
    def scopes(self) -> list[str]:
        return self.scope.split()

    def rotate(self, scopes: list[str]) -> tuple[str, str] | None:
        """Use this refresh token: new tokens for `scopes`, the grant's older access tokens
        retired; None when it was used already."""
        with transaction.atomic():
            now = timezone.now()
            claimed = OAuthToken.objects.filter(pk=self.pk, retired_at__isnull=True).update(retired_at=now)
            if not claimed:
                return None
            OAuthToken.objects.filter(
                grant_id=self.grant_id, kind=self.Kind.ACCESS, retired_at__isnull=True
            ).update(retired_at=now)
            tokens = self.grant.issue_tokens(scopes)
        prune_expired()
        return tokens


class RegistrationCount(models.Model):
    """How many times one client address called /register in one window (`REGISTRATION_WINDOW`,
    aligned on the epoch). In the database, so every process serving it counts together."""

    address = models.CharField(max_length=64)
    window_start = models.DateTimeField(db_index=True)
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["address", "window_start"], name="oauth_one_count_per_window")
        ]
