"""The version avenir-mcp gives itself: in `serverInfo`, on the home page, and in the wheel's
metadata (pyproject.toml reads it here, `[tool.hatch.version]`), so a checkout and an installed
copy say the same without reading a file that only a checkout has."""

SERVER_VERSION = "0.1.0"
