"""Deterministic uuid4 strings for seeded rows.

Primary keys are global across plans, so every seeded plan draws its ids from a source
keyed by its own plan id: two copies of the demo never collide, and reseeding one plan id
gives the same ids again (handy when docs or a demo script name a transaction).
"""

from __future__ import annotations

import random
import uuid


class IdSource:
    """Hands out version-4 UUID strings from a seeded generator, never the same one twice."""

    def __init__(self, key: str) -> None:
        self._random = random.Random(f"avenir-mcp ids {key}")

    def next(self) -> str:
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))
