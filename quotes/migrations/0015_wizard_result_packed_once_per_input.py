"""Wizard results stored compressed, once per question and data version.

The JSON column becomes a binary one holding the same value as compressed JSON
(``quotes.models.fields.PackedJSONField``): a new column is added, every stored result is
copied into it, the old one is dropped and the new one takes its name. Backwards, the values
are copied back into a JSON column. The rows stored before get no inputs digest (their data
version is not known): they are never matched by a new question.
"""

from django.db import migrations, models

import quotes.models.fields

BATCH_ROWS = 500


def results_pack(apps, schema_editor):
    """Copy every result into the compressed column (the field compresses on save)."""
    WizardResult = apps.get_model("quotes", "WizardResult")
    _copy(WizardResult, source="result", target="result_packed")


def results_unpack(apps, schema_editor):
    WizardResult = apps.get_model("quotes", "WizardResult")
    _copy(WizardResult, source="result_packed", target="result")


def _copy(model, *, source: str, target: str) -> None:
    rows = model.objects.only("pk", source).order_by("pk")
    batch = []
    for row in rows.iterator(chunk_size=BATCH_ROWS):
        setattr(row, target, getattr(row, source))
        batch.append(row)
        if len(batch) == BATCH_ROWS:
            model.objects.bulk_update(batch, [target])
            batch = []
    if batch:
        model.objects.bulk_update(batch, [target])


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0014_revision_approved_digest"),
    ]

    operations = [
        migrations.AddField(
            model_name="wizardresult",
            name="result_packed",
            field=quotes.models.fields.PackedJSONField(null=True, verbose_name="result"),
        ),
        # Nullable for the way back: the JSON column is added again empty, then filled.
        migrations.AlterField(
            model_name="wizardresult",
            name="result",
            field=models.JSONField(null=True, verbose_name="result"),
        ),
        migrations.RunPython(results_pack, results_unpack, elidable=False),
        migrations.RemoveField(model_name="wizardresult", name="result"),
        migrations.RenameField(
            model_name="wizardresult", old_name="result_packed", new_name="result"
        ),
        migrations.AlterField(
            model_name="wizardresult",
            name="result",
            field=quotes.models.fields.PackedJSONField(verbose_name="result"),
        ),
        migrations.AddField(
            model_name="wizardresult",
            name="inputs_digest",
            field=models.CharField(
                blank=True, default="", editable=False, max_length=64, verbose_name="inputs digest"
            ),
        ),
        migrations.AddField(
            model_name="wizardresult",
            name="data_version",
            field=models.CharField(
                blank=True, default="", editable=False, max_length=64, verbose_name="data version"
            ),
        ),
        migrations.AddConstraint(
            model_name="wizardresult",
            constraint=models.UniqueConstraint(
                condition=models.Q(("inputs_digest", ""), _negated=True),
                fields=("inputs_digest", "data_version"),
                name="quotes_wizardresult_one_per_inputs_data_version",
            ),
        ),
    ]
