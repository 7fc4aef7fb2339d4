"""catalog.feeds.parse: streamed CSV/JSON rows, every bad row reported by number, no Django."""

import ast
import datetime as dt
import io
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from catalog.feeds import (
    CloudPriceRow,
    FeedFormatError,
    FeedSpec,
    PartPriceRow,
    RowError,
    iter_rows,
)
from catalog.feeds import parse as parse_module

FEEDS = Path(__file__).resolve().parents[2] / "catalog" / "feeds"
TODAY = dt.date(2026, 11, 30)


def spec(**overrides: Any) -> FeedSpec:
    values: dict[str, Any] = {
        "kind": "supplier",
        "format": "csv",
        "default_currency": "EUR",
        "currencies": frozenset({"EUR", "USD"}),
        "today": TODAY,
        "default_source": "test feed",
    }
    return FeedSpec(**(values | overrides))


def rows(text: str | bytes, **overrides) -> list:
    data = text.encode() if isinstance(text, str) else text
    return list(iter_rows(io.BytesIO(data), spec(**overrides)))


def errors(parsed: list) -> list[tuple[int, str, str]]:
    return [(r.row, r.field, r.message) for r in parsed if isinstance(r, RowError)]


def test_feeds_package_imports_no_framework():
    offenders = []
    for path in FEEDS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] in ("django", "celery")
            ]
    assert offenders == []


def test_a_good_csv_row_becomes_a_part_price_row():
    parsed = rows(
        "sku,price,currency,observed_on,source\n"
        "GPU-1,28000.50,USD,2026-11-29,https://example.test/list\n"
        "GPU-2,100,,,\n"
    )
    assert parsed == [
        PartPriceRow(
            2,
            "GPU-1",
            Decimal("28000.50"),
            "USD",
            dt.date(2026, 11, 29),
            "https://example.test/list",
        ),
        PartPriceRow(3, "GPU-2", Decimal("100"), "EUR", TODAY, "test feed"),
    ]


def test_column_map_renames_feed_columns_and_extra_columns_are_ignored():
    parsed = rows(
        "Part number;Unit price;Colour\nCPU-9;933.62;blue\n".replace(";", ","),
        column_map={"sku": "Part number", "price": "Unit price"},
    )
    assert parsed == [PartPriceRow(2, "CPU-9", Decimal("933.62"), "EUR", TODAY, "test feed")]


HEADER = "sku,price,currency,observed_on,source\n"
NOT_A_NUMBER = "is not a number (use a dot for decimals, no thousands separator)"


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("GPU-1,abc,EUR,2026-11-30,x", "price", NOT_A_NUMBER),
        ('GPU-1,"1,200.00",EUR,2026-11-30,x', "price", NOT_A_NUMBER),
        ("GPU-1,-5,EUR,2026-11-30,x", "price", "must not be negative"),
        ("GPU-1,0,EUR,2026-11-30,x", "price", "must be greater than zero"),
        ("GPU-1,NaN,EUR,2026-11-30,x", "price", "is not a finite number"),
        ("GPU-1,1.005,EUR,2026-11-30,x", "price", "has more than 2 decimal places"),
        ("GPU-1,10000000000,EUR,2026-11-30,x", "price", "must be below 10,000,000,000"),
        ("GPU-1,,EUR,2026-11-30,x", "price", "is missing"),
        (",12,EUR,2026-11-30,x", "sku", "is missing"),
        ("GPU-1,12,GBP,2026-11-30,x", "currency", "unknown currency 'GBP' (known: EUR, USD)"),
        ("GPU-1,12,EUR,30/11/2026,x", "observed_on", "is not a date (YYYY-MM-DD)"),
        ("GPU-1,12,EUR,2026-12-05,x", "observed_on", "is in the future (today is 2026-11-30)"),
        ("GPU-1,12,EUR,2026-11-30,x,extra", "row", "has 6 fields; the header has 5"),
        ("GPU-1,12,EUR", "row", "has 3 fields; the header has 5"),
    ],
)
def test_each_bad_row_is_reported_with_its_line_and_field(line, field, message):
    parsed = rows(f"{HEADER}OK-1,1.00,EUR,2026-11-30,x\n{line}\n")
    assert errors(parsed) == [(3, field, message)]
    assert isinstance(parsed[0], PartPriceRow)  # the good row is still read


def test_duplicate_rows_name_the_first_row_and_keep_it():
    parsed = rows("sku,price,currency\nA,1,EUR\nB,2,EUR\nA,1,EUR\nA,3,USD\n")
    assert errors(parsed) == [(4, "row", "duplicates row 2 (same sku and currency)")]
    assert [r.sku for r in parsed if isinstance(r, PartPriceRow)] == ["A", "B", "A"]


def test_row_numbers_are_physical_lines_even_with_quoted_newlines_and_blank_lines():
    parsed = rows('sku,price,source\nA,1,"two\nlines"\n\nB,-1,x\n')
    assert errors(parsed) == [(5, "price", "must not be negative")]


def test_bad_values_are_reported_shortened():
    parsed = rows("sku,price\nA," + "9" * 200 + "\n")
    (error,) = [r for r in parsed if isinstance(r, RowError)]
    assert error.value == "9" * 79 + "…"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the CSV feed is empty: it needs a header line"),
        # The feed's own text is never echoed (a wrong location must not leak a file's lines).
        (b"sku,amount\nA,1\n", "line 1: the CSV header lacks required column(s) price"),
        (b"sku,price,sku\n", "line 1: columns 1 and 3 have the same name"),
        (b"sku,price\nA,\xff\xfe1\n", "the feed is not UTF-8 text (invalid start byte)"),
    ],
)
def test_an_unreadable_csv_feed_raises_a_feed_error(data, message):
    with pytest.raises(FeedFormatError) as caught:
        rows(data)
    assert str(caught.value) == message


