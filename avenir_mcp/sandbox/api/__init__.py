"""YNAB's API v1, served by the sandbox."""
