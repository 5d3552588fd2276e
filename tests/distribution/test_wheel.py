"""The wheel `make dist` builds, installed into a fresh venv and run as a person would: from an
empty folder, with a fresh HOME and no checkout on the path (pyproject.toml, avenir_mcp/avenir_site/cli.py).

The wheel (and the sdist it is built from) is built once per test process; it is installed with
uv, from PyPI through uv's cache (at the versions requirements.txt locks), which takes seconds
once the cache holds them: a wheelhouse of our own would have to be downloaded from PyPI too.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import anyio
import httpx2
import pytest
from django.conf import settings
from mcp import Client, StdioServerParameters

from avenir_mcp.mcp_surface.version import SERVER_VERSION
from avenir_mcp.sandbox.seeding import DEMO_PLAN_ID, DEMO_PLAN_NAME
from tests.helpers.processes import PROCESS_SECONDS, port_nobody_serves

pytestmark = pytest.mark.subprocesses

CHECKOUT = Path(settings.BASE_DIR)
UV = str(Path(sys.executable).parent / "uv")  # locked in requirements-dev.txt
DEMO_PLANS = [(DEMO_PLAN_ID, DEMO_PLAN_NAME)]


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """`make dist`'s command, into a temporary folder: the sdist, then the wheel built from it (so
    every test of the wheel is one of the sdist too)."""
    folder = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(folder), str(CHECKOUT)],
        check=True,
        capture_output=True,
    )
    return folder


@pytest.fixture(scope="session")
def wheel(dist) -> Path:
    (built,) = dist.glob("avenir_mcp-*.whl")
    return built


@pytest.fixture(scope="session")
def avenir_mcp(wheel, tmp_path_factory) -> Path:
    """The `avenir-mcp` command of a fresh venv where the wheel (and its dependencies) is installed."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([UV, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    subprocess.run(
        [
            UV,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(venv / "bin" / "python"),
            str(wheel),
            "--constraint",
            str(CHECKOUT / "requirements.txt"),
        ],
        check=True,
    )
    return venv / "bin" / "avenir-mcp"


@pytest.fixture
def person(tmp_path) -> dict[str, str]:
    """A fresh HOME; the command runs from an empty folder beside it."""
    (tmp_path / "home").mkdir()
    (tmp_path / "empty").mkdir()
    return {"HOME": str(tmp_path / "home")}


def stdio(command: list[str], folder: Path, env: dict[str, str]) -> StdioServerParameters:
    # The SDK passes on only a few variables (PATH, HOME, USER...): no PYTHONPATH, no settings.
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(folder), env=env)


async def plans_listed(server: StdioServerParameters) -> list[tuple[str, str]]:
    with anyio.fail_after(PROCESS_SECONDS):
        async with Client(server) as client:
            listed = await client.call_tool("list_plans", {})
    return [(plan["plan_id"], plan["name"]) for plan in listed.structured_content["plans"]]


def home_folder(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".local" / "share" / "avenir-mcp"  # platformdirs' on Linux


def test_the_wheel_installs_one_package_named_after_it_and_its_metadata(wheel):
    """Nothing with a generic name (`tools`, `values`, `tokens`) lands at site-packages' top."""
    top = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}

    assert top == {"avenir_mcp", f"avenir_mcp-{SERVER_VERSION}.dist-info"}


