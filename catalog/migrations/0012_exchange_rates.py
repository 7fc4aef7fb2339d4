import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0011_cloud_offers"),
    ]

    operations = [
        migrations.CreateModel(
            name="ExchangeRate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "currency",
                    models.CharField(
                        help_text="ISO 4217 code.", max_length=3, verbose_name="currency"
                    ),
                ),
                (
                    "per_eur",
                    models.DecimalField(
                        decimal_places=6,
                        help_text="1 EUR = this much.",
                        max_digits=12,
                        verbose_name="units per euro",
                    ),
                ),
                ("rate_date", models.DateField(verbose_name="rate date")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="recorded at")),
                (
                    "price_source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="catalog.pricesource",
                        verbose_name="source",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="catalog.pricerefreshrun",
                        verbose_name="run",
                    ),
                ),
            ],
            options={
                "verbose_name": "exchange rate",
                "verbose_name_plural": "exchange rates",
                "ordering": ["-rate_date", "currency"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("currency", "rate_date"), name="catalog_exchangerate_one_per_day"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("per_eur__gt", 0), ("per_eur__lte", 100000)),
                        name="catalog_exchangerate_rate_in_range",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("currency__regex", "^[A-Z]{3}$"),
                            models.Q(("currency", "EUR"), _negated=True),
                        ),
                        name="catalog_exchangerate_currency_iso4217",
                    ),
                ],
            },
        ),
    ]
