"""The tools app keeps no rows of its own: its models moved to `tokens`, `ynab_client` and `oplog`
(their tables keep their names; see tools/migrations/0008)."""
