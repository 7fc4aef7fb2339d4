"""Eurostat electricity prices (nrg_pc_205, JSON-stat 2.0): the reader, and feeds applied as
proposals held for review. The committed sample's values are illustrative, not Eurostat's
(its "note" says so); the feeds here are files under PRICE_FEED_FILE_ROOT, no network."""

import datetime as dt
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from catalog.feeds import FeedFormatError, FeedSpec, RowError
from catalog.feeds.electricity import ElectricityPriceRow, electricity_rows
from catalog.models import (
    ElectricityPriceProposal,
    PriceRefreshRun,
    PriceSource,
    ReviewStatus,
    RunStatus,
)
from catalog.services import price_source_refresh
from tests.catalog.price_feeds import counts

SAMPLE_NAME = "eurostat-nrg_pc_205.json"
SAMPLE = Path(__file__).resolve().parents[2] / "catalog" / "feeds" / "samples" / SAMPLE_NAME
TODAY = dt.date(2026, 12, 5)
BAND = "MWH2000-19999"


def sample() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def spec(today: dt.date = TODAY, feed_format: str = "json") -> FeedSpec:
    return FeedSpec(
        kind="electricity",
        format=feed_format,
        default_currency="EUR",
        currencies=frozenset({"EUR"}),
        today=today,
    )


def read(dataset: dict[str, Any] | bytes, today: dt.date = TODAY) -> list[Any]:
    data = dataset if isinstance(dataset, bytes) else json.dumps(dataset).encode()
    return list(electricity_rows(io.BytesIO(data), spec(today)))


def row(number: int, country: str, period: str, price: str) -> ElectricityPriceRow:
    return ElectricityPriceRow(number, country, period, BAND, "X_VAT", Decimal(price))


# --- The reader ---------------------------------------------------------------------------------


def test_the_sample_gives_each_country_its_latest_price_aggregates_skipped():
    assert read(SAMPLE.read_bytes()) == [
        row(3, "DE", "2025-S1", "0.1876"),
        row(4, "IE", "2025-S1", "0.2245"),
        row(5, "GR", "2025-S1", "0.1497"),  # Eurostat's EL
        row(6, "FR", "2024-S2", "0.1315"),  # no value for 2025-S1: the latest with one
    ]


def test_a_semester_not_started_yet_is_not_read():
    rows = read(sample(), today=dt.date(2025, 6, 30))  # 2025-S1 started, 2025-S2 not
    assert [r.period for r in rows] == ["2025-S1", "2025-S1", "2025-S1", "2024-S2"]
    rows = read(sample(), today=dt.date(2024, 12, 31))
    assert {r.period for r in rows} == {"2024-S2"}


def test_the_preferred_band_is_read_when_the_feed_has_several():
    dataset = sample()
    dataset["size"][2] = 2
    dataset["dimension"]["nrg_cons"]["category"]["index"] = {"MWH500-1999": 0, BAND: 1}
    # Row-major: the band's stride is geo x time = 18; MWH500-1999's cells come first.
    dataset["value"] = {str(int(k) + 18): v for k, v in dataset["value"].items()} | {"8": 0.3}
    assert read(dataset)[0] == row(3, "DE", "2025-S1", "0.1876")


def test_a_dense_value_list_and_a_list_category_index_are_read():
    dataset = sample()
    dense: list[Any] = [None] * 18
    for key, value in dataset["value"].items():
        dense[int(key)] = value
    dataset["value"] = dense
    dataset["dimension"]["geo"]["category"]["index"] = ["EU27_2020", "EA", "DE", "IE", "UK", "FR"]
    assert [(r.country, r.eur_per_kwh) for r in read(dataset)] == [
        ("DE", Decimal("0.1876")),
        ("IE", Decimal("0.2245")),
        ("GB", Decimal("0.1497")),  # Eurostat's UK
        ("FR", Decimal("0.1315")),
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0.19", "2025-S1: is not a number"),
        (0, "2025-S1: must be above 0 and below 5 EUR/kWh"),
        (5, "2025-S1: must be above 0 and below 5 EUR/kWh"),
        (0.1234567, "2025-S1: has more than 6 decimal places"),
    ],
)
def test_a_malformed_value_is_a_row_error(value, message):
    dataset = sample()
    dataset["value"]["8"] = value  # DE, 2025-S1
    rows = read(dataset)
    assert rows[0] == RowError(3, "value", message, str(value))
    assert [r.country for r in rows[1:]] == ["IE", "GR", "FR"]


def test_a_country_named_twice_is_a_row_error():
    dataset = sample()
    dataset["dimension"]["geo"]["category"]["index"] = {
        "EU27_2020": 0, "EA": 1, "DE": 2, "IE": 3, "EL": 4, "GR": 5
    }  # fmt: skip
    assert read(dataset)[-1] == RowError(6, "geo", "duplicates row 5 (same country)", "GR")


