"""Settings for avenir-mcp: the only module that reads the environment.

Every variable is listed, with its default, in `.env.example`. Values are read through the
small helpers below, which refuse a malformed value at start-up instead of guessing.
A fresh checkout runs on SQLite and the embedded YNAB sandbox with no configuration.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from avenir_mcp.avenir_site.home_folder import env_file, home_of, is_checkout
from avenir_mcp.values.toolsets import toolsets_named

# The folder that holds the package `avenir_mcp`: a checkout's root, or an installed copy's site-packages.
BASE_DIR = Path(__file__).resolve().parents[2]
# A clone of the repository (make, manage.py), else a copy installed from the wheel (`avenir-mcp`).
IS_CHECKOUT = is_checkout(BASE_DIR)

# An optional .env: a checkout's next to manage.py, an installed copy's in its home folder
# (avenir_mcp/avenir_site/home_folder.py); real environment variables win over it.
load_dotenv(env_file(BASE_DIR, os.environ.get("AVENIR_MCP_HOME", "").strip()), override=False)

# Machine-local state (the generated secret key, the plan store; never committed): a checkout's
# .local/, an installed copy's user data folder, or AVENIR_MCP_HOME (avenir_mcp/avenir_site/home_folder.py).
_home = home_of(BASE_DIR, os.environ.get("AVENIR_MCP_HOME", "").strip())
LOCAL_DIR = _home.folder

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """The variable's value; `default` when it is unset or blank (`NAME=` in .env means the default)."""
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be 1 or 0 (or true/false), not {raw!r}.")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def _local_secret_key() -> str:
    """A random key kept in LOCAL_DIR, so no copy ever runs on a published default.

    Created readable by its owner only (0600 in a 0700 folder) from the start, whatever the umask,
    and whole: written under a name of this process's own, then linked into place, so a process
    starting at the same moment reads one key or the other, never half of one, and both keep the
    first linked.
    """
    path = LOCAL_DIR / "secret_key"
    if not path.exists():
        LOCAL_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = LOCAL_DIR / f"secret_key.{os.getpid()}"
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            file.write(secrets.token_urlsafe(50))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process linked its key first: that one is the key
        finally:
            draft.unlink()
    return path.read_text().strip()


# --- Django core -------------------------------------------------------------------------

SECRET_KEY = env_str("DJANGO_SECRET_KEY") or _local_secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "avenir_mcp.avenir_site",  # first, so its runserver (ASGI under uvicorn) wins over Django's
    # django.contrib.admin as the owner's console (avenir_mcp/avenir_site/console.py)
    "avenir_mcp.avenir_site.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "ninja",  # so /api/docs uses the Swagger UI files bundled with django-ninja, not a CDN
    "avenir_mcp.sandbox",
    "avenir_mcp.ynab_requests",
    "avenir_mcp.tokens",
    "avenir_mcp.oplog",
    "avenir_mcp.tools",
    "avenir_mcp.confirmations",
    "avenir_mcp.oauth",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "avenir_mcp.avenir_site.urls"
ASGI_APPLICATION = "avenir_mcp.avenir_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{_home.database}",
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The sandbox and the MCP service share one process and one file: WAL lets readers run
    # beside a writer, IMMEDIATE transactions take the write lock up front (no deadlock on
    # upgrade), and the timeout waits for a busy writer instead of failing at once. The file and
    # its -wal/-shm are kept 0600 at each connection (avenir_mcp/avenir_site/private_database.py).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not memory, so the test server's threads share it; one per run, so runs can overlap.
    LOCAL_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    DATABASES["default"]["TEST"] = {"NAME": str(LOCAL_DIR / f"test_db_{os.getpid()}.sqlite3")}

