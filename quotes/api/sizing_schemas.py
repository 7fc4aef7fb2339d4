"""What a workload needs (``POST /api/v1/sizing/``) and the model registry, as the API answers
them: the response shapes for the OpenAPI schema."""

from __future__ import annotations

from rest_framework import serializers

from engine.workload import Sharding
from engine.workload.registry import Modality


class MemorySchema(serializers.Serializer):
    weights = serializers.FloatField()
    gradients = serializers.FloatField()
    optimizer_states = serializers.FloatField()
    activations = serializers.FloatField()
    kv_cache = serializers.FloatField()
    overhead = serializers.FloatField()
    total = serializers.FloatField()


class ExplanationSchema(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]  # the stubs type Field.source


class InterconnectSchema(serializers.Serializer):
    fabric = serializers.CharField()
    gbps_per_gpu = serializers.IntegerField()


class TrainingPlanSchema(serializers.Serializer):
    gpus = serializers.IntegerField(help_text="The GPUs the plan runs on.")
    global_batch = serializers.IntegerField(help_text="Samples per optimizer step, as asked.")
    micro_batch = serializers.IntegerField(help_text="Samples each GPU holds per pass.")
    accumulation_steps = serializers.IntegerField(
        help_text="Micro-batches each GPU runs per optimizer step."
    )
    data_parallel = serializers.IntegerField()
    tensor_parallel = serializers.IntegerField(help_text="1: the engine shards with ZeRO/FSDP.")
    pipeline_parallel = serializers.IntegerField(help_text="1: no pipeline stages.")
    sharding = serializers.ChoiceField(choices=[s.value for s in Sharding])
    mfu = serializers.FloatField(help_text="Share of the GPU's peak the run reaches.")
    mfu_source = serializers.CharField()
    goodput = serializers.FloatField(help_text="Share of the wall-clock time that trains.")
    goodput_source = serializers.CharField()
    hours = serializers.FloatField(allow_null=True, help_text="Wall clock, interruptions included.")
    units_per_second = serializers.FloatField(
        allow_null=True, help_text="Tokens (samples when per_sample) the cluster trains per second."
    )
    per_sample = serializers.BooleanField()
    deadline_hours = serializers.FloatField(allow_null=True)
    margin = serializers.FloatField(
        allow_null=True, help_text="deadline / hours - 1: the share of the deadline to spare."
    )
    meets_deadline = serializers.BooleanField(allow_null=True)
    tight = serializers.BooleanField(help_text="Met with less than 10 % to spare.")


class SizingResponseSchema(serializers.Serializer):
    memory_gb = MemorySchema(help_text="Whole job, GB = 10^9 bytes.")
    memory_per_gpu_gb = MemorySchema(help_text="Per GPU after sharding, GB = 10^9 bytes.")
    gpus = serializers.IntegerField()
    min_gpus = serializers.IntegerField(allow_null=True)
    fits = serializers.BooleanField(allow_null=True)
    training_flops = serializers.FloatField(allow_null=True)
    forward_flops = serializers.FloatField(allow_null=True)
    backward_flops = serializers.FloatField(allow_null=True)
    training_hours = serializers.FloatField(allow_null=True)
    mfu = serializers.FloatField()
    gpus_for_deadline = serializers.IntegerField(allow_null=True)
    tokens_per_second = serializers.FloatField(allow_null=True)
    gpus_for_target = serializers.IntegerField(allow_null=True)
    images_per_second = serializers.FloatField(
        required=False,
        allow_null=True,
        help_text="Serving a diffusion or vision model on the GPU given: images per second.",
    )
    max_context_length = serializers.IntegerField(required=False, allow_null=True)
    max_concurrent_requests = serializers.IntegerField(required=False, allow_null=True)
    system_ram_gb = serializers.FloatField()
    storage_gb = serializers.FloatField()
    storage_read_mbs = serializers.FloatField()
    cpu_cores = serializers.IntegerField()
    nodes = serializers.IntegerField()
    interconnect = InterconnectSchema(allow_null=True)
    large_project = serializers.BooleanField()
    model_sharded = serializers.BooleanField()
    micro_batch = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Training: samples each GPU holds per forward/backward pass.",
    )
    accumulation_steps = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Training: micro-batches per GPU per optimizer step to make the global batch.",
    )
    data_parallel = serializers.IntegerField(
        required=False, allow_null=True, help_text="Training: data-parallel GPUs."
    )
    sharding = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="Training: the sharding of the model states the per-GPU memory assumes ("
        + ", ".join(s.value for s in Sharding)
        + "); zero3 when the chosen one does not fit.",
    )
    training_plan = TrainingPlanSchema(
        required=False,
        allow_null=True,
        help_text="Training: how the job runs on the GPUs it is sized for (null at inference).",
    )
    explanations = ExplanationSchema(many=True)


class ModelSchema(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    family = serializers.CharField()
    parameters = serializers.IntegerField()
    parameters_billions = serializers.FloatField()
    active_parameters = serializers.IntegerField(allow_null=True)
    modality = serializers.ChoiceField(choices=[m.value for m in Modality])
    license = serializers.CharField()
    sources = serializers.ListField(child=serializers.CharField())
    architecture = serializers.DictField()
