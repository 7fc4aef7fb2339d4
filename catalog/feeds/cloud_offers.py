"""Read cloud GPU offers in gpuhunt's published catalog format (dstack's price collector).

gpuhunt publishes, per provider, a ``catalog.zip`` holding ``<provider>.csv`` (older catalogs put
every provider's CSV in one archive). Each CSV row is one instance type in one region, on demand
or spot, priced per hour in US dollars for the whole instance, with the header (catalog v2):

    instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,
    gpu_vendor,flags,cpu_arch,provider_data

We read the format ourselves instead of importing gpuhunt (its ``Catalog`` downloads from S3 and
its package pulls ``requests``); only ``instance_name``, ``location``, ``price``, ``gpu_count``,
``gpu_name``, ``gpu_memory`` and ``spot`` are used, other columns are ignored.

- Format ``csv``: one provider's file; the provider is the source's name (the applier fills it)
  unless the file has a ``provider`` column.
- Format ``zip``: every ``*.csv`` member at the archive's top level, the provider being the file
  stem (``aws.csv`` -> AWS). Bounded: at most ``MAX_ARCHIVE_MEMBERS`` members, names without a
  path; other members are ignored. Before any member is inflated, the sizes the archive declares
  are checked against ``spec.limits`` (``FeedLimitError``): at most ``max_inflated_bytes`` in all,
  and no member inflating more than ``max_compression_ratio`` times (a "zip bomb"). zipfile
  never inflates a member past its declared size (and checks its CRC), so the check holds.

Rows without a GPU (``gpu_count`` 0) and rows for a GPU the TCO tables do not model
(``engine.assumptions.gpu_model_key`` knows no key for it: T4, A10G, RTX 4090, TPUs...) are
skipped, neither read nor rejected: a provider's catalog is mostly such rows, and counting them
rejected would reject every real feed. The catalog has no date column: every offer is observed on
the day of the run (``spec.today``). Pure Python, like the rest of ``catalog.feeds``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import IO, BinaryIO

from catalog.feeds.cells import CellError
from catalog.feeds.parse import FeedSpec
from catalog.feeds.types import FeedFormat, FeedFormatError, FeedLimitError, FeedLimits, RowError
from engine.assumptions import gpu_model_key

OFFER_CURRENCY = "USD"  # gpuhunt's prices are US dollars per hour
REQUIRED_COLUMNS = ("instance_name", "location", "price", "gpu_count", "gpu_name", "spot")
# Offers are stored per GPU-hour with 4 places (CloudOffer.price_per_gpu_hour: 10 digits).
PRICE_PLACES, PRICE_LIMIT = 4, Decimal(10) ** 6
MAX_PRICE_CHARS = 32
MAX_INSTANCE_CHARS = 128
MAX_REGION_CHARS = 64
MAX_PROVIDER_CHARS = 64
MAX_GPU_NAME_CHARS = 64
MAX_GPU_COUNT = 1024
MAX_GPU_MEMORY_GB = 4096
# A gpuhunt catalog has one CSV per provider (about twenty).
MAX_ARCHIVE_MEMBERS = 64
# The compression ratio is checked on members inflating past this: a small file of repeated
# lines may compress a lot and still cost nothing to read.
RATIO_FLOOR_BYTES = 1024 * 1024
# Grace CPU + GPU superchips (GH200, GB200): not the GPU boards the TCO tables price.
GRACE_SUPERCHIP_PREFIXES = ("gh", "gb")
MEMBER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.csv")
# How a provider's file stem reads to a customer; other stems are shown as they are.
PROVIDER_NAMES = {
    "aws": "AWS",
    "azure": "Azure",
    "gcp": "Google Cloud",
    "lambdalabs": "Lambda",
    "nebius": "Nebius",
    "oci": "OCI",
    "runpod": "RunPod",
    "vastai": "Vast.ai",
    "verda": "Verda",
    "datacrunch": "DataCrunch",
    "cloudrift": "CloudRift",
    "cudo": "Cudo Compute",
    "tensordock": "TensorDock",
    "vultr": "Vultr",
}


@dataclass(frozen=True, slots=True)
class CloudOfferRow:
    """One GPU offer; ``gpu_model`` is the canonical key (``H100_SXM``), ``price_per_gpu_hour``
    the instance's hourly price divided by its GPU count. ``provider`` is "" when the source's
    name is to be used. ``row``: the CSV line (in an archive, counted on across its files)."""

    row: int
    provider: str
    instance: str
    region: str
    gpu_model: str
    gpu_count: int
    price_per_gpu_hour: Decimal
    spot: bool
    currency: str
    observed_on: dt.date


CloudOfferItem = CloudOfferRow | RowError


def iter_cloud_offers(stream: BinaryIO, spec: FeedSpec) -> Iterator[CloudOfferItem]:
    """Every GPU offer of the feed we model, valid (``CloudOfferRow``) or not (``RowError``)."""
    if spec.format == FeedFormat.CSV:
        yield from _csv_offers(stream, spec, provider="", first_row=0, label="")
    elif spec.format == FeedFormat.ZIP:
        yield from _zip_offers(stream, spec)
    else:
        raise FeedFormatError(f"cloud offers are read from CSV or ZIP, not {spec.format!r}")


# --- Archives ------------------------------------------------------------------------------------


def _zip_offers(stream: BinaryIO, spec: FeedSpec) -> Iterator[CloudOfferItem]:
    try:
        archive = zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise FeedFormatError("the feed is not a readable ZIP archive") from exc
    with archive:
        members = _csv_members(archive, spec.limits)
        rows_before = 0
        for info, provider in members:
            counter = _LineCounter()
            try:
                with archive.open(info) as member:
                    yield from _csv_offers(
                        io.BufferedReader(_Bounded(member, info.file_size)),
                        spec,
                        provider=provider,
                        first_row=rows_before,
                        label=info.filename,
                        counter=counter,
                    )
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
                raise FeedFormatError(f"{info.filename}: unreadable archive member") from exc
            rows_before += counter.lines


def _csv_members(archive: zipfile.ZipFile, limits: FeedLimits) -> list[tuple[zipfile.ZipInfo, str]]:
    """The archive's provider files with their provider names, after checking its bounds."""
    infos = archive.infolist()
    if len(infos) > MAX_ARCHIVE_MEMBERS:
        raise FeedFormatError(
            f"the archive has {len(infos)} members; at most {MAX_ARCHIVE_MEMBERS} are read"
        )
    members: list[tuple[zipfile.ZipInfo, str]] = []
    stems: set[str] = set()
    total = 0
    for position, info in enumerate(infos, start=1):
        name = info.filename
        if "/" in name or "\\" in name or ".." in name or name.startswith("."):
            raise FeedFormatError(
                f"archive member {position} has a path in its name: only top-level files are read"
            )
        if not name.lower().endswith(".csv"):
            continue  # a version file, a README...
        if not MEMBER_NAME.fullmatch(name):
            raise FeedFormatError(
                f"archive member {position}: a provider file is named like aws.csv "
                "(letters, digits, - and _)"
            )
        if info.flag_bits & 0x1:
            raise FeedFormatError(f"{name}: encrypted archive members are not read")
        stem = name[:-4].lower()
        if stem in stems:
            raise FeedFormatError(f"{name}: the archive has two files for provider {stem!r}")
        stems.add(stem)
        _inflation_check(info, limits)
        total += info.file_size
        if total > limits.max_inflated_bytes:
            raise FeedLimitError(
                f"the archive's CSV files inflate to more than {limits.max_inflated_bytes:,} "
                "bytes (PRICE_FEED_MAX_INFLATED_BYTES)"
            )
        members.append((info, PROVIDER_NAMES.get(stem, stem)))
    if not members:
        raise FeedFormatError("the archive holds no provider CSV file (aws.csv, gcp.csv, ...)")
    return sorted(members, key=lambda member: member[0].filename.lower())


