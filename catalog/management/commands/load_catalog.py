"""python manage.py load_catalog [PATH] — load the seed catalog idempotently."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.services import CatalogDataError, catalog_load

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "catalog.json"


class Command(BaseCommand):
    help = "Create or update catalog parts and prices from a JSON data file (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", default=str(DEFAULT_PATH))

    def handle(self, *args, path: str, **options):
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            report = catalog_load(parts=data["parts"])
        except (OSError, json.JSONDecodeError, KeyError, CatalogDataError) as exc:
            raise CommandError(f"Could not load the catalog from {path}: {exc}") from exc
        self.stdout.write(f"Catalog loaded from {path}: {report}")
