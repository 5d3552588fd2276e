"""avenir-mcp: an MCP server over a person's YNAB plan, as one import package.

Its sub-packages are the service's layers, each a Django app or a library of its own; which may
import which is set by their floors (docs/architecture.md).
"""
