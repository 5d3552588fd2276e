"""The official MCP tools the tests run, from the npm registry: installed once per version into
a cache folder outside the checkout, and reused by later runs.

- `npm_package(name, version)`: the package's folder, installed with npm (a folder per name and
  version, so runs pinning other versions never meet); `npm_command(name, version, command)`:
  the command it installs (run by the machine's Node).
- `node_22()`: a Node.js 22 binary. The MCP conformance suite and the Inspector need Node 22
  (`fs.globSync`), the machines have Debian's Node 20, and nodejs.org cannot be reached: the
  registry's `node-linux-<arch>` package is Node's own release binary.

Several test workers may ask for one package at once: an install holds a lock on the folder, and
a worker that waited finds it installed.
"""

from __future__ import annotations

import fcntl
import json
import platform
import subprocess
from pathlib import Path

from tests.helpers.processes import PROCESS_SECONDS

NPM_CACHE = Path.home() / ".cache" / "avenir-mcp-tests" / "npm"
NODE_22 = "22.23.5"
NODE_ARCH = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def npm_package(name: str, version: str) -> Path:
    """`name`@`version`'s installed folder (its package.json names that version)."""
    prefix = _prefix(name, version)
    folder = prefix / "node_modules" / name
    prefix.mkdir(parents=True, exist_ok=True)
    with (prefix / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(folder, version):
            subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), f"{name}@{version}"],
                check=True,
                capture_output=True,
                timeout=PROCESS_SECONDS,
            )
    return folder


def npm_command(name: str, version: str, command: str) -> Path:
    """The command `command` that `name`@`version` installs (npm's link to its script)."""
    npm_package(name, version)
    return _prefix(name, version) / "node_modules" / ".bin" / command


def node_22() -> Path:
    """Node.js 22's binary for this machine (module docstring)."""
    package = f"node-linux-{NODE_ARCH[platform.machine()]}"
    return npm_package(package, NODE_22) / "bin" / "node"


def _prefix(name: str, version: str) -> Path:
    return NPM_CACHE / f"{name.replace('/', '+')}@{version}"


def _installed(folder: Path, version: str) -> bool:
    manifest = folder / "package.json"
    return manifest.exists() and json.loads(manifest.read_text())["version"] == version
