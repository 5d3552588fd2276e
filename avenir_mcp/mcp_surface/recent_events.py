"""The recent events of /mcp's stateful sessions, kept so that a dropped stream can resume.

A proxy that cuts a long answer (60 to 100 s is a common limit) would otherwise lose a tool's
answer, for instance while the person decides on a question asked during the call
(docs/confirmation.md): with an event store the SDK sends every SSE event with an id (first a
priming event with empty data and a `retry` field), and a client whose stream ends without the
answer asks `GET /mcp` with `Last-Event-ID` and gets what it missed, then the rest
(docs/architecture.md#the-parts).

Kept in this process's memory only, which is enough because only one process serves stateful
sessions (several workers serve stateless /mcp, where no session exists to resume). Bounded two
ways: a stream is forgotten `keep_for` seconds after its last event (on the `now` clock, which a
test moves), and the events of all sessions together hold at most `max_bytes` of JSON, so large
tool results cannot grow the process without limit. Past that bound, answered streams go first,
whole, the least recently stored first: a stream whose answer is stored has ended, and is kept
only for a client that lost the answer's last bytes. A stream still waiting (for the person's
answer to a question asked in the call) loses events only when no answered stream is left.
4 MB: after `bench/reads.py` on a 50,000-transaction plan the service holds 264 MB, against 260
with no store at all; a 32 MB bound cost 67 MB there.

One session never replays another's events. The SDK names a stream after the JSON-RPC id of
the request it answers ("3"), so every session has a stream "3": each session gets a view of
its own (`for_session`), which files its streams under a random key and replays only events
filed under that key. Before a `GET /mcp` with `Last-Event-ID` reaches a view, the SDK (mcp
2.3.0) has checked that the `Mcp-Session-Id` names an open session and that the request's
credential is the one that opened it (else 404, `mcp_surface.http.with_principal`); it does not
look at the event id. Ours carry the view's random key, so they cannot be guessed, and an id
of another session replays nothing, as an unknown id does.
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import JSONRPCError, JSONRPCMessage, JSONRPCResponse, jsonrpc_message_adapter

KEEP_FOR_SECONDS = 10 * 60  # beyond the longest wait for a person's answer (5 minutes by default)
MAX_BYTES = 4 * 1024 * 1024
_EVENT_OVERHEAD = 64  # what an event costs beyond its JSON (ids, entries): a priming event is not free

_StreamKey = tuple[str, StreamId]  # (the session view's key, the SDK's stream id)
_Replay = tuple[StreamId, list[tuple[EventId, JSONRPCMessage]]]  # a stream, the events to resend


@dataclass
class _Event:
    stream: _StreamKey
    json: str | None  # None: a priming event, never replayed
    size: int


@dataclass
class _Stream:
    event_ids: deque[EventId] = field(default_factory=deque)
    last_stored: float = 0.0
    answered: bool = False  # the answer to its request is stored: the stream has ended


class RecentEvents:
    """The events of every session, in the order they were stored, within both bounds."""

    def __init__(
        self,
        *,
        keep_for: float = KEEP_FOR_SECONDS,
        max_bytes: int = MAX_BYTES,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.keep_for = keep_for
        self.max_bytes = max_bytes
        self.now = now
        self.size = 0  # bytes held, overheads included
        self._numbers = itertools.count(1)
        self._events: dict[EventId, _Event] = {}  # oldest first
        self._streams: OrderedDict[_StreamKey, _Stream] = OrderedDict()  # least recently stored first
        self._answered: OrderedDict[_StreamKey, None] = OrderedDict()  # the answered ones, in that order

    def for_session(self) -> SessionEvents:
        """A new session's view: its streams apart from every other session's."""
        return SessionEvents(self, secrets.token_urlsafe(16))

    def store(self, stream: _StreamKey, message: JSONRPCMessage | None) -> EventId:
        """Keep `message` as the next event of `stream`; its new id."""
        self._forget_expired()
        json = None if message is None else message.model_dump_json(by_alias=True, exclude_unset=True)
        event = _Event(stream, json, _EVENT_OVERHEAD + len(json or ""))
        event_id = f"{stream[0]}.{next(self._numbers)}"
        self._events[event_id] = event
        self.size += event.size
        kept = self._streams.pop(stream, None) or _Stream()
        kept.event_ids.append(event_id)
        kept.last_stored = self.now()
        kept.answered = kept.answered or isinstance(message, JSONRPCResponse | JSONRPCError)
        self._streams[stream] = kept  # now the most recently stored
        if kept.answered:
            self._answered.pop(stream, None)
            self._answered[stream] = None
        while self.size > self.max_bytes:
            if self._answered:
                self._forget_stream(next(iter(self._answered)))
            else:
                self._forget_oldest_event()
        return event_id

    def after(
        self, key: str, event_id: EventId
    ) -> tuple[StreamId, list[tuple[EventId, JSONRPCMessage]]] | None:
        """The stream of `event_id` and its messages stored after it, if that event is still kept
        and was stored by the view of `key`; else None."""
        self._forget_expired()
        event = self._events.get(event_id)
        if event is None or event.stream[0] != key:
            return None
        later = list(self._streams[event.stream].event_ids)
        later = later[later.index(event_id) + 1 :]
        messages = [
            (later_id, jsonrpc_message_adapter.validate_json(json))
            for later_id in later
            if (json := self._events[later_id].json) is not None
        ]
        return event.stream[1], messages

    def _forget_expired(self) -> None:
        cutoff = self.now() - self.keep_for
        while self._streams:
            stream, kept = next(iter(self._streams.items()))
            if kept.last_stored > cutoff:
                return
            self._forget_stream(stream)

    def _forget_stream(self, stream: _StreamKey) -> None:
        kept = self._streams.pop(stream)
        self._answered.pop(stream, None)
        for event_id in kept.event_ids:
            self.size -= self._events.pop(event_id).size

    def _forget_oldest_event(self) -> None:
        event_id, event = next(iter(self._events.items()))
        del self._events[event_id]
        self.size -= event.size
        kept = self._streams[event.stream]
        kept.event_ids.popleft()  # a stream's events are stored in order: this one is its oldest
        if not kept.event_ids:
            self._forget_stream(event.stream)


class SessionEvents(EventStore):
    """One session's view of `RecentEvents`: the event store the SDK's transport is given."""

    def __init__(self, recent: RecentEvents, key: str) -> None:
        self.recent = recent
        self.key = key

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        return self.recent.store((self.key, stream_id), message)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        found = self.recent.after(self.key, last_event_id)
        if found is None:
            return None
        stream_id, messages = found
        for event_id, message in messages:
            await send_callback(EventMessage(message, event_id))
        return stream_id


class ResumableSessions(StreamableHTTPSessionManager):
    """The SDK's session manager, handing each new session its own view of `recent`.

    The SDK (mcp 2.3.0) reads its manager's `event_store` once for each session it opens and
    gives it to that session's transport; one store shared by all would mix the sessions'
    same-named streams.
    """

    def __init__(self, app: Server[Any], recent: RecentEvents, **options: Any) -> None:
        self.recent = recent
        super().__init__(app, **options)

    @property
    def event_store(self) -> EventStore:
        return self.recent.for_session()

    @event_store.setter
    def event_store(self, _ignored: EventStore | None) -> None:
        """The SDK's `__init__` sets its `event_store` argument here (None): the views come from
        `recent`."""
