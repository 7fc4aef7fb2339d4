"""Counted sentences: both English forms travel with the message, the count chooses one."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.advice.codec import decode, encode
from engine.assumptions import unit_message
from engine.i18n import Message, ngettext_noop
from engine.money import Money

SERVERS = ngettext_noop("%(servers)s server up", "%(servers)s servers up")


@pytest.mark.parametrize(
    ("servers", "english"),
    [(1, "1 server up"), (2, "2 servers up"), (0, "0 servers up"), (1.5, "1.5 servers up")],
)
def test_english_takes_the_form_its_count_asks_for(servers, english):
    assert Message.counted(SERVERS, "servers", servers=servers).render() == english


def test_the_translator_receives_both_forms_and_the_count():
    asked = []

    def ngettext(singular: str, plural: str, n: int) -> str:
        asked.append((singular, plural, n))
        return "%(servers)s serveur en marche" if n <= 1 else "%(servers)s serveurs en marche"

    message = Message.counted(SERVERS, "servers", servers=1)

    assert message.render(lambda text: text, ngettext) == "1 serveur en marche"
    assert asked == [("%(servers)s server up", "%(servers)s servers up", 1)]


def test_a_count_that_is_not_a_parameter_is_refused():
    with pytest.raises(ValueError, match="'gpus'"):
        Message.counted(SERVERS, "gpus", servers=2)


def test_a_counted_message_and_money_survive_the_codec():
    message = Message.counted(
        ngettext_noop("%(n)s year for %(cost)s", "%(n)s years for %(cost)s"),
        "n",
        n=3,
        cost=Money(Decimal("5000.00"), "EUR"),
    )

    again = decode(Message, encode(message))

    assert again == message
    assert again.render() == "3 years for 5000.00 EUR"


def test_a_message_stored_before_plurals_still_reads():
    assert decode(Message, {"template": "Hello %(n)s", "params": {"n": 2}}) == Message(
        "Hello %(n)s", {"n": 2}
    )


def test_units_are_templates_with_the_currency():
    assert unit_message("electricity_price_per_kwh", "USD").render() == "USD/kWh"
    assert unit_message("idle_power_fraction", "EUR").render() == "fraction (0.10 = 10%)"
    assert unit_message("depreciation_years", "EUR").render() == "years"
