"""Date formats for every page (`FORMAT_MODULE_PATH`): one way to write a date, `2026-12-03 14:26`."""
