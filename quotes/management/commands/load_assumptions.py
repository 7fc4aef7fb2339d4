"""python manage.py load_assumptions — seed the regional TCO defaults (never overwrites)."""

from django.core.management.base import BaseCommand

from quotes.advice.services import region_assumptions_seed


class Command(BaseCommand):
    help = "Create the regional TCO default rows that do not exist yet; staff edits are kept."

    def handle(self, *args, **options):
        self.stdout.write(f"Regional assumptions: {region_assumptions_seed()}")
