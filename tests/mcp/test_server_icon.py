"""The service's icon reaches every client with the handshake (`serverInfo.icons`), stdio included."""

from __future__ import annotations

import base64
import struct
import xml.etree.ElementTree as ET

import pytest
from mcp import Client

from avenir_mcp.mcp_surface.server import local_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def decoded(src: str, mime_type: str) -> bytes:
    header, _, payload = src.partition(",")
    assert header == f"data:{mime_type};base64"
    return base64.b64decode(payload, validate=True)


# `initialize` (handshake era), and `server/discover` (2026-07-28, which "auto" settles on here).
@pytest.mark.parametrize(("mode", "protocol"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_it_names_its_icon_in_server_info_as_a_png_and_an_svg(mode, protocol):
    async with Client(local_server(), mode=mode) as client:
        assert client.protocol_version == protocol
        assert client.server_info is not None
        png, svg = client.server_info.icons

    png_bytes = decoded(png.src, "image/png")
    assert png_bytes[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png_bytes[16:24]) == (64, 64)  # IHDR: width, height
    assert (png.mime_type, png.sizes) == ("image/png", ["64x64"])
    assert ET.fromstring(decoded(svg.src, "image/svg+xml")).tag == "{http://www.w3.org/2000/svg}svg"
    assert (svg.mime_type, svg.sizes) == ("image/svg+xml", ["any"])
