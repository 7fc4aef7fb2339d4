"""What the answers say about serving a model that is not a language model: images/s with the
last user's wait (``engine.performance.images``), and an encoder's embeddings/s with the time to
index the data set (``engine.performance.encoder``)."""

from rest_framework import serializers

from engine.performance.images import LONG_WAIT_S


class ImageSpeedSchema(serializers.Serializer):
    images_per_second = serializers.FloatField(help_text="All GPUs, one image at a time each.")
    seconds_per_image = serializers.FloatField(help_text="One image on one GPU.")
    steps = serializers.IntegerField(help_text="Denoising steps (1: not a diffusion model).")
    flops_per_image = serializers.FloatField()
    users = serializers.IntegerField(
        allow_null=True, help_text="The asked concurrency, each user asking one image."
    )
    wait_s = serializers.FloatField(
        allow_null=True,
        help_text="How long the last of those users waits: ceil(users / GPUs) x seconds per "
        "image (all asking at once).",
    )
    long_wait = serializers.BooleanField(
        allow_null=True, help_text=f"The wait is longer than {LONG_WAIT_S:g} s."
    )


class EncoderSpeedSchema(serializers.Serializer):
    embeddings_per_second = serializers.FloatField(
        help_text="Requests of sequence_length tokens per second over all the GPUs."
    )
    seconds_per_request = serializers.FloatField(help_text="One request alone on one GPU.")
    seconds_at_concurrency = serializers.FloatField(
        help_text="Until the last of the asked concurrent requests is done."
    )
    sequence_length = serializers.IntegerField()
    flops_per_request = serializers.FloatField()
    index_hours = serializers.FloatField(
        allow_null=True,
        help_text="Hours to embed the data set's items (null: no item count given).",
    )
