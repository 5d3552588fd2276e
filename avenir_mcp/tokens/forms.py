"""The admin's field for a token's or a grant's toolsets (docs/conventions.md#toolsets).

One checkbox per toolset, all ticked for a new token: all toolsets. Stored as the setting
writes them (`values.toolsets.toolsets_text`), empty when every box is ticked, so a toolset
added later is offered too. Plans and operations are always offered, ticked or not.
"""

from __future__ import annotations

from typing import Any

from django import forms

from avenir_mcp.tokens.models import TOOLSETS_HELP
from avenir_mcp.values.toolsets import ALL_TOOLSETS, ALWAYS_OFFERED, TOOLSETS, stored_toolsets, toolsets_text


class ToolsetsField(forms.MultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def __init__(self) -> None:
        super().__init__(
            choices=[(name, name) for name in TOOLSETS],
            required=False,
            label="Toolsets",
            help_text=TOOLSETS_HELP,
        )

    def prepare_value(self, value: Any) -> Any:
        """The stored text as the boxes to tick, every one for a new row (None); a list, as the
        form gives back, passes unchanged."""
        if value is None or isinstance(value, str):
            chosen = stored_toolsets(value or "")
            return list(TOOLSETS) if chosen is None else [name for name in TOOLSETS if name in chosen]
        return value

    def clean(self, value: Any) -> str:
        """The text the model field stores."""
        chosen = frozenset(super().clean(value)) | ALWAYS_OFFERED
        return "" if chosen == ALL_TOOLSETS else toolsets_text(chosen)
