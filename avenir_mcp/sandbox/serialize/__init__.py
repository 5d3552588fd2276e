"""Sandbox entities as YNAB's API v1 shows them: every documented key, nulls explicit.

Functions take plain rows (dicts from `.values()`), never ORM objects, so the big lists
(the full export) are built without per-row model instances. `*_base` functions give the
`*Base` schemas of the full export (no money companions); the others add `_formatted` /
`_currency` through a `MoneyFormat`.
"""
