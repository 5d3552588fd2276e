"""Helpers the tests import: plain modules by job. conftest.py files hold only fixtures."""
