"""Stored engine results read back as the same objects (``engine.advice.codec``)."""

from __future__ import annotations

import json
from decimal import Decimal
from types import MappingProxyType

import pytest

from engine.advice.codec import CodecError, decode, encode
from engine.advice.on_gpu import sized_on
from engine.advice.pipeline import advise
from engine.assumptions import region_defaults
from engine.build.builder import BuildResult, Environment
from engine.i18n import Message
from engine.money import Money
from engine.sizing import Sizing
from engine.tco import TcoConfiguration, TcoInput, TcoResult, compute_tco
from engine.workload import workload_from_dict
from tests.engine import catalog_factory as make

WORKLOADS = (
    {"task": "inference", "model": "llama-3.1-70b", "inference": {"concurrent_requests": 16}},
    {
        "task": "fine_tuning",
        "model": "llama-3.1-8b",
        "training": {"method": "lora", "training_tokens": 10**8},
        "data": {"kind": "text", "total_gb": 5},
    },
)


def _stored(value):
    """Through JSON text, as a database column holds it."""
    return json.loads(json.dumps(encode(value)))


@pytest.mark.parametrize("raw", WORKLOADS)
def test_sizing_and_options_read_back_equal(raw):
    catalog = make.snapshot(
        make.h100_sxm(),
        make.l40s(),
        make.a100_pcie(),
        make.chassis(),
        make.pcie_chassis(),
        make.epyc_9354(),
        make.dimm(),
        make.nvme_15tb(),
        make.boot_ssd(),
        make.nic(),
    )
    advice = advise(workload_from_dict(raw), catalog, environment=Environment.PRODUCTION)
    assert advice.build.options, "the catalog builds at least one option to compare"
    assert decode(Sizing, _stored(advice.sizing)) == advice.sizing
    assert decode(BuildResult, _stored(advice.build)) == advice.build
    # Rendering the read-back messages gives the same words.
    again = decode(Sizing, _stored(advice.sizing))
    assert [e.message.render() for e in again.explanations] == [
        e.message.render() for e in advice.sizing.explanations
    ]


def test_the_training_plan_reads_back_with_the_sizing():
    workload = workload_from_dict(
        {
            "task": "fine_tuning",
            "model": "llama-3.1-8b",
            "training": {"method": "full", "batch_size": 512, "training_tokens": 10**9},
        }
    )
    sizing = sized_on(workload, make.h100_sxm(), 8, explain=True)
    assert sizing.micro_batch is not None
    assert sizing.micro_batch >= 1
    assert sizing.accumulation_steps == -(-512 // (sizing.micro_batch * 8))
    assert (sizing.data_parallel, sizing.sharding) == (8, "zero3")
    again = decode(Sizing, _stored(sizing))
    assert again == sizing
    assert (again.micro_batch, again.accumulation_steps, again.sharding) == (
        sizing.micro_batch,
        sizing.accumulation_steps,
        "zero3",
    )
    # A result stored before these figures existed still reads back (as unknown).
    old = {k: v for k, v in _stored(sizing).items() if k not in ("micro_batch", "sharding")}
    assert (decode(Sizing, old).micro_batch, decode(Sizing, old).sharding) == (None, None)


def test_a_tco_result_reads_back_equal_with_its_decimals_exact():
    configuration = TcoConfiguration(
        servers=2,
        gpus_per_server=8,
        gpu_model="NVIDIA H100 SXM5 80GB",
        power_w=10200,
        price=Money(Decimal("301234.57"), "EUR"),
        rack_units=8,
    )
    result = compute_tco(
        TcoInput(
            configuration=configuration,
            horizon_years=3,
            utilization=Decimal("0.7"),
            region="FR",
            currency="EUR",
            assumptions=region_defaults("FR", "EUR"),
        )
    )
    back = decode(TcoResult, _stored(result))
    assert back == result
    assert back.on_premises.total.amount == result.on_premises.total.amount
    assert str(back.utilization) == str(result.utilization)


def test_message_parameters_keep_their_types():
    nested = Message(
        "%(gpu)s has %(gb)s GB", MappingProxyType({"gpu": Message("H100"), "gb": Decimal("80.0")})
    )
    back = decode(Message, _stored(nested))
    assert back == nested
    assert isinstance(back.params["gb"], Decimal)
    assert str(back.params["gb"]) == "80.0"
    assert back.render() == "H100 has 80.0 GB"


def test_a_float_stored_as_a_json_integer_is_read_as_a_float():
    stored = _stored(make.h100_sxm())
    stored["memory_gb"] = 80  # PostgreSQL's jsonb gives 80.0 back as 80
    assert isinstance(decode(type(make.h100_sxm()), stored).memory_gb, float)


def test_data_of_the_wrong_shape_is_refused():
    with pytest.raises(CodecError):
        decode(Sizing, [])
    with pytest.raises(CodecError):
        encode(object())


def test_float_parameters_survive_a_database_that_turns_whole_floats_into_integers():
    message = Message("%(flops)s FLOP", MappingProxyType({"flops": 4.86e19, "n": 3}))
    stored = _stored(message)
    # PostgreSQL's jsonb gives every whole number back as an int: a bare 4.86e19 would render
    # as 48600000000000000000.
    jsonb = json.loads(json.dumps(stored).replace("4.86e+19", "48600000000000000000"))
    back = decode(Message, jsonb)
    assert back.render() == "4.86e+19 FLOP"
    assert back.params["n"] == 3
