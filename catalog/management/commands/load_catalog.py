"""python manage.py load_catalog [PATH] [--service-tiers PATH] — load the seed catalog
idempotently.

Parts and their prices (``catalog.json``) are created or updated from the file, prices added as
history. Managed hosting's service tiers (``service_tiers.json``) are created when missing and
never changed afterwards: the sales team edits them in the admin, and a re-run keeps their edits
(a seed tier deleted there comes back: untick "offered" instead).
"""

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from catalog.models import ServiceTier
from catalog.models.services import SERVICE_FIELDS
from catalog.services import CatalogDataError, catalog_load

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
DEFAULT_PATH = DATA_DIR / "catalog.json"
DEFAULT_SERVICE_TIERS_PATH = DATA_DIR / "service_tiers.json"
# What a seed tier may set; anything else in an entry (its ``basis``) is documentation.
SERVICE_TIER_FIELDS = (
    "code",
    "name_en",
    "name_fr",
    *SERVICE_FIELDS,
    "monthly_price_eur",
    "monthly_price_usd",
    "is_default",
    "active",
    "position",
)


class Command(BaseCommand):
    help = (
        "Create or update catalog parts and prices from a JSON data file, and create the missing "
        "service tiers (idempotent)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", default=str(DEFAULT_PATH))
        parser.add_argument(
            "--service-tiers", dest="tiers_path", default=str(DEFAULT_SERVICE_TIERS_PATH)
        )

    def handle(self, *args, path: str, tiers_path: str, **options):
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            report = catalog_load(parts=data["parts"])
        except (OSError, json.JSONDecodeError, KeyError, CatalogDataError) as exc:
            raise CommandError(f"Could not load the catalog from {path}: {exc}") from exc
        try:
            tiers = json.loads(Path(tiers_path).read_text(encoding="utf-8"))["service_tiers"]
            created, kept = _service_tiers_create_missing(tiers)
        except (OSError, json.JSONDecodeError, KeyError, TypeError, CatalogDataError) as exc:
            raise CommandError(
                f"Could not load the service tiers from {tiers_path}: {exc}"
            ) from exc
        self.stdout.write(
            f"Catalog loaded from {path}: {report}; "
            f"service tiers: {created} created, {kept} kept as they are"
        )


@transaction.atomic
def _service_tiers_create_missing(entries: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """Create each seed tier whose code no tier has; all or nothing. A seed default is created
    as an ordinary tier when the sales team already made another tier the default."""
    created = kept = 0
    for entry in entries:
        code = entry.get("code") or "?"
        unknown = set(entry) - {*SERVICE_TIER_FIELDS, "basis"}
        if unknown:
            raise CatalogDataError(f"service tier {code}: unknown fields {sorted(unknown)}")
        if ServiceTier.objects.filter(code=code).exists():
            kept += 1
            continue
        tier = ServiceTier(**{name: entry[name] for name in SERVICE_TIER_FIELDS if name in entry})
        if tier.is_default and ServiceTier.objects.filter(is_default=True, active=True).exists():
            tier.is_default = False
        try:
            tier.full_clean()
        except ValidationError as exc:
            raise CatalogDataError(f"service tier {code}: {exc.message_dict}") from exc
        tier.save()
        created += 1
    return created, kept