def test_the_wheel_holds_every_package_with_its_data_files(wheel):
    packages = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"][
        "wheel"
    ]["packages"]
    in_checkout = {init.parent.name for init in CHECKOUT.glob("*/__init__.py")} - {"tests"}
    files = [
        path.relative_to(CHECKOUT).as_posix()
        for package in packages
        for path in (CHECKOUT / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]

    assert set(packages) == in_checkout == {"avenir_mcp"}
    assert set(files) <= set(zipfile.ZipFile(wheel).namelist())
    assert "avenir_mcp/mcp_surface/guide.md" in files
    assert "avenir_mcp/avenir_site/static/avenir_site/favicon.svg" in files


@pytest.mark.anyio
async def test_installed_stdio_answers_with_the_demo_plan_from_an_empty_folder(avenir_mcp, person, tmp_path):
    server = stdio([str(avenir_mcp), "stdio"], tmp_path / "empty", person)

    first = await plans_listed(server)  # migrates, makes the key, seeds the demo plan
    key = (home_folder(person) / "secret_key").read_text()
    set_up = stdio(
        [str(avenir_mcp.parent / "python"), "-m", "avenir_mcp.avenir_site.cli", "stdio"],
        tmp_path / "empty",
        person,
    )
    again = await plans_listed(set_up)  # the command an installed copy's client set-ups give

    assert first == again == DEMO_PLANS
    assert stat.S_IMODE((home_folder(person) / "secret_key").stat().st_mode) == 0o600
    assert (home_folder(person) / "secret_key").read_text() == key  # made once
    assert sorted(path.name for path in (tmp_path / "empty").iterdir()) == []


@pytest.mark.anyio
async def test_two_servers_starting_together_on_a_fresh_home_both_answer(avenir_mcp, person, tmp_path):
    server = stdio([str(avenir_mcp), "stdio"], tmp_path / "empty", person)
    answers = []

    async def one() -> None:
        answers.append(await plans_listed(server))

    async with anyio.create_task_group() as both:
        both.start_soon(one)
        both.start_soon(one)

    assert answers == [DEMO_PLANS, DEMO_PLANS]  # migrated once, seeded once


@pytest.fixture(scope="session")
def uv_network() -> dict[str, str]:
    """What uv needs to reach PyPI from a fresh HOME as it does from this one: this machine's
    cache (not an empty one in the fresh HOME), its certificates and proxies, when it has them."""
    cache = subprocess.run([UV, "cache", "dir"], check=True, capture_output=True, text=True).stdout.strip()
    network = {name: value for name, value in os.environ.items() if name.lower() in NETWORK_VARIABLES}
    return {"UV_CACHE_DIR": cache, **network}


NETWORK_VARIABLES = {"ssl_cert_file", "ssl_cert_dir", "http_proxy", "https_proxy", "all_proxy", "no_proxy"}


@pytest.mark.anyio
async def test_uvx_runs_the_wheel_the_same_way(wheel, uv_network, person, tmp_path):
    env = {**person, **uv_network}
    command = [UV, "tool", "run", "--python", sys.executable, "--from", str(wheel), "avenir-mcp", "stdio"]

    assert await plans_listed(stdio(command, tmp_path / "empty", env)) == DEMO_PLANS


def test_installed_serve_serves_the_admin_with_its_styles(avenir_mcp, person, tmp_path):
    port = port_nobody_serves()
    env = {"PATH": os.environ["PATH"], **person}
    with (tmp_path / "output").open("w") as output:
        server = subprocess.Popen(
            [str(avenir_mcp), "serve", "--port", str(port)],
            cwd=tmp_path / "empty",
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        styles = wait_for(f"http://127.0.0.1:{port}/static/admin/css/base.css", server)
        login = httpx2.get(f"http://127.0.0.1:{port}/admin/login/")
    finally:
        server.terminate()
        server.wait(PROCESS_SECONDS)

    assert styles.status_code == 200
    assert styles.headers["content-type"].startswith("text/css")
    assert login.status_code == 200
    printed = (tmp_path / "output").read_text()
    assert "Admin login created (shown once)" in printed
    assert 'More tokens: avenir-mcp token "..." [--read-only]' in printed


def wait_for(url: str, server: subprocess.Popen) -> httpx2.Response:
    """The answer at `url` once the server listens (a deadline only a stuck process reaches)."""
    deadline = time.monotonic() + PROCESS_SECONDS
    while server.poll() is None and time.monotonic() < deadline:
        try:
            return httpx2.get(url)
        except httpx2.TransportError:
            time.sleep(0.2)
    raise AssertionError(f"nothing served at {url}")


def test_a_malformed_setting_is_one_line_and_status_1(avenir_mcp, person, tmp_path):
    env = {"PATH": os.environ["PATH"], **person, "DEBUG": "maybe"}

    ran = subprocess.run(
        [str(avenir_mcp), "token", "Desk"], cwd=tmp_path / "empty", env=env, capture_output=True, text=True
    )

    assert (ran.returncode, ran.stdout, ran.stderr) == (
        1,
        "",
        "avenir-mcp: DEBUG must be 1 or 0 (or true/false), not 'maybe'.\n",
    )


def test_an_installed_copy_reads_the_env_file_in_its_home_folder(avenir_mcp, person, tmp_path):
    home = home_folder(person)
    home.mkdir(parents=True)
    (home / ".env").write_text("DEBUG=maybe\n")  # the environment does not say it: the file does
    env = {"PATH": os.environ["PATH"], **person}

    ran = subprocess.run(
        [str(avenir_mcp), "token", "Desk"], cwd=tmp_path / "empty", env=env, capture_output=True, text=True
    )

    assert (ran.returncode, ran.stderr) == (
        1,
        "avenir-mcp: DEBUG must be 1 or 0 (or true/false), not 'maybe'.\n",
    )
