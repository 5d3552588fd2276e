"""The fingerprint of a change: what an answer or a confirmation code confirms.

A write tool describes the exact change it is about to make as a *subject* (plain data:
dicts, lists, strings, integers, booleans, None). The fingerprint is

    SHA-256( canonical JSON of [plan_id, subject] ), as 64 lowercase hex digits

where the canonical JSON is:

- object keys sorted, compact separators (`,` and `:`), UTF-8 (non-ASCII kept as is);
- every list canonicalised: its elements are canonicalised first, then sorted by their
  own canonical JSON, so the order in which a tool lists its changes never matters
  (docs/confirmation.md#subjects-and-the-fingerprint).
  Duplicates are kept: a list is compared as a multiset.

Floats are refused: money is integer milliunits everywhere, and a float in a subject would
make two equal changes hash differently (0.1 + 0.2). So are keys that are not strings and
any type JSON cannot carry: a subject that cannot be fingerprinted faithfully is a bug in
the tool that built it, and must fail loudly rather than confirm the wrong thing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_SCALARS = (str, int, bool, type(None))


def fingerprint(plan_id: str, subject: dict[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of `[plan_id, subject]` (see the module docstring)."""
    if not isinstance(plan_id, str):
        raise TypeError(f"plan_id must be a string, not {type(plan_id).__name__}")
    if not isinstance(subject, dict):
        raise TypeError(f"a subject is a dict, not {type(subject).__name__}")
    # The pair itself keeps its order; only the lists inside the subject are order-free.
    text = _dumps([plan_id, _canonical(subject)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonical(value: Any) -> Any:
    """`value` with every list (and tuple) sorted by its elements' canonical JSON."""
    if isinstance(value, float):
        raise TypeError(f"floats cannot be fingerprinted (use integer milliunits): {value!r}")
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, dict):
        return {_key(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        items = [_canonical(item) for item in value]
        return sorted(items, key=_dumps)
    raise TypeError(f"{type(value).__name__} cannot be fingerprinted: {value!r}")


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"subject keys must be strings, not {type(key).__name__}: {key!r}")
    return key
