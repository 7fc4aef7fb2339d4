# Managed-hosting fees are the host's own computed price (engine.tco.hosting),
# not catalog prices. The per-part fees the seed catalog carried were below the hardware's own
# payback (431 EUR per MI300X GPU-month on a 212,767 EUR server); they are removed where they
# still hold the seed's text. A fee staff set has its own source and stays, as an override.

from django.db import migrations

SEEDED = "GPUQuote managed tier, per "


def seeded_fees_removed(apps, schema_editor):
    price = apps.get_model("catalog", "Price")
    price.objects.filter(price_kind="managed_monthly", source__startswith=SEEDED).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_chassis_memory_kind_m2_slots"),
    ]

    operations = [
        migrations.RunPython(seeded_fees_removed, migrations.RunPython.noop),
    ]
