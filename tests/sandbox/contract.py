"""Checking sandbox answers against YNAB's contract: the OpenAPI spec and the official SDK.

`check(operation_id, response)` validates the body against the response schema of that
operation and status in `../shared/ynab/open_api_spec.yaml` (refs resolved, OpenAPI 3.1
`type: [x, "null"]`, formats checked), then again in a strict form in which every
documented property is required (YNAB always sends every key, nulls explicit), and finally
parses it with the official `ynab` package's model for that response. Tests skip when the
spec file is absent.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import httpx2
import jsonschema
import pytest
import yaml
import ynab.models
from django.conf import settings
from referencing import Registry, Resource

SPEC_PATH = Path(settings.BASE_DIR) / ".." / "shared" / "ynab" / "open_api_spec.yaml"
SPEC_URI = "urn:ynab-open-api-spec"
METHODS = ("get", "post", "put", "patch", "delete")
# Members YNAB sends only in some answers of a shape.
SOMETIMES_ABSENT = {
    "transaction",  # SaveTransactionsResponse: single create
    "transactions",  # SaveTransactionsResponse: many / PATCH
    "duplicate_import_ids",  # SaveTransactionsResponse: many
}


@functools.cache
def load_spec() -> dict[str, Any] | None:
    if not SPEC_PATH.exists():
        return None
    return yaml.safe_load(SPEC_PATH.read_text())


def spec_or_skip() -> dict[str, Any]:
    spec = load_spec()
    if spec is None:
        pytest.skip(f"YNAB's OpenAPI spec is not at {SPEC_PATH}")
    return spec


def operation_ids() -> list[str]:
    """Every operationId in the spec (empty when the spec is absent)."""
    spec = load_spec() or {"paths": {}}
    return [
        operation["operationId"]
        for item in spec["paths"].values()
        for method, operation in item.items()
        if method in METHODS
    ]


def check(operation_id: str, response: httpx2.Response, status: int | None = None) -> dict[str, Any]:
    """Assert the answer has `status` (default: a documented success) and fits the contract."""
    spec = spec_or_skip()
    pointer, schema_name, successes = _response_schema(spec, operation_id, response.status_code)
    assert response.status_code in ([status] if status else successes), response.text
    body = response.json()
    for validator in (_validator(False), _validator(True)):
        validator.evolve(schema={"$ref": f"{SPEC_URI}#{pointer}"}).validate(body)
    model = getattr(ynab.models, schema_name)
    assert model.from_dict(body) is not None
    return body


def _response_schema(spec: dict[str, Any], operation_id: str, status: int) -> tuple[str, str, list[int]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS and operation["operationId"] == operation_id:
                return _pick_response(path, method, operation, status)
    raise AssertionError(f"{operation_id} is not an operation of YNAB's spec")


def _pick_response(
    path: str, method: str, operation: dict[str, Any], status: int
) -> tuple[str, str, list[int]]:
    responses = operation["responses"]
    success = [int(code) for code in responses if code.startswith("2")]
    if str(status) not in responses:
        # Any operation may answer 401, 404.1, 429 or 5xx with YNAB's error envelope.
        assert status >= 400, f"{method.upper()} {path} does not document {status}"
        return "/components/schemas/ErrorResponse", "ErrorResponse", success
    schema = responses[str(status)]["content"]["application/json"]["schema"]
    name = schema["$ref"].rsplit("/", 1)[-1]
    return f"/components/schemas/{name}", name, success


@functools.cache
def _validator(strict: bool) -> jsonschema.Draft202012Validator:
    spec = _honour_nullable(copy.deepcopy(spec_or_skip()))
    if strict:
        # Only GET /plans?include_accounts=true carries PlanSummary.accounts (full Account
        # objects); inside the export the same member holds AccountBase objects.
        del spec["components"]["schemas"]["PlanSummary"]["properties"]["accounts"]
        _require_every_property(spec["components"])
    registry = Registry().with_resource(
        SPEC_URI, Resource.from_contents(spec, default_specification=_draft())
    )
    return jsonschema.Draft202012Validator(
        {}, registry=registry, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def _draft():
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


def _honour_nullable(node: Any) -> Any:
    """OpenAPI's `nullable: true` (still used beside 3.1 types, e.g. `default_plan`) as JSON Schema."""
    if isinstance(node, list):
        return [_honour_nullable(value) for value in node]
    if not isinstance(node, dict):
        return node
    node = {key: _honour_nullable(value) for key, value in node.items()}
    if node.pop("nullable", False):
        return {"anyOf": [{"type": "null"}, node]}
    return node


def _require_every_property(node: Any) -> None:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            node["required"] = sorted(set(properties) - SOMETIMES_ABSENT)
        for value in node.values():
            _require_every_property(value)
    elif isinstance(node, list):
        for value in node:
            _require_every_property(value)
