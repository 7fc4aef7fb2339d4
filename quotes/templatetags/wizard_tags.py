"""Accessible form fields for the wizard: label, help and error tied to the input.

Every input gets ``aria-describedby`` pointing at its help and its error, and
``aria-invalid="true"`` when it has an error; radio groups are fieldsets with a legend, each
choice with its own line of help.
"""

from __future__ import annotations

from typing import Any

from django import forms, template
from django.utils.translation import pgettext

register = template.Library()


def _ids(bound: forms.BoundField) -> dict[str, str]:
    base = bound.auto_id or bound.html_name
    return {"help": f"{base}_help", "error": f"{base}_error", "field": f"{base}_field"}


def _describedby(bound: forms.BoundField, ids: dict[str, str]) -> str:
    parts = []
    if bound.help_text:
        parts.append(ids["help"])
    if bound.errors:
        parts.append(ids["error"])
    return " ".join(parts)


@register.inclusion_tag("wizard/_field.html")
def field(form: forms.Form, name: str, css: str = "") -> dict[str, Any]:
    """``{% field form "batch_size" %}``: the whole field group, accessible."""
    bound = form[name]
    widget = bound.field.widget
    ids = _ids(bound)
    describedby = _describedby(bound, ids)
    kind = "input"
    if isinstance(widget, forms.RadioSelect):
        kind = "radios"
    elif isinstance(widget, forms.CheckboxInput):
        kind = "checkbox"
    attrs: dict[str, Any] = {}
    if describedby:
        attrs["aria-describedby"] = describedby
    if bound.errors:
        attrs["aria-invalid"] = "true"
    choices = []
    if kind == "radios":
        helps = getattr(form, "choice_help", {}).get(name, {})
        for widget_choice in bound.subwidgets:
            value = str(widget_choice.data["value"])
            choices.append(
                {
                    "id": widget_choice.id_for_label,
                    "value": value,
                    "label": widget_choice.choice_label,
                    "checked": widget_choice.data["selected"],
                    "help": helps.get(value, ""),
                }
            )
    return {
        "bound": bound,
        "kind": kind,
        "ids": ids,
        "describedby": describedby,
        "widget_html": bound.as_widget(attrs=attrs) if kind != "radios" else "",
        "choices": choices,
        "css": css,
        "optional": not bound.field.required and kind != "checkbox",
    }


@register.simple_tag
def error_items(form: forms.Form) -> list[dict[str, str]]:
    """The error summary's lines: a link to each bad field, its label and its message."""
    items = []
    for bound in form:
        if not bound.errors:
            continue
        anchor = bound.auto_id
        if isinstance(bound.field.widget, forms.RadioSelect):
            anchor = f"{bound.auto_id}_0"
        for message in bound.errors:
            # ErrorList yields each message as text (the stubs allow the ValidationError).
            label = str(bound.label).rstrip(". ")  # a sentence-long label ends with a period
            items.append(
                {
                    "anchor": anchor,
                    "label": label,
                    "message": str(message),
                    # French puts a space before the colon: the punctuation is translated too
                    "text": pgettext("field: error message", "%(label)s: %(message)s")
                    % {"label": label, "message": str(message)},
                }
            )
    items.extend(
        {"anchor": "", "label": "", "message": str(message), "text": str(message)}
        for message in form.non_field_errors()
    )
    return items


@register.filter
def has_errors_in(form: forms.Form, names: Any) -> bool:
    """``form|has_errors_in:form.advanced``: open a <details> holding a bad field."""
    if not form.is_bound:
        return False
    return any(name in form.errors for name in names if name in form.fields)


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """``{{ defaults|get_item:name }}``: a dict entry by a variable key."""
    return mapping.get(key) if hasattr(mapping, "get") else None
