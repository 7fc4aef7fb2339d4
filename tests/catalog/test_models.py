"""The database itself refuses impossible catalog rows (constraints, not just forms)."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from catalog.models import Gpu, Part, Price
from tests.factories import chassis_make, cpu_make, drive_make, gpu_make, nic_make, price_make

pytestmark = pytest.mark.django_db


def _refused(make, **values) -> bool:
    try:
        with transaction.atomic():
            make(**values)
    except IntegrityError:
        return True
    return False


def test_sku_is_unique_across_kinds():
    gpu_make(sku="SAME-SKU")
    assert _refused(cpu_make, sku="SAME-SKU")
    assert Part.objects.filter(sku="SAME-SKU").count() == 1


def test_empty_sku_is_refused():
    assert _refused(gpu_make, sku="")


@pytest.mark.parametrize(
    ("make", "field", "value"),
    [
        (gpu_make, "memory_gb", 0),
        (gpu_make, "bf16_tflops", Decimal("-1")),
        (cpu_make, "cores", 0),
        (drive_make, "capacity_tb", Decimal("0")),
        (drive_make, "power_w", Decimal("-5")),
        (nic_make, "ports", 0),
        (chassis_make, "rack_units", 0),
    ],
)
def test_non_positive_specs_are_refused(make, field, value):
    assert _refused(make, **{field: value})


def test_cpu_threads_cannot_be_fewer_than_cores():
    assert _refused(cpu_make, cores=32, threads=16)
    assert not _refused(cpu_make, cores=32, threads=32)


def test_nic_needs_a_fabric():
    assert _refused(nic_make, ethernet=False, infiniband=False)


def test_chassis_needs_a_gpu_form_factor_and_a_non_redundant_supply():
    assert _refused(chassis_make, accepts_sxm=False, accepts_pcie=False, accepts_oam=False)
    assert _refused(chassis_make, psu_count=2, psu_redundant=2)


def test_negative_price_and_unknown_currency_are_refused():
    gpu = gpu_make()
    assert _refused(price_make, part=gpu, amount=Decimal("-0.01"))
    assert _refused(price_make, part=gpu, currency="GBP")
    assert not _refused(price_make, part=gpu, amount=Decimal("0.00"))
    assert Price.objects.filter(part=gpu).count() == 1


def test_a_part_with_prices_cannot_be_deleted():
    gpu = gpu_make()
    price_make(gpu)
    with pytest.raises(IntegrityError), transaction.atomic():
        Gpu.objects.filter(pk=gpu.pk).delete()
