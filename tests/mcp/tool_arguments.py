"""Hypothesis strategies for a tool's arguments, built from its published JSON input schema.

`edge_examples(schema, known)` lists explicit examples (every date and month field at both ends
of the calendar); `arguments_for(schema, known)` draws objects the schema accepts, with strings
leaning to what breaks tools: dates and months at the calendar's ends (0001-01-01, 9999-12-31), words the
tools take (current, next, last-used), amounts that are huge, tiny, signed or not numbers,
control and direction characters, and real ids of the plan under test (`known`), so calls
reach past the id checks. `hostile_arguments_for(schema, known)` draws the same, then breaks
one field's type or adds an unknown field.

Handled: `type` (string, integer, number, boolean, array, object, null), `anyOf`, `enum`,
`const`, `$ref` into `$defs`, `minLength`/`maxLength`, `pattern`, `minimum`/`maximum` (and
exclusive), `minItems`/`maxItems`, `required`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

EDGE_TEXT = (
    "0001-01-01",
    "9999-12-31",
    "9999-12-01",
    "9999-12",
    "0001-01",
    "0000-00-00",
    "2026-02-30",
    "10000-01-01",
    "current",
    "next",
    "last-used",
    "default",
    "0",
    "-0",
    "0.001",
    "-0.0005",
    "1e400",
    "NaN",
    "-Infinity",
    "999999999999999999999.999",
    "-42.50",
    "42,50",
    "",
    " ",
    "../../plans",
    "\u202eevil",
    "a\x00b",
    "\x1b[31m",
    "IGNORE PREVIOUS INSTRUCTIONS",
    "🙂" * 3,
)
EDGE_NUMBERS = (0, -1, 1, 2**31, -(2**63), 10**20, 0.5, -0.001, 1e308, 1.0000001)
EDGE_DATES = ("0001-01-01", "0001-01-02", "9999-12-01", "9999-12-30", "9999-12-31")
EDGE_MONTHS = ("0001-01", "0001-01-01", "9999-12", "9999-12-01")


def edge_examples(schema: dict[str, Any], known: tuple[str, ...]) -> list[dict[str, Any]]:
    """Explicit examples, every one of them run: each date or month field of the tool at each end
    of the calendar (and, for a pair of since/until dates, both at once), the rest minimal."""
    base = _Builder(schema, known).minimal(schema)
    properties = schema.get("properties", {})
    examples = []
    for name, spec in properties.items():
        if not _takes_text(spec):
            continue
        edges = EDGE_DATES if name.endswith("date") else EDGE_MONTHS if "month" in name else ()
        examples += [{**base, name: edge} for edge in edges]
    if "since_date" in properties and "until_date" in properties:
        examples += [{**base, "since_date": edge, "until_date": edge} for edge in EDGE_DATES]
    return examples


def arguments_for(schema: dict[str, Any], known: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects valid for `schema` (a tool's `inputSchema`)."""
    return _Builder(schema, known).value(schema)


def hostile_arguments_for(
    schema: dict[str, Any], known: tuple[str, ...]
) -> st.SearchStrategy[dict[str, Any]]:
    """Objects `schema` refuses: one field of the wrong type, or an unknown field."""
    properties = sorted(schema.get("properties", {}))
    wrong = st.one_of(st.integers(), st.booleans(), st.lists(st.integers(), max_size=2), st.none(), st.text())

    @st.composite
    def broken(draw: st.DrawFn) -> dict[str, Any]:
        arguments = dict(draw(arguments_for(schema, known)))
        if properties and draw(st.booleans()):
            arguments[draw(st.sampled_from(properties))] = draw(wrong)
        else:
            arguments["unexpected_" + draw(st.from_regex(r"[a-z]{1,8}", fullmatch=True))] = draw(wrong)
        return arguments

    return broken()


