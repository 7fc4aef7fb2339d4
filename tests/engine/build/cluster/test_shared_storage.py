"""Shared storage: the cheapest count of one storage-server model for the data and its read rate.

Parts (``cluster_parts``): an NFS server of 150 TB usable and 40,000 MB/s at EUR 50,000, and a
parallel-filesystem block of 300 TB and 200,000 MB/s at EUR 150,000.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.build.cluster.lines import LineKind, LineRole
from engine.build.cluster.shared_storage import StorageDesign, design_shared_storage
from engine.money import Money
from tests.engine import catalog_factory as make
from tests.engine.build import cluster_parts as net


def _catalog(*servers):
    return net.network_snapshot(*(servers or (net.storage_server(), net.parallel_fs())))


def _design(storage_gb: float, read_mbs: float, catalog) -> StorageDesign:
    design = design_shared_storage(storage_gb, read_mbs, catalog)
    assert design is not None
    return design


def test_no_data_needs_no_shared_storage():
    assert design_shared_storage(0, 5000, _catalog()) is None
    assert design_shared_storage(-1, 0, _catalog()) is None


def test_50_tb_read_slowly_fits_one_nfs_server():
    design = _design(50_000, 1000, _catalog())

    assert (design.servers, design.usable_tb, design.read_mbs) == (1, 150.0, 40000.0)
    assert [(line.sku, line.quantity, line.role, line.kind) for line in design.lines] == [
        ("NFS-150", 1, LineRole.SHARED_STORAGE, LineKind.STORAGE_SERVER)
    ]
    assert design.price == make.eur(50000)
    assert (design.power_w, design.rack_units) == (800, 2)
    assert design.unmet == ()


def test_capacity_picks_the_cheapest_count_and_model():
    # 400 TB: 3 NFS servers (EUR 150,000) beat 2 parallel blocks (EUR 300,000).
    design = _design(400_000, 10_000, _catalog())

    assert (design.servers, design.lines[0].sku) == (3, "NFS-150")
    assert design.price == make.eur(150000)
    assert design.usable_tb == pytest.approx(450.0)


def test_the_read_rate_can_decide_the_count_and_the_model():
    # 100 TB at 150,000 MB/s: NFS needs ceil(150,000 / 40,000) = 4 servers (EUR 200,000); one
    # parallel block (EUR 150,000) does it.
    design = _design(100_000, 150_000, _catalog())

    assert (design.servers, design.lines[0].sku) == (1, "PFS-300")
    assert design.read_mbs == 200000.0

    # With only NFS servers the read rate sets the count.
    nfs_only = _design(100_000, 150_000, _catalog(net.storage_server()))
    assert (nfs_only.servers, nfs_only.price) == (4, make.eur(200000))


def test_an_exact_multiple_of_the_capacity_needs_no_extra_server():
    design = _design(300_000, 0, _catalog(net.storage_server()))

    assert design.servers == 2


def test_ties_go_to_the_lower_sku_and_foreign_or_unpriced_servers_are_not_offered():
    twin = net.storage_server(sku="NFS-000")
    usd = net.storage_server(sku="NFS-USD", price=Money(Decimal(1), "USD"))
    unpriced = net.storage_server(sku="NFS-AAA", price=None)

    design = _design(10_000, 0, _catalog(net.storage_server(), twin, usd, unpriced))

    assert design.lines[0].sku == "NFS-000"


def test_without_a_storage_server_the_design_says_so():
    design = _design(10_000, 0, _catalog(net.switch()))

    assert design.servers == 0
    assert design.price == make.eur(0)
    assert "No storage server" in design.unmet[0].render()


def test_managed_hosting_is_priced_per_server_when_every_server_has_a_fee():
    managed = net.storage_server(managed_monthly_price=300)

    with_fee = _design(400_000, 0, _catalog(managed))
    without = _design(400_000, 0, _catalog(net.storage_server()))

    assert with_fee.managed_monthly_price == make.eur(900)
    assert without.managed_monthly_price is None


def test_the_explanation_states_the_figures():
    text = _design(400_000, 10_000, _catalog()).explanation.render()

    assert text == (
        "400.0 TB of shared data at 10000 MB/s: 3 × NFS server 150 TB (RAID 6) (150 TB usable and "
        "40000 MB/s each), 450 TB and 120000 MB/s in all."
    )


def test_a_negative_read_rate_is_refused():
    with pytest.raises(ValueError, match="read"):
        design_shared_storage(1000, -1, _catalog())
