# Storage servers state the speed of each data port, so that the storage network can cable them.

from django.db import migrations, models


def one_port_at_full_rate(apps, schema_editor):
    """Rows loaded before this field: one port carrying the whole rate until the catalog is
    reloaded with the real figure (``load_catalog``)."""
    storage_server = apps.get_model("catalog", "StorageServer")
    storage_server.objects.update(port_speed_gbps=models.F("network_gbps"))


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0005_cluster_parts_drive_form_factor"),
    ]

    operations = [
        migrations.AddField(
            model_name="storageserver",
            name="port_speed_gbps",
            field=models.PositiveIntegerField(
                default=1,
                help_text="Its data ports run at this speed: network_gbps / port_speed_gbps ports.",
                verbose_name="speed of each network port (Gb/s)",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(one_port_at_full_rate, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="storageserver",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("port_speed_gbps__gte", 1), ("port_speed_gbps__lte", models.F("network_gbps"))
                ),
                name="catalog_storageserver_port_speed_within_network",
            ),
        ),
    ]