# REDIS_URL: unset, one process serves and keeps what must be one (pending confirmations and
# codes, the YNAB hour, plans' freshness, settling's turn) in its own memory; set, that state
# lives in Redis, which every worker and process of the service sees, through Django's cache
# framework (django-redis) under the alias `shared` (avenir_mcp/shared_state/,
# docs/architecture.md#shared-state).
REDIS_URL = env_str("REDIS_URL")
CACHES: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}
if REDIS_URL:
    CACHES["shared"] = {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "avenir-mcp",
        "TIMEOUT": None,  # each key says how long it lives
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")  # "today" and "current month" for tools follow it
USE_I18N = True
USE_TZ = True
# Dates read `2026-12-03 14:26` on every page, in TIME_ZONE (avenir_mcp/avenir_site/formats/en/formats.py).
FORMAT_MODULE_PATH = ["avenir_mcp.avenir_site.formats"]

STATIC_URL = "static/"
WHITENOISE_USE_FINDERS = True  # serve app static files without a collectstatic step
WHITENOISE_AUTOREFRESH = DEBUG

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # A Host outside ALLOWED_HOSTS: one WARNING line naming it, not an ERROR and a traceback.
    "filters": {"one_warning_line": {"()": "avenir_mcp.oauth.front_door.OneWarningLine"}},
    # stderr only: stdout belongs to the MCP stdio transport.
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stderr"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    "loggers": {
        # Every YNAB request is already recorded (YnabRequest); httpx2's per-request INFO line is noise.
        "httpx2": {"level": "WARNING"},
        "django.security.DisallowedHost": {"filters": ["one_warning_line"]},
    },
}

# --- Where YNAB is -------------------------------------------------------------------------

YNAB_API_KEY = env_str("YNAB_API_KEY")
PORT = env_int("PORT", 8000, minimum=1)  # where make run / runserver listen
# Address of this service as the YNAB client reaches it when it talks to the sandbox, and as the
# OAuth metadata, the printed client set-ups and the home page give it.
AVENIR_MCP_SELF_URL_GIVEN = bool(env_str("AVENIR_MCP_SELF_URL"))  # else it follows the port served
AVENIR_MCP_SELF_URL = env_str("AVENIR_MCP_SELF_URL", f"http://127.0.0.1:{PORT}")
# Neither it nor PORT set (here or in .env): a command that serves nothing (create_mcp_token)
# cannot know the port another process serves, so what it prints says it assumed 8000.
AVENIR_MCP_SELF_URL_ASSUMED = not AVENIR_MCP_SELF_URL_GIVEN and not env_str("PORT")
AVENIR_MCP_YNAB_URL = env_str("AVENIR_MCP_YNAB_URL") or (
    "https://api.ynab.com/v1" if YNAB_API_KEY else f"{AVENIR_MCP_SELF_URL}/sandbox/v1"
)
# No token and no URL given: YNAB is this service's own sandbox (`mcp_stdio` then serves it
# in its own process, so no web server needs to run).
YNAB_IS_EMBEDDED_SANDBOX = not YNAB_API_KEY and not env_str("AVENIR_MCP_YNAB_URL")
# Requests an hour this service may send to YNAB (reads stop 20 short). None (unset): 180
# against YNAB, not paced against a sandbox; 0: never paced.
AVENIR_MCP_YNAB_HOURLY_LIMIT = (
    env_int("AVENIR_MCP_YNAB_HOURLY_LIMIT", 0) if env_str("AVENIR_MCP_YNAB_HOURLY_LIMIT") else None
)
# A read within this many seconds of its plan's last sync sends no request (0: always a delta).
AVENIR_MCP_FRESHNESS_SECONDS = env_int("AVENIR_MCP_FRESHNESS_SECONDS", 15)
# Where the service keeps its files: each plan's stored snapshot (plans/), loaded at start-up.
# Files there are 0600 in 0700 folders (avenir_mcp/ynab_client/store.py makes them so, whatever the umask).
AVENIR_MCP_DATA_DIR = Path(env_str("AVENIR_MCP_DATA_DIR") or LOCAL_DIR)

# --- The sandbox ---------------------------------------------------------------------------

SANDBOX_TOKEN = env_str("SANDBOX_TOKEN", "sandbox")
# Emulate YNAB's 200 requests per rolling hour per token (0 turns the emulation off).
SANDBOX_RATE_LIMIT = env_int("SANDBOX_RATE_LIMIT", 0)
# Expose /sandbox/_faults so tests and demos can inject errors, delays and dropped answers.
SANDBOX_FAULTS_ENABLED = env_bool("SANDBOX_FAULTS", False)

