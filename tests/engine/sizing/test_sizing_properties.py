"""Properties of the sizing that hold for any workload (Hypothesis): memory monotone in
batch, sequence and requests, per-GPU memory never growing with more GPUs, minimal GPU
counts, explanations that always render.
"""

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.sizing import USABLE_MEMORY_FRACTION, GpuProfile, min_gpus, size
from engine.workload import (
    Inference,
    Optimizer,
    Precision,
    Sharding,
    Task,
    Training,
    TrainingMethod,
    Workload,
    context_limit,
)
from tests.engine.sizing.sizing_figures import GB, H100

TRANSFORMERS = ["llama-2-7b", "llama-3.1-8b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b"]


@st.composite
def training_workloads(draw):
    return Workload(
        task=Task.FINE_TUNING,
        model=draw(st.sampled_from([*TRANSFORMERS, "resnet-50", "stable-diffusion-xl"])),
        precision=draw(st.sampled_from([Precision.BF16, Precision.FP32, Precision.FP8])),
        training=Training(
            method=draw(st.sampled_from(list(TrainingMethod))),
            optimizer=draw(st.sampled_from(list(Optimizer))),
            batch_size=draw(st.integers(1, 512)),
            sequence_length=draw(st.integers(1, 16384)),
            gradient_checkpointing=draw(st.booleans()),
            sharding=draw(st.sampled_from(list(Sharding))),
            gpus=draw(st.integers(1, 256)),
        ),
    )


@st.composite
def inference_workloads(draw):
    """Contexts within the model's maximum (a longer one is refused)."""
    model = draw(st.sampled_from([*TRANSFORMERS, "bert-large", "resnet-50"]))
    limit = context_limit(Workload(task=Task.INFERENCE, model=model)) or 65536
    return Workload(
        task=Task.INFERENCE,
        model=model,
        precision=draw(st.sampled_from(list(Precision))),
        inference=Inference(
            concurrent_requests=draw(st.integers(1, 512)),
            sequence_length=draw(st.integers(1, min(65536, limit))),
        ),
    )


@given(training_workloads(), st.integers(1, 1024))
def test_per_gpu_memory_never_grows_with_more_gpus(workload, gpus):
    fewer = size(workload, gpus=gpus).memory_per_gpu_gb.total
    more = size(workload, gpus=gpus + 1).memory_per_gpu_gb.total
    assert more <= fewer * (1 + 1e-12)


@given(training_workloads(), st.integers(1, 64), st.integers(1, 2048))
def test_training_memory_is_monotone_in_batch_and_sequence(workload, extra_batch, extra_tokens):
    t = workload.training
    base = size(workload)
    bigger_batch = size(
        replace(workload, training=replace(t, batch_size=t.batch_size + extra_batch))
    )
    longer = size(
        replace(workload, training=replace(t, sequence_length=t.sequence_length + extra_tokens))
    )
    for other in (bigger_batch, longer):
        assert other.memory_gb.total >= base.memory_gb.total
        assert other.memory_per_gpu_gb.total >= base.memory_per_gpu_gb.total


@given(inference_workloads(), st.integers(1, 64), st.integers(1, 4096))
def test_inference_memory_is_monotone_in_requests_and_sequence(workload, more, extra_tokens):
    i = workload.inference
    base = size(workload, gpus=2)
    busier = size(
        replace(workload, inference=replace(i, concurrent_requests=i.concurrent_requests + more)),
        gpus=2,
    )
    limit = context_limit(workload) or i.sequence_length + extra_tokens
    longer = size(
        replace(
            workload,
            inference=replace(i, sequence_length=min(i.sequence_length + extra_tokens, limit)),
        ),
        gpus=2,
    )
    for other in (busier, longer):
        assert other.memory_per_gpu_gb.total >= base.memory_per_gpu_gb.total


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(inference_workloads(), st.sampled_from([16, 24, 40, 48, 80, 141]))
def test_min_gpus_for_inference_fits_and_no_smaller_layout_does(workload, memory_gb):
    """The fewest GPUs in whole copies of a valid tensor-parallel size: they fit, and no layout
    of fewer GPUs does. Copies spanning servers (pipeline stages) only when no tensor-parallel
    copy fits at any count, and then the fewest GPUs among them."""
    from engine.sizing.constants import MAX_GPUS
    from engine.sizing.fit import replica_sizes, tensor_parallel_degrees
    from engine.sizing.model import resolve
    from engine.sizing.plan import memory_plan

    n = min_gpus(workload, gpu_memory_gb=memory_gb)
    usable = USABLE_MEMORY_FRACTION * memory_gb
    if n is None:
        assert size(workload, gpus=4096).memory_per_gpu_gb.total > usable
        return
    profile = GpuProfile(name="G", memory_gb=memory_gb, memory_bandwidth_gbs=1000, bf16_tflops=100)
    sized = size(workload, gpu=profile)
    assert (sized.gpus, sized.fits) == (n, True)
    assert n % sized.replica_gpus == 0
    model = resolve(workload.model, workload.parameters_billions, workload.architecture)
    plan = memory_plan(workload, model)
    sizes = [1]
    if plan.tensor_parallel:
        in_server = tensor_parallel_degrees(model.arch)
        sizes = list(in_server)
        if sized.replica_gpus not in in_server:
            for replica in in_server:
                most = MAX_GPUS // replica * replica
                assert plan.total_per_gpu(most, replica=replica) > usable * GB
            sizes = list(replica_sizes(model.arch))
    for replica in sizes:
        fewer = (n - 1) // replica * replica
        if fewer >= replica:
            assert plan.total_per_gpu(fewer, replica=replica) > usable * GB


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(training_workloads(), st.sampled_from([24, 48, 80]))
def test_min_gpus_for_training_fits_and_one_less_does_not(workload, memory_gb):
    n = min_gpus(workload, gpu_memory_gb=memory_gb)
    usable = USABLE_MEMORY_FRACTION * memory_gb
    zero3 = replace(workload, training=replace(workload.training, sharding=Sharding.ZERO3))

    def fits(w, gpus):
        return size(w, gpus=gpus).memory_per_gpu_gb.total <= usable

    if n is None:
        assert not fits(zero3, 4096)
        return
    if fits(workload, n):
        assert n == 1 or not fits(workload, n - 1)
    else:
        # The ZeRO-3 fallback, reported only because the own sharding does not fit at n.
        assert fits(zero3, n)
    # Minimal over both: ZeRO-3 holds the least per GPU, and it does not fit on n - 1.
    assert n == 1 or not fits(zero3, n - 1)


@given(inference_workloads())
def test_every_explanation_renders(workload):
    for explanation in size(workload, gpu=H100).explanations:
        assert "%(" not in explanation.message.render()