def test_a_mapped_column_missing_from_the_header_is_named():
    with pytest.raises(FeedFormatError, match="lacks required column\\(s\\) Part number"):
        rows("sku,price\nA,1\n", column_map={"sku": "Part number"})


def test_an_unknown_field_in_the_column_map_is_refused():
    with pytest.raises(FeedFormatError, match="unknown field 'cost'"):
        rows("sku,price\n", column_map={"cost": "Price"})


def test_json_feed_streams_an_array_of_objects():
    parsed = rows(
        '[{"sku": "A", "price": 12.50}, {"sku": "B", "price": "7", "currency": "usd"},'
        ' {"sku": "C", "price": -1}, 42, {"sku": "D", "price": true}]',
        format="json",
    )
    assert parsed[:2] == [
        PartPriceRow(1, "A", Decimal("12.50"), "EUR", TODAY, "test feed"),
        PartPriceRow(2, "B", Decimal("7"), "USD", TODAY, "test feed"),
    ]
    assert errors(parsed) == [
        (3, "price", "must not be negative"),
        (4, "row", "is not an object"),
        (5, "price", "is missing"),
    ]


def test_json_items_split_across_read_chunks_are_decoded_whole(monkeypatch):
    monkeypatch.setattr(parse_module, "JSON_READ_CHARS", 7)
    items = ", ".join(f'{{"sku": "S{i}", "price": {i}.25}}' for i in range(1, 40))
    parsed = rows(f"[ {items} ]", format="json")
    assert [r.amount for r in parsed] == [Decimal(f"{i}.25") for i in range(1, 40)]
    assert [r.row for r in parsed] == list(range(1, 40))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('{"sku": "A"}', "a JSON feed must be an array of row objects: [{...}, ...]"),
        ('[{"sku": "A", "price": 1}, {"sku": ', "invalid JSON in item 2: Expecting value"),
        ('[{"sku": "A", "price": 1} {"sku": "B"}]', "invalid JSON after item 1: expected , or ]"),
        ('[{"sku": "A", "price": 1}] trailing', "unexpected data after the JSON array's 1 items"),
        ("", "a JSON feed must be an array of row objects: [{...}, ...]"),
    ],
)
def test_malformed_json_raises_a_feed_error(data, message):
    with pytest.raises(FeedFormatError) as caught:
        rows(data, format="json")
    assert str(caught.value) == message


def test_cloud_rows_use_model_keys_and_divide_node_prices_per_gpu():
    parsed = rows(
        "gpu_model,provider,commitment,price,gpu_count,currency\n"
        "NVIDIA HGX H100,CoreWeave,,49.24,8,USD\n"
        "H100_PCIE,Lambda,reserved-1y,2.4900,,USD\n"
        "NVIDIA Tesla K80,Azure,on_demand,0.91,1,USD\n"
        "L40S,X,weekly,1,1,USD\n"
        "L40S,X,on_demand,1,0,USD\n"
        "l40s,x,on_demand,2,1,USD\n",
        kind="cloud",
    )
    assert parsed[:2] == [
        CloudPriceRow(
            2, "H100_SXM", "on_demand", "CoreWeave", Decimal("6.1550"), "USD", TODAY, "test feed"
        ),
        CloudPriceRow(
            3, "H100_PCIE", "reserved_1y", "Lambda", Decimal("2.4900"), "USD", TODAY, "test feed"
        ),
    ]
    assert errors(parsed) == [
        (4, "gpu_model", "is not a GPU model known to the TCO tables"),
        (5, "commitment", "must be one of on_demand, reserved_1y, reserved_3y"),
        (6, "gpu_count", "must be a whole number from 1 to 1024"),
    ]
    # Rows 5 and 6 were rejected, so row 7 (same key, provider case aside) is no duplicate.
    assert parsed[5] == CloudPriceRow(
        7, "L40S", "on_demand", "x", Decimal("2.0000"), "USD", TODAY, "test feed"
    )


def test_cloud_duplicates_ignore_provider_case():
    parsed = rows("gpu_model,provider,price\nL4,RunPod,0.44\nNVIDIA L4,runpod,0.45\n", kind="cloud")
    assert errors(parsed) == [
        (3, "row", "duplicates row 2 (same GPU model, commitment, provider and currency)")
    ]


def test_cloud_prices_keep_four_decimal_places():
    parsed = rows("gpu_model,price\nL4,0.81995\n", kind="cloud")
    assert errors(parsed) == [(2, "price", "has more than 4 decimal places")]


def test_sample_feeds_in_the_repository_parse_without_errors():
    samples: dict[str, dict[str, Any]] = {
        "supplier-eur.csv": {"kind": "supplier", "format": "csv"},
        "hosting-eur.csv": {"kind": "hosting", "format": "csv"},
        "supplier-usd.json": {
            "kind": "supplier",
            "format": "json",
            "default_currency": "USD",
            "column_map": {
                "sku": "part_number",
                "price": "unit_price",
                "observed_on": "price_date",
                "source": "note",
            },
        },
        "cloud-usd.csv": {"kind": "cloud", "format": "csv", "default_currency": "USD"},
        "cloud-eur.json": {"kind": "cloud", "format": "json"},
    }
    counts = {}
    for name, options in samples.items():
        with (FEEDS / "samples" / name).open("rb") as stream:
            parsed = list(iter_rows(stream, spec(today=dt.date(2026, 12, 2), **options)))
        assert errors(parsed) == [], name
        counts[name] = len(parsed)
    assert counts == {
        "supplier-eur.csv": 57,
        "hosting-eur.csv": 22,
        "supplier-usd.json": 57,
        "cloud-usd.csv": 25,
        "cloud-eur.json": 9,
    }
