"""Quote numbers and revision letters: formats, round trips and refusals."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.commerce.numbering import (
    NumberingError,
    QuoteNumber,
    display_number,
    parse_display_number,
    parse_quote_number,
    quote_number,
    revision_index,
    revision_label,
)

years = st.integers(min_value=1000, max_value=9999)
sequences = st.integers(min_value=1, max_value=10_000_000)
revisions = st.integers(min_value=0, max_value=20_000)


@pytest.mark.parametrize(
    ("year", "sequence", "text"),
    [
        (2026, 42, "Q-2026-00042"),
        (2026, 1, "Q-2026-00001"),
        (2027, 99_999, "Q-2027-99999"),
        (2026, 100_000, "Q-2026-100000"),  # a busy year widens the number
    ],
)
def test_quote_numbers(year, sequence, text):
    assert quote_number(year, sequence) == text
    assert parse_quote_number(text) == QuoteNumber(year, sequence)


def test_parsing_forgives_case_and_surrounding_spaces():
    assert parse_quote_number("  q-2026-00042\n") == QuoteNumber(2026, 42)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Q-2026-0042",  # four digits
        "Q-2026-000042",  # extra padding: one spelling per number
        "Q-26-00042",
        "Q2026-00042",
        "D-2026-00042",
        "Q-2026-00042-B",  # a display number, not a quote number
        "Q-2026-00000",  # sequences start at 1
        "Q-0999-00001",  # four-digit years
    ],
)
def test_malformed_numbers_are_refused(text):
    with pytest.raises(NumberingError):
        parse_quote_number(text)


def test_the_refusal_shows_the_expected_format():
    with pytest.raises(NumberingError) as refused:
        parse_quote_number("Q-26-42")
    assert refused.value.message.render() == (
        "Q-26-42 is not a quote number; quote numbers look like Q-2026-00042, with an optional "
        "revision letter (Q-2026-00042-B)."
    )


@pytest.mark.parametrize(
    ("year", "sequence", "says"),
    [
        (999, 1, "The year must be from 1000 to 9999."),
        (10_000, 1, "The year must be from 1000 to 9999."),
        (2026, 0, "The sequence number must be at least 1."),
        (2026, -5, "The sequence number must be at least 1."),
    ],
)
def test_out_of_range_parts_are_refused(year, sequence, says):
    with pytest.raises(NumberingError) as refused:
        quote_number(year, sequence)
    assert refused.value.message.render() == says


@pytest.mark.parametrize(("year", "sequence"), [("2026", 1), (2026, 1.0), (True, 1)])
def test_parts_must_be_ints(year, sequence):
    with pytest.raises(TypeError):
        quote_number(year, sequence)


@given(years, sequences)
def test_numbers_round_trip(year, sequence):
    text = quote_number(year, sequence)
    assert parse_quote_number(text) == QuoteNumber(year, sequence)
    assert str(parse_quote_number(text)) == text


@given(years, sequences, years, sequences)
def test_numbers_sort_like_their_year_and_sequence(y1, s1, y2, s2):
    a, b = QuoteNumber(y1, s1), QuoteNumber(y2, s2)
    assert (a < b) == ((y1, s1) < (y2, s2))


# --- Revisions ----------------------------------------------------------------------------------


def test_the_first_26_revisions_are_a_to_z():
    assert [revision_label(n) for n in range(26)] == list(string.ascii_uppercase)


@pytest.mark.parametrize(
    ("n", "label"),
    [
        (0, "A"),
        (1, "B"),
        (25, "Z"),
        (26, "AA"),
        (27, "AB"),
        (51, "AZ"),
        (52, "BA"),
        (701, "ZZ"),
        (702, "AAA"),
    ],
)
def test_revision_labels(n, label):
    assert revision_label(n) == label
    assert revision_index(label) == n


@given(revisions)
def test_revision_labels_round_trip(n):
    assert revision_index(revision_label(n)) == n


@given(revisions)
def test_later_revisions_sort_after_earlier_ones_by_length_then_letters(n):
    before, after = revision_label(n), revision_label(n + 1)
    assert (len(before), before) < (len(after), after)


@pytest.mark.parametrize("label", ["", "a", "A1", "-", "ÄA"])
def test_malformed_revision_labels_are_refused(label):
    with pytest.raises(NumberingError):
        revision_index(label)


def test_negative_revisions_are_refused():
    with pytest.raises(NumberingError):
        revision_label(-1)
    with pytest.raises(TypeError):
        revision_label(True)


# --- Display numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("revision", "text"),
    [(0, "Q-2026-00042"), (1, "Q-2026-00042-B"), (25, "Q-2026-00042-Z"), (26, "Q-2026-00042-AA")],
)
def test_revision_a_has_no_suffix_and_later_ones_have_their_letter(revision, text):
    assert display_number(QuoteNumber(2026, 42), revision) == text
    assert display_number("Q-2026-00042", revision) == text
    assert parse_display_number(text) == (QuoteNumber(2026, 42), revision)


def test_an_explicit_a_suffix_reads_as_the_first_revision():
    assert parse_display_number("q-2026-00042-a") == (QuoteNumber(2026, 42), 0)


@pytest.mark.parametrize("text", ["Q-2026-00042-", "Q-2026-00042-B2", "Q-2026-00042B"])
def test_malformed_display_numbers_are_refused(text):
    with pytest.raises(NumberingError):
        parse_display_number(text)


@given(years, sequences, revisions)
def test_display_numbers_round_trip(year, sequence, revision):
    text = display_number(QuoteNumber(year, sequence), revision)
    assert parse_display_number(text) == (QuoteNumber(year, sequence), revision)