def _inflation_check(info: zipfile.ZipInfo, limits: FeedLimits) -> None:
    """Refuse a member that inflates too many times its compressed size (a "zip bomb")."""
    if info.file_size <= RATIO_FLOOR_BYTES:
        return
    ratio = limits.max_compression_ratio
    if info.file_size > ratio * max(info.compress_size, 1):
        raise FeedLimitError(
            f"{info.filename} inflates {info.file_size // max(info.compress_size, 1):,} times "
            f"its compressed size; at most {ratio} times is read "
            "(PRICE_FEED_MAX_COMPRESSION_RATIO)"
        )


class _Bounded(io.RawIOBase):
    """A member's bytes, refusing to give more than the size the archive declared for it."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self.raw, self.left = raw, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        if len(data) > self.left:
            raise FeedFormatError("an archive member is larger than the archive declares")
        self.left -= len(data)
        buffer[: len(data)] = data
        return len(data)


@dataclass
class _LineCounter:
    lines: int = 0


# --- CSV rows ------------------------------------------------------------------------------------


def _csv_offers(
    stream: BinaryIO,
    spec: FeedSpec,
    *,
    provider: str,
    first_row: int,
    label: str,
    counter: _LineCounter | None = None,
) -> Iterator[CloudOfferItem]:
    """The offers of one provider's CSV; row numbers start after ``first_row``; ``label`` (the
    member's name) prefixes the messages of an archive's file."""
    where = f"{label} " if label else ""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    try:
        names = _header(next(reader, None), where)
        validate = _OfferValidator(spec, provider=provider, has_provider="provider" in names)
        for cells in reader:
            number = first_row + reader.line_num
            if not any(cell.strip() for cell in cells):
                continue  # blank line
            if len(cells) != len(names):
                message = f"has {len(cells)} fields; the header has {len(names)}"
                yield RowError(number, "row", _located(where, reader.line_num, message))
                continue
            item = validate(number, dict(zip(names, cells, strict=True)))
            if isinstance(item, RowError) and where:
                item = RowError(
                    item.row, item.field, _located(where, reader.line_num, item.message), item.value
                )
            if item is not None:
                yield item
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"{where}the feed is not UTF-8 text ({exc.reason})") from exc
    except csv.Error as exc:
        raise FeedFormatError(f"{where}line {reader.line_num}: unreadable CSV ({exc})") from exc
    if counter is not None:
        counter.lines = reader.line_num


def _located(where: str, line: int, message: str) -> str:
    return f"{message} ({where.strip()}, line {line})" if where else message


def _header(header: list[str] | None, where: str) -> list[str]:
    if not header or not any(cell.strip() for cell in header):
        raise FeedFormatError(f"{where}the CSV file is empty: it needs gpuhunt's header line")
    names = [cell.strip() for cell in header]
    if len(set(names)) != len(names):
        raise FeedFormatError(f"{where}line 1: two columns have the same name")
    missing = [column for column in REQUIRED_COLUMNS if column not in names]
    if missing:
        raise FeedFormatError(
            f"{where}line 1: the header lacks gpuhunt's column(s) {', '.join(missing)}"
        )
    return names


def _text(record: Mapping[str, str], name: str, limit: int, *, required: bool = True) -> str:
    value = record.get(name, "").strip()
    if required and not value:
        raise CellError(name, "is missing")
    if len(value) > limit:
        raise CellError(name, f"is longer than {limit} characters", value)
    return value


def _whole(record: Mapping[str, str], name: str, limit: int) -> int:
    raw = _text(record, name, 8)
    if not raw.isdigit() or int(raw) > limit:
        raise CellError(name, f"must be a whole number from 0 to {limit}", raw)
    return int(raw)


def _decimal(record: Mapping[str, str], name: str) -> Decimal:
    """A number as gpuhunt writes it (Python's ``str(float)``: ``3.06``, ``1e-05``)."""
    raw = _text(record, name, MAX_PRICE_CHARS)
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise CellError(name, "is not a number (use a dot for decimals)", raw) from None
    if not value.is_finite():
        raise CellError(name, "is not a finite number", raw)
    return value


class _OfferValidator:
    """Turns one CSV record into an offer, a ``RowError``, or ``None`` (a row we skip)."""

    def __init__(self, spec: FeedSpec, *, provider: str, has_provider: bool) -> None:
        if OFFER_CURRENCY not in spec.currencies:
            raise FeedFormatError(f"cloud offers are priced in {OFFER_CURRENCY}")
        self.spec, self.provider, self.has_provider = spec, provider, has_provider

    def __call__(self, number: int, record: Mapping[str, str]) -> CloudOfferItem | None:
        try:
            return self._offer(number, record)
        except CellError as exc:
            return exc.row_error(number)

    def _offer(self, number: int, record: Mapping[str, str]) -> CloudOfferRow | None:
        gpu_count = _whole(record, "gpu_count", MAX_GPU_COUNT)
        if gpu_count == 0:
            return None  # a CPU-only instance
        gpu_model = self._gpu_model(record)
        if gpu_model is None:
            return None  # a GPU the TCO tables do not model
        price = _decimal(record, "price")
        if price <= 0:
            raise CellError("price", "must be greater than zero", record["price"].strip())
        per_gpu = (price / gpu_count).quantize(Decimal(1).scaleb(-PRICE_PLACES), ROUND_HALF_UP)
        if per_gpu == 0 or per_gpu >= PRICE_LIMIT:
            message = f"must come to between 0.0001 and {PRICE_LIMIT:,} per GPU-hour"
            raise CellError("price", message, record["price"].strip())
        return CloudOfferRow(
            row=number,
            provider=self._provider(record),
            instance=_text(record, "instance_name", MAX_INSTANCE_CHARS),
            region=_text(record, "location", MAX_REGION_CHARS),
            gpu_model=gpu_model,
            gpu_count=gpu_count,
            price_per_gpu_hour=per_gpu,
            spot=self._spot(record),
            currency=OFFER_CURRENCY,
            observed_on=self.spec.today,
        )

    def _gpu_model(self, record: Mapping[str, str]) -> str | None:
        """The model key of the GPU's name and memory ("H100", 80 -> H100_SXM)."""
        name = _text(record, "gpu_name", MAX_GPU_NAME_CHARS, required=False)
        if not name:
            raise CellError("gpu_name", "is missing for an instance with GPUs")
        if name.lower().startswith(GRACE_SUPERCHIP_PREFIXES):
            return None  # GH200 would read as an H200: a superchip is not the board we model
        memory = _text(record, "gpu_memory", 16, required=False)
        if memory:
            try:
                memory_gb = Decimal(memory)
            except InvalidOperation:
                raise CellError("gpu_memory", "is not a number", memory) from None
            if not memory_gb.is_finite() or not 0 <= memory_gb <= MAX_GPU_MEMORY_GB:
                message = f"must be from 0 to {MAX_GPU_MEMORY_GB} GB"
                raise CellError("gpu_memory", message, memory)
            return gpu_model_key(f"{name} {memory_gb.to_integral_value()}GB")
        return gpu_model_key(name)

    def _spot(self, record: Mapping[str, str]) -> bool:
        raw = _text(record, "spot", 8).lower()
        if raw not in ("true", "false"):
            raise CellError("spot", "must be True or False", raw)
        return raw == "true"

    def _provider(self, record: Mapping[str, str]) -> str:
        if self.has_provider:
            named = _text(record, "provider", MAX_PROVIDER_CHARS, required=False)
            if named:
                return PROVIDER_NAMES.get(named.lower(), named)
        return self.provider