def _without_geo(dataset: dict[str, Any]) -> None:
    index = dataset["id"].index("geo")
    del dataset["id"][index], dataset["size"][index], dataset["dimension"]["geo"]


def _two_taxes(dataset: dict[str, Any]) -> None:
    dataset["dimension"]["tax"]["category"]["index"] = {"I_TAX": 0}


def _other_band(dataset: dict[str, Any]) -> None:
    dataset["dimension"]["nrg_cons"]["category"]["index"] = {"MWH_LT20": 0}


def _annual_time(dataset: dict[str, Any]) -> None:
    dataset["dimension"]["time"]["category"]["index"] = {"2023": 0, "2024": 1, "2025": 2}


def _other_product(dataset: dict[str, Any]) -> None:
    dataset["dimension"]["siec"]["category"]["index"] = {"G3000": 0}


def _sizes_mismatch(dataset: dict[str, Any]) -> None:
    dataset["size"][6] = 7


def _huge_cube(dataset: dict[str, Any]) -> None:
    dataset["size"][6] = 10**6


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_without_geo, "the dataset lacks the dimension(s) geo: is it nrg_pc_205?"),
        (_two_taxes, "the tax dimension lacks the category X_VAT"),
        (_other_band, "the nrg_cons dimension has none of the consumption bands"),
        (_annual_time, "time category 1 is not a semester (YYYY-S1 or YYYY-S2)"),
        (_other_product, "the siec dimension lacks the category E7000"),
        (_sizes_mismatch, "the geo dimension's category index must list 7 categories"),
        (_huge_cube, 'each "size" must be 1 to 5000 categories'),
    ],
)
def test_a_feed_without_the_expected_dimensions_is_unreadable(change, message):
    dataset = sample()
    change(dataset)
    with pytest.raises(FeedFormatError) as raised:
        read(dataset)
    assert message in str(raised.value)


def test_a_dimension_with_unexpected_categories_is_unreadable():
    dataset = sample()
    dataset["size"][1] = 2
    dataset["dimension"]["siec"]["category"]["index"] = {"E7000": 0, "G3000": 1}
    dataset["id"][1] = "product"
    dataset["dimension"]["product"] = dataset["dimension"].pop("siec")
    with pytest.raises(FeedFormatError, match="the product dimension must have one category"):
        read(dataset)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"version": "2.0", "class": "dataset", "id": [', "invalid JSON at line 1, column"),
        (b"\xff\xfe{}", "the feed is not UTF-8 text"),
        (b"[]", 'a JSON-stat feed must be one object with "class": "dataset"'),
        (b'{"version": "1.0", "class": "dataset"}', 'only JSON-stat "version": "2.0"'),
        (b'{"version": "2.0", "class": "dataset", "value": NaN}', "the JSON has a NaN number"),
    ],
)
def test_a_feed_that_is_not_json_stat_is_unreadable_and_not_echoed(data, message):
    with pytest.raises(FeedFormatError) as raised:
        read(data)
    assert message in str(raised.value)
    assert "ÿ" not in str(raised.value)


def test_only_json_is_read():
    with pytest.raises(FeedFormatError, match="read as JSON"):
        list(electricity_rows(io.BytesIO(SAMPLE.read_bytes()), spec(feed_format="csv")))


# --- Applied through the price refresh --------------------------------------------------------


def source_make(location: str = SAMPLE_NAME, **overrides: Any) -> PriceSource:
    values = {
        "name": "Eurostat electricity",
        "kind": "electricity",
        "location": location,
        "format": "json",
        "currency": "EUR",
    }
    return PriceSource.objects.create(**(values | overrides))


def refresh(source: PriceSource) -> PriceRefreshRun:
    run = price_source_refresh(source_id=source.pk)
    run.refresh_from_db()
    return run


def proposals() -> list[tuple[str, str, str, str, Decimal, str]]:
    return list(
        ElectricityPriceProposal.objects.order_by("id").values_list(
            "country", "period", "band", "tax", "eur_per_kwh", "status"
        )
    )


@pytest.fixture
def feed_dir(settings, tmp_path):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    return tmp_path


def feed_file(feed_dir: Path, dataset: dict[str, Any] | bytes, name: str = "nrg.json") -> str:
    data = dataset if isinstance(dataset, bytes) else json.dumps(dataset).encode()
    (feed_dir / name).write_bytes(data)
    return name


