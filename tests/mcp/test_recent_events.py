"""The recent events a dropped /mcp stream resumes from: order, the sessions kept apart, both bounds."""

from __future__ import annotations

import pytest
from mcp.server.streamable_http import EventMessage
from mcp.types import JSONRPCMessage, JSONRPCRequest, JSONRPCResponse

from avenir_mcp.mcp_surface.recent_events import RecentEvents, SessionEvents
from tests.helpers.clocks import FakeClock

pytestmark = pytest.mark.anyio


def question(number: int) -> JSONRPCRequest:
    return JSONRPCRequest(jsonrpc="2.0", id=number, method="elicitation/create", params={"message": "Apply?"})


def answer(number: int) -> JSONRPCResponse:
    return JSONRPCResponse(jsonrpc="2.0", id=number, result={"content": []})


async def replayed(
    session: SessionEvents, last_event_id: str
) -> tuple[str | None, list[tuple[str, JSONRPCMessage]]]:
    sent: list[EventMessage] = []

    async def send(event: EventMessage) -> None:
        sent.append(event)

    stream = await session.replay_events_after(last_event_id, send)
    return stream, [(str(event.event_id), event.message) for event in sent]


async def test_it_replays_a_streams_messages_after_the_given_event_in_order():
    session = RecentEvents().for_session()
    priming = await session.store_event("3", None)
    asked = await session.store_event("3", question(0))
    await session.store_event("4", answer(9))  # another stream of the same session
    reprimed = await session.store_event("3", None)  # a resumed stream is primed again
    answered = await session.store_event("3", answer(3))

    assert await replayed(session, priming) == ("3", [(asked, question(0)), (answered, answer(3))])
    assert await replayed(session, asked) == ("3", [(answered, answer(3))])
    assert await replayed(session, reprimed) == ("3", [(answered, answer(3))])
    assert await replayed(session, answered) == ("3", [])


async def test_an_unknown_event_id_replays_nothing():
    session = RecentEvents().for_session()
    await session.store_event("3", question(0))

    assert await replayed(session, "not-an-event") == (None, [])


async def test_sessions_with_the_same_stream_names_stay_apart():
    recent = RecentEvents()
    alice, bob = recent.for_session(), recent.for_session()
    alices_start = await alice.store_event("3", None)
    bobs_start = await bob.store_event("3", None)
    await bob.store_event("3", question(30))
    alices_question = await alice.store_event("3", question(3))

    assert await replayed(alice, alices_start) == ("3", [(alices_question, question(3))])
    assert await replayed(bob, alices_start) == (None, [])  # another session's id: as if unknown
    assert not alices_question.startswith(bobs_start.split(".")[0])


async def test_a_stream_is_forgotten_some_time_after_its_last_event():
    clock = FakeClock()
    session = RecentEvents(keep_for=600, now=clock).for_session()
    quiet = await session.store_event("3", None)
    clock.now += 300
    busy = await session.store_event("4", None)
    clock.now += 299
    still = await session.store_event("4", question(4))
    clock.now += 1  # the quiet stream's last event is 600 s old; the busy one's 299 s

    assert await replayed(session, quiet) == (None, [])
    assert await replayed(session, busy) == ("4", [(still, question(4))])
    clock.now += 600

    assert await replayed(session, busy) == (None, [])
    assert session.recent.size == 0


async def test_past_its_bound_it_drops_the_oldest_events_first():
    one_event = len(question(0).model_dump_json(by_alias=True, exclude_unset=True)) + 64
    recent = RecentEvents(max_bytes=3 * one_event)
    session = recent.for_session()
    first = await session.store_event("3", question(0))
    second = await session.store_event("3", question(0))
    other = await session.store_event("4", question(0))
    await session.store_event("3", question(0))  # one too many: the first goes

    assert recent.size == 3 * one_event
    assert await replayed(session, first) == (None, [])
    assert (await replayed(session, second))[0] == "3"
    await session.store_event("3", question(0))
    await session.store_event("3", question(0))  # the other stream's only event goes, and the stream

    assert await replayed(session, other) == (None, [])
    assert recent.size == 3 * one_event


async def test_past_its_bound_answered_streams_go_first_and_a_waiting_question_stays():
    one_question = len(question(0).model_dump_json(by_alias=True, exclude_unset=True)) + 64
    one_answer = len(answer(0).model_dump_json(by_alias=True, exclude_unset=True)) + 64
    recent = RecentEvents(max_bytes=one_question + 2 * one_answer)
    waiting, reading = recent.for_session(), recent.for_session()
    asked = await waiting.store_event("3", question(0))  # the oldest event: the person is deciding
    first = await reading.store_event("5", answer(5))
    second = await reading.store_event("6", answer(6))
    third = await reading.store_event("7", answer(7))  # one too many: the oldest answered stream goes

    assert await replayed(waiting, asked) == ("3", [])
    assert await replayed(reading, first) == (None, [])
    assert [(await replayed(reading, kept))[0] for kept in (second, third)] == ["6", "7"]
    assert recent.size == one_question + 2 * one_answer
