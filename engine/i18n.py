"""Translatable messages without Django.

The engine explains itself in English templates marked with ``gettext_noop`` so that Django's
``makemessages`` extracts them; the web/API/PDF shell renders a ``Message`` with the active
language's ``gettext(template) % params``. The engine never formats for a locale itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


def gettext_noop(message: str) -> str:
    """Mark a string for extraction; returns it unchanged (same name as Django's, on purpose)."""
    return message


@dataclass(frozen=True, slots=True)
class Message:
    """An untranslated template (``%(name)s`` placeholders) and the values to fill it with."""

    template: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def render(self, translate: Any = None) -> str:
        """``translate`` is a gettext-like callable; English when omitted. A parameter that is
        itself a ``Message`` (a translatable word such as a GPU class) is rendered first."""
        template = translate(self.template) if translate else self.template
        if not self.params:
            return template
        params = {
            name: value.render(translate) if isinstance(value, Message) else value
            for name, value in self.params.items()
        }
        return template % params
