"""More, smaller model copies for a GPU whose servers cannot hold the sizing's copy.

Llama 3.1 70B in BF16 (141.1 GB of weights) for 64 users at the default context: one copy of
8 x 48 GB holds every user's KV cache; a copy of 4 x 48 GB (172.8 GB usable at 90 %) holds the
weights and up to 9 users' KV cache, so 8 copies of 4 (8 users each) serve the 64 users; 2 x 48
GB cannot hold the weights at all.
"""

from __future__ import annotations

from engine.advice.on_gpu import gpu_profile
from engine.advice.pipeline import smaller_copies
from engine.build.parts import FormFactor
from engine.sizing import max_concurrent_requests, size
from engine.workload import workload_from_dict
from tests.engine import catalog_factory as make

L40S = make.gpu(
    sku="GPU-L40S",
    name="L40S",
    memory_gb=48.0,
    memory_bandwidth_gbs=864.0,
    bf16_tflops=362.1,
    fp8_tflops=733.0,
    tdp_w=350,
    form_factor=FormFactor.PCIE,
    nvlink_gbs=None,
    baseboard="",
    architecture="Ada Lovelace",
)


def _serve(users: int):
    return workload_from_dict(
        {"task": "inference", "model": "llama-3.1-70b", "inference": {"concurrent_requests": users}}
    )


def test_a_copy_too_large_for_a_server_becomes_copies_of_four_each_with_its_users():
    workload = _serve(64)
    assert size(workload, gpu=gpu_profile(L40S)).replica_gpus == 8
    assert max_concurrent_requests(workload, gpu=gpu_profile(L40S), gpus=4) == 9

    fits = smaller_copies(workload, L40S, 8)

    assert [(fit.gpus, fit.replica_gpus, fit.model_sharded) for fit in fits] == [(32, 4, True)]
    # Each GPU holds a quarter of the weights and of its copy's 8 users' KV cache.
    eight_users = size(_serve(8), gpu=gpu_profile(L40S), gpus=4, explain=False)
    assert fits[0].memory_per_gpu_gb == eight_users.memory_per_gpu_gb.total
    assert fits[0].memory_per_gpu_gb <= 0.9 * 48


def test_no_smaller_copies_for_a_copy_of_one_gpu_or_for_training():
    assert smaller_copies(_serve(64), L40S, 1) == ()
    training = workload_from_dict(
        {"task": "fine_tuning", "model": "llama-3.1-8b", "training": {"method": "lora"}}
    )
    assert smaller_copies(training, L40S, 8) == ()
