"""The sizing explains every figure it gives, with a source, and answers well under a
millisecond.
"""

from engine.sizing import size
from engine.workload import Task, Workload, workload_from_dict
from tests.engine.sizing.sizing_figures import H100


def test_every_figure_is_explained_with_a_source():
    workload = workload_from_dict(
        {
            "task": "fine_tuning",
            "model": "llama-3.1-70b",
            "training": {
                "method": "qlora",
                "gpus": 16,
                "training_tokens": 10**9,
                "deadline_days": 2,
            },
            "data": {"kind": "text", "total_gb": 1},
        }
    )
    sizing = size(workload, gpu=H100)
    keys = [e.key for e in sizing.explanations]
    assert len(keys) == len(set(keys))
    assert {
        "model",
        "memory.weights",
        "memory.gradients",
        "memory.optimizer_states",
        "memory.activations",
        "memory.overhead",
        "memory.total",
        "memory_per_gpu.total",
        "fits",
        "min_gpus",
        "training_flops",
        "training_hours",
        "gpus_for_deadline",
        "interconnect",
        "large_project",
        "storage_gb",
        "storage_read_mbs",
        "cpu_cores",
        "system_ram_gb",
    } <= set(keys)
    for explanation in sizing.explanations:
        assert explanation.source
        assert "%(" not in explanation.message.render()


def test_custom_model_without_architecture_says_which_shape_it_assumed():
    workload = Workload(task=Task.INFERENCE, parameters_billions=65)
    (explanation,) = [e for e in size(workload).explanations if e.key == "model"]
    params = explanation.message.params
    # The shape is fitted over the registry's dense decoders, all named; a 65B model gets a
    # 70B-class shape (about 70 layers of hidden size 8192-9216, 8 KV heads).
    assert "Llama 2 70B" in params["reference"]
    assert "Llama 3.1 405B" in params["reference"]
    assert 60 <= params["layers"] <= 80
    assert 8192 <= params["hidden"] <= 9216
    assert params["kv_heads"] == 8
