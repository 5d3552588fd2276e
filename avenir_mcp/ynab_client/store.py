"""The plan store: each cached plan kept on disk, so a new process starts warm.

After a sync the plan cache hands its snapshot to `save` (at most once a minute per plan,
and at shutdown, `flush`); a new process (a restart, every stdio session) lists the stored
plans of its YNAB and key (`stored_plans`, by their headers: nothing is loaded), loads the
most recently used one in the background and any other when a call first needs it (`load`;
see `ynab_client.cache`), and its first read of a plan then costs one delta request
(`last_knowledge_of_server`), never a second full export. A plan is used when a call reads or
writes it: the cache says so (`mark_used`, at most once a minute a plan) and the file's
modification time keeps it (a save is a use too), so the process after knows which plan came
last.

Where: one file a plan under `<AVENIR_MCP_DATA_DIR>/plans/` (default `.local/plans/`),
named by a hash of the YNAB URL and the plan id, readable by the service's user only (0600
in 0700 folders, whatever the umask). A file holds a one-line JSON header (format, YNAB URL,
token tag, plan id, server_knowledge, the aliases such as `last-used` that named the plan,
the payload's inflated size, and the seal) and the payload: the snapshot, indexes included,
pickled then zlib-compressed (a 50,000-transaction plan: 3.7 MB, 9.3 MB inflated; loading it
skips the parsing and indexing a full export needs). The key itself is never stored: the
token tag is a hash.

The seal is an HMAC-SHA256 of the header and the payload under a key derived from
`SECRET_KEY` for this store alone, compared in constant time: a file this service did not
write (forged, or written under another secret key) is never unpickled.

Never a wrong answer: a file that is unreadable, from another format (the entities'
fields are part of the format, so a changed class makes old files unusable on purpose),
for another YNAB key, for another URL or plan, whose seal does not match, or that states or
inflates past `MAX_INFLATED_BYTES`, is ignored with one log line, and the plan is loaded in
full. Inflating stops one byte past the size the header states, so a small file cannot
inflate into a large allocation. Unpickling accepts only the plan's own classes and
`datetime` types, nothing that could run code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import hmac
import io
import json
import logging
import os
import pickle
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.crypto import salted_hmac

from avenir_mcp.ynab_client.snapshot import (
    Account,
    Category,
    CategoryGroup,
    CurrencyFormat,
    Month,
    Payee,
    PayeeLocation,
    PersistentMap,
    PlanSettings,
    PlanSnapshot,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)

logger = logging.getLogger(__name__)

VERSION = 2  # 2: the header states the inflated size and is sealed with the payload (HMAC)
SAVE_INTERVAL_SECONDS = 60.0
"""A plan changed by a sync is stored again at most this often (and at shutdown)."""
SUFFIX = ".plan"
MAX_INFLATED_BYTES = 128 * 1024 * 1024
"""A stored plan inflating past this is not loaded (nor inflated): a 50,000-transaction plan
inflates to 9.3 MB (bench/harness.py's heavy plan, measured), so this is room for about 14 times
that; a plan beyond it is loaded in full from YNAB instead."""
_MAGIC = b"avenir-mcp plan snapshot\n"
_SEAL_SALT = "avenir-mcp ynab_client.store plan file seal"

# Every class a stored snapshot holds: their fields make part of the format.
_CLASSES = (
    Account,
    CategoryGroup,
    Category,
    Month,
    Payee,
    PayeeLocation,
    Transaction,
    Subtransaction,
    ScheduledTransaction,
    ScheduledSubtransaction,
    CurrencyFormat,
    PlanSettings,
    PlanSnapshot,
)


def _fields(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))


def _format() -> str:
    """The format version and the stored classes' places and fields: a changed or moved class
    changes it (a pickle names each class by its module)."""
    shape = ";".join(f"{cls.__module__}.{cls.__name__}:{','.join(_fields(cls))}" for cls in _CLASSES)
    return f"{VERSION}:{hashlib.sha256(shape.encode()).hexdigest()[:16]}"


FORMAT = _format()


class StoreUnusable(Exception):
    """Why a stored snapshot is not used (said in the log line)."""


# --- the file for a plan ----------------------------------------------------------------------


def store_dir() -> Path:
    return Path(settings.AVENIR_MCP_DATA_DIR) / "plans"


def path_for(base_url: str, plan_id: str) -> Path:
    """The file of a plan at a YNAB URL (whatever the key: a file for another key is ignored)."""
    name = hashlib.sha256(f"{base_url}\n{plan_id}".encode()).hexdigest()[:32]
    return store_dir() / f"{name}{SUFFIX}"


def save(base_url: str, token_tag: str, snapshot: PlanSnapshot, aliases: Sequence[str] = ()) -> Path:
    """Write `snapshot` to its file, atomically (a reader sees the old file or the new one).

    `aliases`: the plan ids YNAB resolves (`last-used`) that named this plan when it was read.
    """
    payload, size = _payload(snapshot)
    header: dict[str, Any] = {
        "format": FORMAT,
        "base_url": base_url,
        "token_tag": token_tag,
        "plan_id": snapshot.plan_id,
        "server_knowledge": snapshot.server_knowledge,
        "saved_at": time.time(),
        "aliases": list(aliases),
        "size": size,
    }
    header["seal"] = _seal(header, payload)
    path = path_for(base_url, snapshot.plan_id)
    _private_folder(path.parent.parent)  # the data folder, then its plans/
    _private_folder(path.parent)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".saving-", suffix=SUFFIX)  # 0600, any umask
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(_MAGIC + json.dumps(header).encode() + b"\n" + payload)
        _stamp(temporary)  # a save is a use
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _private_folder(path: Path) -> None:
    """Create `path` (and any missing parent) or make it what it must be: 0700, whatever the umask
    (`mkdir`'s mode is narrowed by the umask, never widened; an existing folder keeps its mode)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)


def load(base_url: str, token_tag: str, plan_id: str) -> PlanSnapshot | None:
    """The stored snapshot of a plan, or None (no file; an unusable one is logged once)."""
    path = path_for(base_url, plan_id)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        logger.warning(
            "Stored plan %s ignored (%s cannot be read: %s); loading it in full.", plan_id, path, exc
        )
        return None
    try:
        header, payload = _header_and_payload(data, base_url, token_tag, plan_id)
        snapshot = _unpickle(_inflated(payload, header["size"]))
        if (snapshot.plan_id, snapshot.server_knowledge) != (plan_id, header["server_knowledge"]):
            raise StoreUnusable("its content is not the plan its header names")
    except StoreUnusable as unusable:
        logger.warning("Stored plan %s ignored (%s: %s); loading it in full.", plan_id, path, unusable)
        return None
    except Exception as exc:  # any damage: a wrong answer is worse than a full export
        logger.warning(
            "Stored plan %s ignored (%s is unreadable: %s: %s); loading it in full.",
            plan_id,
            path,
            type(exc).__name__,
            exc,
        )
        return None
    return snapshot


@dataclass(frozen=True, slots=True)
class StoredPlan:
    """A stored plan's header: its id, and the aliases (`last-used`) that named it."""

    plan_id: str
    aliases: tuple[str, ...]


def stored_plans(base_url: str, token_tag: str) -> list[StoredPlan]:
    """The plans stored for this YNAB URL and key (by their headers), the most recently used
    first (saved or marked used last: `mark_used`)."""
    found: list[tuple[float, StoredPlan]] = []
    for path in _files():
        try:
            with path.open("rb") as file:
                if file.read(len(_MAGIC)) != _MAGIC:
                    continue
                header = json.loads(file.readline())
                used_at = os.fstat(file.fileno()).st_mtime
        except (OSError, ValueError):
            continue  # said when the plan itself is loaded, if it ever is
        if isinstance(header, dict) and (header.get("base_url"), header.get("token_tag")) == (
            base_url,
            token_tag,
        ):
            aliases = tuple(str(alias) for alias in header.get("aliases") or ())
            found.append((used_at, StoredPlan(str(header.get("plan_id")), aliases)))
    return [plan for _, plan in sorted(found, key=lambda item: item[0], reverse=True)]


def mark_used(base_url: str, plan_id: str) -> None:
    """Note that a call used the plan now (its file's modification time), so the next process
    loads it first. A plan not stored (yet) has nothing to mark; a mark that fails changes only
    which plan the next process loads first, so it is not said."""
    with contextlib.suppress(OSError):
        _stamp(path_for(base_url, plan_id))


def _stamp(path: Path | str) -> None:
    """The file's modification time set to now, to the nanosecond (the file system's own stamp
    may be as coarse as a clock tick, so two uses in one tick would tie)."""
    now = time.time_ns()
    os.utime(path, ns=(now, now))


def _files() -> Iterator[Path]:
    return store_dir().glob(f"*{SUFFIX}")  # none when the folder is missing or not readable


def _header_and_payload(
    data: bytes, base_url: str, token_tag: str, plan_id: str
) -> tuple[dict[str, Any], bytes]:
    if not data.startswith(_MAGIC):
        raise StoreUnusable("not a stored plan")
    line, _, payload = data[len(_MAGIC) :].partition(b"\n")
    header = json.loads(line)
    if header.get("format") != FORMAT:
        raise StoreUnusable(f"format {header.get('format')}, this version reads {FORMAT}")
    if header.get("token_tag") != token_tag:
        raise StoreUnusable("stored for another YNAB key")
    if (header.get("base_url"), header.get("plan_id")) != (base_url, plan_id):
        raise StoreUnusable("stored for another YNAB URL or plan")
    size = header.get("size")
    if not isinstance(size, int) or not 0 <= size <= MAX_INFLATED_BYTES:
        raise StoreUnusable(
            f"it states {size!r} bytes inflated, beyond the {MAX_INFLATED_BYTES:,} a plan may hold"
        )
    if not hmac.compare_digest(_seal(header, payload).encode(), str(header.get("seal")).encode()):
        raise StoreUnusable("its seal does not match (damaged, or not written by this service)")
    return header, payload


def _seal(header: dict[str, Any], payload: bytes) -> str:
    """HMAC-SHA256 of the header (but its seal) and the payload, keyed from `SECRET_KEY` with a
    salt naming this store (so the key seals nothing else)."""
    sealing = salted_hmac(_SEAL_SALT, b"", secret=settings.SECRET_KEY, algorithm="sha256")
    fields = {name: value for name, value in header.items() if name != "seal"}
    sealing.update(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode())
    sealing.update(b"\n")
    sealing.update(payload)
    return sealing.hexdigest()


# --- the payload --------------------------------------------------------------------------------


def _payload(snapshot: PlanSnapshot) -> tuple[bytes, int]:
    """The snapshot pickled whole, indexes included (so loading does not rebuild them), compressed;
    and its size before compression.

    Entities shared between maps and indexes are pickled once and shared again when loaded;
    each is pickled as its class and field values (rebuilt by calling the class, much faster
    than dataclasses' own pickling); `PersistentMap`s as their entries (`__reduce__`).
    """
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _REDUCERS
    with _no_gc():
        pickler.dump(snapshot)
    return zlib.compress(buffer.getbuffer(), 1), buffer.tell()


# What pickle calls to reduce an entity: (the callable that rebuilds it, its arguments).
Reducer = Callable[[object], tuple[type, tuple[Any, ...]]]


def _reducer(cls: type) -> Reducer:
    values = attrgetter(*_fields(cls))  # every class has several fields: a tuple of their values
    return lambda entity: (cls, values(entity))


_REDUCERS: dict[type, Reducer] = {cls: _reducer(cls) for cls in _CLASSES if cls is not PlanSnapshot}


_ALLOWED = frozenset(
    {("datetime", name) for name in ("date", "datetime", "timezone", "timedelta")}
    | {(cls.__module__, cls.__name__) for cls in (*_CLASSES, PersistentMap)}
)


class _PlanUnpickler(pickle.Unpickler):
    """Unpickles a snapshot: plain data, the plan's own classes and `datetime` types; refuses
    anything else, so a tampered file cannot make it call anything."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise StoreUnusable(f"it names {module}.{name}, which a stored plan never holds")
        return super().find_class(module, name)


def _inflated(payload: bytes, size: int) -> bytes:
    """The payload inflated, if it inflates to exactly `size` bytes (the header's, within the cap).

    Inflating stops one byte past `size`: a payload that would go on is refused having cost at
    most that much memory, whatever it would have grown to.
    """
    inflater = zlib.decompressobj()
    pickled = inflater.decompress(payload, size + 1)
    if len(pickled) != size or not inflater.eof:
        raise StoreUnusable(f"it does not inflate to the {size:,} bytes its header states")
    return pickled


def _unpickle(pickled: bytes) -> PlanSnapshot:
    with _no_gc():  # tens of thousands of new objects, no cycles: collecting meanwhile is waste
        snapshot = _PlanUnpickler(io.BytesIO(pickled)).load()
    if not isinstance(snapshot, PlanSnapshot):
        raise StoreUnusable(f"it holds a {type(snapshot).__name__}, not a plan")
    return snapshot


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# --- when to save -----------------------------------------------------------------------------


class Saver:
    """Saves changed plans off the event loop: at once the first time, then at most once a
    `SAVE_INTERVAL_SECONDS` per plan; `flush()` saves what is left (at shutdown)."""

    def __init__(self, interval: float = SAVE_INTERVAL_SECONDS) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str, str], tuple[PlanSnapshot, tuple[str, ...]]] = {}
        self._saved_at: dict[tuple[str, str, str], float] = {}
        self._saving: dict[tuple[str, str, str], threading.Thread] = {}

    def plan_changed(
        self, base_url: str, token_tag: str, snapshot: PlanSnapshot, aliases: Sequence[str] = ()
    ) -> None:
        """A sync changed `snapshot`: save it now (in a thread) or with a later sync or flush."""
        key = (base_url, token_tag, snapshot.plan_id)
        with self._lock:
            last = self._saved_at.get(key)
            if key in self._saving or (last is not None and time.monotonic() - last < self.interval):
                self._pending[key] = (snapshot, tuple(aliases))  # for a later sync, or the flush
                return
            self._pending.pop(key, None)  # older than this one
            self._saved_at[key] = time.monotonic()
            thread = self._saving[key] = threading.Thread(
                target=self._save, args=(key, snapshot, tuple(aliases)), name="plan-store-save", daemon=True
            )
        thread.start()

    def wait(self) -> None:
        """Return once the saves under way are done."""
        with self._lock:
            running = list(self._saving.values())
        for thread in running:
            thread.join()

    def flush(self) -> None:
        """Save every plan still waiting, after the saves under way (at shutdown; blocks)."""
        self.wait()
        with self._lock:
            pending, self._pending = self._pending, {}
            self._saved_at.update(dict.fromkeys(pending, time.monotonic()))
        for key, (snapshot, aliases) in pending.items():
            self._save(key, snapshot, aliases)

    def _save(self, key: tuple[str, str, str], snapshot: PlanSnapshot, aliases: tuple[str, ...]) -> None:
        try:
            save(key[0], key[1], snapshot, aliases)
        except Exception:
            logger.exception("Could not store plan %s (the next process will load it in full)", key[2])
        finally:
            with self._lock:
                if self._saving.get(key) is threading.current_thread():
                    del self._saving[key]
