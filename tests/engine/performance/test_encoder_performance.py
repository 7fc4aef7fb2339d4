"""An encoder's serving figures (engine.performance.encoder), worked out by hand.

BERT-large (registry: 335,141,888 parameters, 24 layers, 16 heads x 64 = 1,024 attention width)
on requests of 512 tokens: 2 x 335,141,888 x 512 = 343.18 GFLOPs for the weights, plus
bidirectional attention over every pair of tokens, 4 x 24 x 1,024 x 512^2 = 25.77 GFLOPs:
368.96 GFLOPs per request. Each GPU runs them at its training MFU (40% by default).
No public benchmark at these settings was found to check against: MLPerf's "bert-99" runs INT8
on SQuAD questions of variable length (at most 384 tokens), so the figures below are the
formula's, computed here independently of the code.
"""

import pytest

from engine.assumptions.gpu_models import training_mfu
from engine.performance.options import delivered, performance_for
from engine.workload import workload_from_dict
from tests.engine.catalog_factory import gpu

H100 = gpu()  # 989 dense BF16 TFLOP/s
L4 = gpu(sku="GPU-L4", name="L4", memory_gb=24.0, memory_bandwidth_gbs=300.0, bf16_tflops=121.0)

PARAMETERS = 335_141_888
FLOPS_PER_REQUEST = 2 * PARAMETERS * 512 + 4 * 24 * 1024 * 512**2


def _bert(**extra):
    return workload_from_dict(
        {
            "task": "inference",
            "model": "bert-large",
            "inference": {"concurrent_requests": 64, "sequence_length": 512},
            **extra,
        }
    )


def test_bert_large_embeddings_per_second_on_one_h100():
    result = performance_for(_bert(), H100, gpus_per_replica=1, replicas=1, total_gpus=1)

    encoder = result.encoder
    assert encoder is not None
    assert (result.serving, result.images, result.training) == (None, None, None)
    assert round(FLOPS_PER_REQUEST / 1e7) == 36_896  # 368.96 GFLOPs
    assert encoder.flops_per_request == pytest.approx(FLOPS_PER_REQUEST, rel=1e-12)
    mfu = training_mfu("H100 SXM").value
    # 989e12 x 0.40 / 368.96e9: ~1,072 embeddings/s, 0.93 ms per request alone.
    assert encoder.embeddings_per_second == pytest.approx(989e12 * mfu / FLOPS_PER_REQUEST)
    assert encoder.embeddings_per_second == pytest.approx(1072, abs=1)
    assert encoder.seconds_per_request == pytest.approx(FLOPS_PER_REQUEST / (989e12 * mfu))
    # 64 requests at once on one GPU: the last is done after 64 of them.
    assert encoder.seconds_at_concurrency == pytest.approx(64 * encoder.seconds_per_request)
    assert encoder.index_hours is None
    assert delivered(result) == encoder.embeddings_per_second
    assert result.lines[0].render() == (
        "~1072 embeddings/s of 512 tokens on 1 x H100 SXM, 0.93 ms per request alone, "
        "0.06 s for 64 requests at once"
    )


def test_bert_large_on_four_l4_and_the_time_to_index_the_data_set():
    workload = _bert(data={"kind": "text", "items": 10_000_000})

    result = performance_for(workload, L4, gpus_per_replica=1, replicas=4, total_gpus=4)

    encoder = result.encoder
    assert encoder is not None
    per_gpu = 121e12 * training_mfu("L4").value / FLOPS_PER_REQUEST
    assert encoder.embeddings_per_second == pytest.approx(4 * per_gpu)
    # 64 requests over 4 GPUs: 16 rounds each.
    assert encoder.seconds_at_concurrency == pytest.approx(16 / per_gpu)
    # 10 million items of 512 tokens at 4 x ~131/s: ~5.3 hours.
    hours = 10_000_000 / (4 * per_gpu) / 3600
    assert encoder.index_hours == pytest.approx(hours)
    assert result.lines[1].render() == f"Indexing the 10000000 items takes ~{round(hours, 1)} h"
