"""What the answers say about staying up: the speed with one server down and the single points
of failure of an option (``engine.performance.degraded``, ``engine.build.cluster.single_points``).
"""

from rest_framework import serializers

from engine.build.cluster.single_points import SERVER, SINGLE_POINT_ROLES


class OneServerDownSchema(serializers.Serializer):
    servers = serializers.IntegerField(help_text="Servers still up.")
    replicas = serializers.IntegerField(
        help_text="Model copies still serving (0: no whole copy is left, the service stops)."
    )
    tokens_per_second_per_user = serializers.FloatField(
        help_text="Decode speed each user sees while one server is repaired, every user "
        "still served at once by the copies left."
    )
    tokens_per_second = serializers.FloatField(help_text="All users together.")


class SinglePointSchema(serializers.Serializer):
    role = serializers.ChoiceField(
        choices=[SERVER, *SINGLE_POINT_ROLES],
        help_text="server: the only GPU server; else the cluster role of the part bought once.",
    )
    name = serializers.CharField(help_text="The part's catalog name.")
    # A declared field (the serializer's metaclass takes it), not the Field's own ``label``.
    label = serializers.CharField(  # type: ignore[assignment]
        help_text="What it is, in the reader's language."
    )
