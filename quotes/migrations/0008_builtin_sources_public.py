# The built-in regional defaults cite public sources, never a placeholder or
# a path inside the project. Rows seeded before keep their text (seeding never overwrites), so
# rows still carrying an old built-in source get the current one; a staff edit has its own source
# and is left alone.

from django.db import migrations

OLD_MARKERS = (
    "GPUQuote GPU hosting offers (shared/data/gpu_hosting_offers.csv)",
    "Epoch AI hardware prices dataset (shared/data/hardware_prices.csv)",
    "(placeholder, confirm with the host)",
)


def public_sources(apps, schema_editor):
    from engine.assumptions import builtin_facts

    region_assumption = apps.get_model("quotes", "RegionAssumption")
    for row in region_assumption.objects.all():
        if not any(marker in row.source for marker in OLD_MARKERS):
            continue
        fact = builtin_facts(row.region).get(row.name)
        if fact is not None:
            row.source = fact.source
            row.save(update_fields=["source"])


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0007_country_iso3166"),
    ]

    operations = [
        migrations.RunPython(public_sources, migrations.RunPython.noop),
    ]