@pytest.mark.django_db
def test_the_sample_adds_a_pending_proposal_per_country_and_twice_is_a_no_op():
    source = source_make()

    run = refresh(source)

    assert run.status == RunStatus.APPLIED, run.message
    assert counts(run) == {"read": 4, "changed": 0, "unchanged": 0, "rejected": 0, "quarantined": 4}
    pending = ReviewStatus.PENDING
    assert proposals() == [
        ("DE", "2025-S1", BAND, "X_VAT", Decimal("0.1876"), pending),
        ("IE", "2025-S1", BAND, "X_VAT", Decimal("0.2245"), pending),
        ("GR", "2025-S1", BAND, "X_VAT", Decimal("0.1497"), pending),
        ("FR", "2024-S2", BAND, "X_VAT", Decimal("0.1315"), pending),
    ]
    assert {(p.price_source, p.run) for p in ElectricityPriceProposal.objects.all()} == {
        (source, run)
    }

    again = refresh(source)

    assert again.status == RunStatus.APPLIED
    assert counts(again) == {
        "read": 4,
        "changed": 0,
        "unchanged": 4,
        "rejected": 0,
        "quarantined": 0,
    }
    assert len(proposals()) == 4


@pytest.mark.django_db
def test_a_changed_price_is_proposed_again_a_rejected_one_is_not(feed_dir):
    dataset = sample()
    source = source_make(feed_file(feed_dir, dataset))
    refresh(source)
    ElectricityPriceProposal.objects.filter(country="IE").update(status=ReviewStatus.REJECTED)
    dataset["value"]["8"] = 0.19  # DE, 2025-S1, revised

    feed_file(feed_dir, dataset)
    run = refresh(source)

    assert counts(run) == {"read": 4, "changed": 0, "unchanged": 3, "rejected": 0, "quarantined": 1}
    assert proposals()[-1] == ("DE", "2025-S1", BAND, "X_VAT", Decimal("0.19"), "pending")
    assert ElectricityPriceProposal.objects.filter(country="IE").count() == 1


@pytest.mark.django_db
def test_a_price_that_comes_back_while_pending_is_not_proposed_twice(feed_dir):
    dataset = sample()
    source = source_make(feed_file(feed_dir, dataset))
    refresh(source)  # DE 0.1876 pending
    dataset["value"]["8"] = 0.19
    feed_file(feed_dir, dataset)
    refresh(source)  # DE 0.19 pending too
    dataset["value"]["8"] = 0.1876
    feed_file(feed_dir, dataset)

    run = refresh(source)

    assert run.status == RunStatus.APPLIED, run.message
    assert counts(run)["quarantined"] == 0
    assert ElectricityPriceProposal.objects.filter(country="DE").count() == 2


@pytest.mark.django_db
def test_an_unreadable_feed_is_rejected_with_nothing_applied(feed_dir):
    dataset = sample()
    _without_geo(dataset)
    source = source_make(feed_file(feed_dir, dataset))

    run = refresh(source)

    assert run.status == RunStatus.REJECTED
    assert run.message == (
        "Unreadable feed: the dataset lacks the dimension(s) geo: is it nrg_pc_205?."
    )
    assert proposals() == []


@pytest.mark.django_db
def test_a_truncated_feed_is_rejected_with_nothing_applied(feed_dir):
    data = SAMPLE.read_bytes()
    source = source_make(feed_file(feed_dir, data[: len(data) // 2]))

    run = refresh(source)

    assert run.status == RunStatus.REJECTED
    assert run.message.startswith("Unreadable feed: invalid JSON at line")
    assert proposals() == []


@pytest.mark.django_db
def test_too_many_bad_values_reject_the_whole_feed(feed_dir):
    dataset = sample()
    dataset["value"]["8"] = "n/a"  # DE: 1 of 4 rows, more than 10 %
    source = source_make(feed_file(feed_dir, dataset))

    run = refresh(source)

    assert run.status == RunStatus.REJECTED
    assert "1 of 4 rows (25.0 %) have errors" in run.message
    assert run.errors == [
        {"row": 3, "field": "value", "message": "2025-S1: is not a number", "value": "n/a"}
    ]
    assert proposals() == []  # IE, GR and FR were valid: rolled back with the rest


@pytest.mark.django_db
def test_a_feed_without_any_country_value_is_rejected(feed_dir):
    dataset = sample()
    dataset["value"] = {"0": 0.185, "3": 0.188}  # the aggregates only
    source = source_make(feed_file(feed_dir, dataset))

    run = refresh(source)

    assert run.status == RunStatus.REJECTED
    assert run.message == "The feed has no rows: nothing was applied."
    assert proposals() == []


@pytest.mark.django_db
def test_a_source_of_this_kind_is_json_in_eurostats_own_format():
    source = PriceSource(
        name="Eurostat",
        kind="electricity",
        location=SAMPLE_NAME,
        format="csv",
        currency="EUR",
        column_map={"price": "value"},
    )
    with pytest.raises(ValidationError) as raised:
        source.full_clean()
    assert set(raised.value.message_dict) == {"format", "column_map"}
    source.format, source.column_map = "json", {}
    source.full_clean()


def test_the_sample_says_its_values_are_illustrative():
    dataset = sample()
    assert "ILLUSTRATIVE" in " ".join(dataset["note"])
    assert dataset["extension"]["id"] == "NRG_PC_205"
