"""The seed catalog's EUR purchase prices were copies of its USD ones at a fixed planning rate
(1 EUR = 1.16 USD); prices are now converted where they are used, at the ECB rate of the day.
Drop those copies from databases that loaded them, so the USD observation is converted instead.
Only the rows the seed file wrote (their source names the planning rate) are removed: a EUR
price staff or a feed recorded stays, and stays preferred."""

from django.db import migrations

PLANNING_RATE_SOURCE = "EUR converted at the GPUQuote planning rate 1 EUR = 1.16 USD"


def drop_planning_rate_copies(apps, schema_editor):
    price = apps.get_model("catalog", "Price")
    price.objects.filter(
        currency="EUR", price_kind="purchase", source__contains=PLANNING_RATE_SOURCE
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("catalog", "0014_hosting_offers")]

    operations = [migrations.RunPython(drop_planning_rate_copies, migrations.RunPython.noop)]
