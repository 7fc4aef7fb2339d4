"""What every wizard step shares: its answers as JSON, the engine's messages on its fields, and
one line of help per radio choice.

Each step's ``answers()`` (or ``workload()``) gives its part of the engine's JSON shape
(``workload_from_dict``), so the wizard and the REST API feed the engine the same structure.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import forms

from engine.workload import WorkloadError
from quotes.advice.presenters import text
from quotes.wizard.forms.fields import RangedNumberField


class WizardStepForm(forms.Form):
    """A step: its answers as the engine's JSON shape, and help for each radio choice."""

    step: str = ""
    # field name -> {choice value: one line of plain-language help}
    choice_help: Mapping[str, Mapping[str, Any]] = {}
    # Fields shown in the "advanced" <details> section.
    advanced: tuple[str, ...] = ()

    def engine_errors(self, error: WorkloadError, paths: Mapping[str, str]) -> None:
        """Put the engine's messages on the fields they name (others on the whole form)."""
        for path, messages in error.errors.items():
            field = paths.get(path)
            if field is not None and field not in self.fields:
                field = None
            for message in messages:
                if field is None:
                    self.add_error(None, f"{path}: {text(message)}")
                elif field not in self.errors:
                    self.add_error(field, _capitalised(text(message)))

    def number_field(self, name: str) -> RangedNumberField:
        """One of this step's number fields, as such (``self.fields`` types them as any field)."""
        field = self.fields[name]
        if not isinstance(field, RangedNumberField):
            raise TypeError(f"{name!r} is not a number field of {type(self).__name__}")
        return field

    def json_cleaned(self) -> dict[str, Any]:
        """The cleaned answers as JSON (Decimals as strings), to store with a result."""
        return {name: jsonable(value) for name, value in self.cleaned_data.items()}

    def choice_items(self, name: str) -> list[dict[str, Any]]:
        """A radio group's choices with their help, for the templates."""
        bound = self[name]
        helps = self.choice_help.get(name, {})
        return [
            {"widget": widget, "help": helps.get(str(widget.data["value"]), "")}
            for widget in bound.subwidgets
        ]


def _capitalised(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def jsonable(value: Any) -> Any:
    """A cleaned value as JSON: a Decimal as its plain digits ("0.19"), anything else as is."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value
