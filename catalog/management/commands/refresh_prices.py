"""python manage.py refresh_prices [SOURCE ...] — refresh price sources now, in this process."""

from django.core.management.base import BaseCommand, CommandError

from catalog.feeds import FeedTemporaryError
from catalog.models import PriceSource, RunStatus, RunTrigger
from catalog.services import price_source_refresh

FAILED = {RunStatus.FAILED, RunStatus.REJECTED}


class Command(BaseCommand):
    help = (
        "Fetch and apply price feeds now: the named sources (name or id), or every enabled one. "
        "Each run is recorded like a scheduled one; exits non-zero when a run failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("sources", nargs="*", metavar="SOURCE", help="source name or id")

    def handle(self, *args, sources: list[str], **options):
        chosen = self._sources(sources)
        if not chosen:
            self.stdout.write("No enabled price source to refresh.")
            return
        failed = 0
        for source in chosen:
            try:
                run = price_source_refresh(source_id=source.pk, trigger=RunTrigger.COMMAND)
            except FeedTemporaryError:
                run = source.runs.latest("started_at", "id")  # the run that recorded it
            failed += run.status in FAILED
            self.stdout.write(f"{source.name}: {run.get_status_display()}. {run.message}")
            for error in run.errors[:20]:
                self.stdout.write(
                    f"  row {error['row']}, {error['field']}: {error['message']} {error['value']!r}"
                )
            if run.rows_rejected > 20:
                self.stdout.write(f"  … {run.rows_rejected - 20} more rejected rows in the admin.")
        if failed:
            raise CommandError(f"{failed} of {len(chosen)} price sources failed.")

    def _sources(self, names: list[str]) -> list[PriceSource]:
        if not names:
            return list(PriceSource.objects.filter(enabled=True))
        found = []
        for name in names:
            source = PriceSource.objects.filter(name=name).first()
            if source is None and name.isdigit():
                source = PriceSource.objects.filter(pk=int(name)).first()
            if source is None:
                known = ", ".join(PriceSource.objects.values_list("name", flat=True)) or "none"
                raise CommandError(f"No price source {name!r} (known: {known}).")
            found.append(source)
        return found