# --- The MCP service -----------------------------------------------------------------------

AVENIR_MCP_WRITE = env_bool("AVENIR_MCP_WRITE", False)
# The toolsets offered (docs/conventions.md#toolsets): comma-separated names, blank for all; plans
# and operations always. A token or OAuth grant may narrow them further, never widen them.
try:
    AVENIR_MCP_TOOLSETS = toolsets_named(env_str("AVENIR_MCP_TOOLSETS"))
except ValueError as unknown_toolset:
    raise ImproperlyConfigured(f"AVENIR_MCP_TOOLSETS: {unknown_toolset}") from None
# The address MCP clients use (https://mcp.example.com behind a proxy): the OAuth issuer, and
# /mcp under it the only resource its tokens are for. Empty: the local address, AVENIR_MCP_SELF_URL.
AVENIR_MCP_PUBLIC_URL = env_str("AVENIR_MCP_PUBLIC_URL").rstrip("/")
if AVENIR_MCP_PUBLIC_URL:
    _public = urlsplit(AVENIR_MCP_PUBLIC_URL)
    _loopback = _public.hostname in {"127.0.0.1", "::1", "localhost"}
    if (_public.scheme != "https" and not (_public.scheme == "http" and _loopback)) or (
        _public.path or _public.query or _public.fragment or not _public.hostname
    ):
        raise ImproperlyConfigured(
            "AVENIR_MCP_PUBLIC_URL must be an https origin without a path, like https://mcp.example.com "
            f"(http only on a loopback address), not {AVENIR_MCP_PUBLIC_URL!r}."
        )
# Client registrations (OAuth, POST /register) one address may make per 10 minutes; past it, 429.
AVENIR_MCP_REGISTRATION_LIMIT = env_int("AVENIR_MCP_REGISTRATION_LIMIT", 10, minimum=1)
AVENIR_MCP_REQUIRE_ELICITATION = env_bool("AVENIR_MCP_REQUIRE_ELICITATION", False)
# How long an in-call question (protocols before 2026-07-28) waits for the person; no answer
# by then counts as dismissed.
AVENIR_MCP_ELICITATION_TIMEOUT = env_int("AVENIR_MCP_ELICITATION_TIMEOUT", 300, minimum=1)
AVENIR_MCP_DEFAULT_PLAN = env_str("AVENIR_MCP_DEFAULT_PLAN")
# Seconds between background rounds settling operations left pending or unknown (0: only at start-up).
AVENIR_MCP_SETTLE_SECONDS = env_int("AVENIR_MCP_SETTLE_SECONDS", 60)
# Seconds after a request's answer was lost before its operation is judged from YNAB's state: a
# request that timed out may still be processed by YNAB meanwhile (twice the client's timeout).
AVENIR_MCP_SETTLE_AFTER_SECONDS = env_int("AVENIR_MCP_SETTLE_AFTER_SECONDS", 60)
# Where a confirmation code goes: "agent" (in the tool result, docs/confirmation.md#confirmation-codes) or
# "person" (only on the admin's pending confirmations page, so the agent cannot confirm on its own).
AVENIR_MCP_CODES_TO = env_str("AVENIR_MCP_CODES_TO", "agent").lower() or "agent"
if AVENIR_MCP_CODES_TO not in {"agent", "person"}:
    raise ImproperlyConfigured(f"AVENIR_MCP_CODES_TO must be agent or person, not {AVENIR_MCP_CODES_TO!r}.")


def _request_state_keys() -> list[str]:
    """Keys that seal MCP request_state; derived from the secret key unless given.

    Each key must be at least 32 bytes; the first seals, every key unseals (rotation).
    """
    given = env_list("AVENIR_MCP_REQUEST_STATE_KEYS", [])
    for key in given:
        if len(key.encode()) < 32:
            raise ImproperlyConfigured("Each AVENIR_MCP_REQUEST_STATE_KEYS entry needs 32 bytes or more.")
    derived = hashlib.sha256(f"avenir-mcp request_state {SECRET_KEY}".encode()).hexdigest()
    return given or [derived]


AVENIR_MCP_REQUEST_STATE_KEYS = _request_state_keys()
