"""Translatable messages without Django.

The engine explains itself in English templates marked with ``gettext_noop`` (or
``ngettext_noop`` for a sentence whose words follow a count) so that Django's ``makemessages``
extracts them; the web/API/PDF shell renders a ``Message`` with the active language's
``gettext(template) % params``, or ``ngettext(template, plural, count) % params``. The engine
never formats for a locale itself: numbers stay numbers in ``params``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple


def gettext_noop(message: str) -> str:
    """Mark a string for extraction; returns it unchanged (same name as Django's, on purpose)."""
    return message


class Plural(NamedTuple):
    """The singular and plural English forms of one template (``ngettext_noop``'s answer)."""

    singular: str
    plural: str


def ngettext_noop(singular: str, plural: str) -> Plural:
    """Mark both forms of a counted sentence for extraction (``makemessages`` reads this name
    as a keyword, ``--keyword=ngettext_noop:1,2``); returns them unchanged."""
    return Plural(singular, plural)


def figure(value: float, places: int = 2) -> int | float:
    """A measured figure for a message parameter: whole numbers without ``.0`` (150, not
    150.0), others rounded to ``places``; the shell writes it the reader's way."""
    return int(value) if float(value).is_integer() else round(value, places)


Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


@dataclass(frozen=True, slots=True)
class Message:
    """An untranslated template (``%(name)s`` placeholders) and the values to fill it with.

    A counted sentence also has its ``plural`` template and names the parameter whose value
    chooses the form (``count``): ``Message.counted(ngettext_noop(one, many), "servers", ...)``.
    """

    template: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    plural: str = ""
    count: str = ""

    @classmethod
    def counted(cls, forms: Plural, by: str, /, **params: Any) -> Message:
        """The message of ``forms`` whose form follows the parameter named ``by``."""
        if by not in params:
            raise ValueError(f"the count parameter {by!r} is not among the parameters")
        return cls(forms.singular, MappingProxyType(params), forms.plural, by)

    def number(self) -> int:
        """The count that chooses the form: the count parameter; a fraction (1.5 days) takes
        the plural form, as in English."""
        value = abs(self.params[self.count])
        return int(value) if value == int(value) else 2

    def template_for(self, translate: Gettext | None, ntranslate: Ngettext | None) -> str:
        """The template in the reader's language, in the form the count asks for."""
        if not self.plural:
            return translate(self.template) if translate else self.template
        n = self.number()
        if ntranslate is not None:
            return ntranslate(self.template, self.plural, n)
        return self.template if n == 1 else self.plural

    def render(self, translate: Gettext | None = None, ntranslate: Ngettext | None = None) -> str:
        """``translate`` is a gettext-like callable and ``ntranslate`` an ngettext-like one;
        English when omitted. A parameter that is itself a ``Message`` (a translatable word
        such as a GPU class) is rendered first."""
        template = self.template_for(translate, ntranslate)
        if not self.params:
            return template
        params = {
            name: value.render(translate, ntranslate) if isinstance(value, Message) else value
            for name, value in self.params.items()
        }
        return template % params
