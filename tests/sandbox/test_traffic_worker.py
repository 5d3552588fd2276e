"""The traffic layer's database thread: results and errors come back, a broken connection is replaced."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db import DatabaseError, connection

from avenir_mcp.sandbox.traffic_worker import DatabaseWorker


def _current_thread_name() -> str:
    return threading.current_thread().name


def _broken_query() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table_anywhere")


def _is_connected() -> bool:
    return connection.connection is not None


def _count_plans() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM sandbox_plan")
        return cursor.fetchone()[0]


def test_it_runs_work_on_its_own_thread_and_hands_back_the_result():
    worker = DatabaseWorker()

    name = asyncio.run(worker.run(_current_thread_name))

    assert name == "sandbox-traffic-db"
    assert name != threading.current_thread().name


def test_a_database_error_reaches_the_caller_and_the_next_work_reconnects():
    worker = DatabaseWorker()
    asyncio.run(worker.run(_count_plans))

    with pytest.raises(DatabaseError):
        asyncio.run(worker.run(_broken_query))
    connected_after_error = asyncio.run(worker.run(_is_connected))

    assert connected_after_error is False
    assert asyncio.run(worker.run(_count_plans)) >= 0


def test_it_keeps_its_connection_between_units_of_work_that_follow_closely():
    worker = DatabaseWorker(linger_seconds=60)

    async def two_units() -> bool:
        await worker.run(_count_plans)
        return await worker.run(_is_connected)

    assert asyncio.run(two_units()) is True