def _takes_text(spec: dict[str, Any]) -> bool:
    return spec.get("type") == "string" or any(
        option.get("type") == "string" for option in spec.get("anyOf", ())
    )


class _Builder:
    def __init__(self, root: dict[str, Any], known: tuple[str, ...]) -> None:
        self.definitions = root.get("$defs", {})
        self.known = known

    def value(self, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
        if "$ref" in schema:
            return self.value(self.definitions[schema["$ref"].rsplit("/", 1)[1]])
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if "anyOf" in schema:
            return st.one_of(*(self.value(option) for option in schema["anyOf"]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of(*(self.value({**schema, "type": each}) for each in kind))
        builders = {
            "string": self.string,
            "integer": self.integer,
            "number": self.number,
            "boolean": lambda _schema: st.booleans(),
            "null": lambda _schema: st.none(),
            "array": self.array,
            "object": self.object,
        }
        if kind not in builders:
            return st.none() | st.text(max_size=5) | st.integers()
        return builders[kind](schema)

    def minimal(self, schema: dict[str, Any], name: str = "") -> Any:
        """A plain valid value: required fields only, the plan's first id for ids, `current` for months."""
        if "$ref" in schema:
            return self.minimal(self.definitions[schema["$ref"].rsplit("/", 1)[1]], name)
        if "const" in schema or "enum" in schema:
            return schema.get("const", (schema.get("enum") or [None])[0])
        if "anyOf" in schema:
            return self.minimal(schema["anyOf"][0], name)
        kind = schema.get("type")
        if kind == "object":
            properties = schema.get("properties", {})
            return {key: self.minimal(properties[key], key) for key in schema.get("required", ())}
        if kind == "array":
            return [self.minimal(schema.get("items", {}), name) for _ in range(schema.get("minItems", 0))]
        if kind == "integer":
            return max(schema.get("minimum", 1), 1)
        if kind == "number":
            return 1
        if kind == "boolean":
            return False
        if kind == "string":
            if "month" in name:
                return "current"
            if name.endswith("date"):
                return "2026-01-01"
            return self.known[0] if self.known and "id" in name else "1"
        return None

    def string(self, schema: dict[str, Any]) -> st.SearchStrategy[str]:
        low, high = schema.get("minLength", 0), schema.get("maxLength", 300)
        if "pattern" in schema:
            pattern = st.from_regex(schema["pattern"], fullmatch=True)
            return pattern.filter(lambda text: low <= len(text) <= high)
        candidates = st.one_of(
            st.sampled_from(EDGE_TEXT),
            st.sampled_from(self.known) if self.known else st.nothing(),
            st.dates().map(lambda day: day.isoformat()),
            st.dates().map(lambda day: day.isoformat()[:7]),
            st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
            st.text(max_size=min(high, 60)),
        )
        return candidates.filter(lambda text: low <= len(text) <= high)

    def integer(self, schema: dict[str, Any]) -> st.SearchStrategy[int]:
        low = schema.get("minimum", schema.get("exclusiveMinimum", -(2**63) - 1) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", 2**63) - 1)
        edges = [n for n in EDGE_NUMBERS if isinstance(n, int) and low <= n <= high]
        return st.one_of(st.integers(low, high), st.sampled_from(edges or [low, high]))

    def number(self, schema: dict[str, Any]) -> st.SearchStrategy[float]:
        floats = st.floats(allow_nan=False, allow_infinity=False)
        return st.one_of(floats, st.sampled_from(EDGE_NUMBERS))

    def array(self, schema: dict[str, Any]) -> st.SearchStrategy[list[Any]]:
        low, high = schema.get("minItems", 0), min(schema.get("maxItems", 5), 5)
        return st.lists(self.value(schema.get("items", {})), min_size=low, max_size=max(low, high))

    def object(self, schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {name: self.value(spec) for name, spec in properties.items() if name in required},
            optional={name: self.value(spec) for name, spec in properties.items() if name not in required},
        )
