"""The storage network: GPU servers joined to the shared storage tier, apart from the fabric.

Figures worked out by hand from ``cluster_parts`` and ``catalog_factory``: 64 x 800GbE Ethernet
switch EUR 40,000 (256 ports of 200GbE, 128 of 400GbE); 400G RoCE adapter EUR 2,000; 1:2 splitter
DAC 400G EUR 400 (3 m); 1:4 splitter DAC 200G EUR 500 (3 m); NFS server of 2 x 200GbE ports.
"""

from __future__ import annotations

import pytest

from engine.build.cluster.fabric import design_fabric
from engine.build.cluster.lines import LineKind, LineRole
from engine.build.cluster.shared_storage import design_shared_storage
from engine.build.cluster.storage_network import MBS_PER_GBPS, design_storage_network
from tests.engine import catalog_factory as make
from tests.engine.build import cluster_parts as net


def _dac_200(**overrides):
    fields = {
        "sku": "DAC-200-3M",
        "name": "800G to 4 x 200G splitter DAC 3 m",
        "speed_gbps": 200,
        "links": 4,
        "price": 500,
    }
    return net.splitter_dac(**(fields | overrides))


def _parts(*extra):
    return [net.ethernet_switch(), net.splitter_dac(), _dac_200(), make.nic(), *extra]


def _ethernet_optics():
    return [
        net.cable(),
        net.fiber_30m(),
        net.switch_optic(sku="XCVR-ETH-SW", ethernet=True, infiniband=False),
        net.adapter_optic(sku="XCVR-ETH-HCA", ethernet=True, infiniband=False),
    ]


def _storage(catalog, tb: float = 100.0, read_mbs: float = 4000.0):
    storage = design_shared_storage(tb * 1000, read_mbs, catalog)
    assert storage is not None
    assert not storage.unmet
    return storage


def _network(servers: int, parts, read_mbs: float = 4000.0, storage_server=None):
    catalog = net.network_snapshot(*parts, storage_server or net.storage_server())
    storage = _storage(catalog, read_mbs=read_mbs)
    return design_storage_network(servers, storage, read_mbs, catalog), storage


def _lines(design) -> dict[tuple[str, str], int]:
    return {(line.role, line.sku): line.quantity for line in design.lines}


def test_four_servers_and_an_nfs_server_share_one_ethernet_switch():
    design, storage = _network(4, _parts())

    # 4 adapters of 400G (2 units of 200G each) + 2 storage ports of 200G = 10 of 256 units: one
    # switch. The GPU servers share its rack: 4 links on 2 splitter DACs; the NFS server's two
    # 200G ports on one 1:4 DAC.
    assert design is not None
    assert design.unmet == ()
    assert (storage.ports, storage.port_speed_gbps) == (2, 200)
    assert _lines(design) == {
        (LineRole.STORAGE_SWITCH, "SW-ETH-800"): 1,
        (LineRole.STORAGE_ADAPTER, "NIC-CX7-400"): 4,
        (LineRole.STORAGE_LINK, "DAC-NDR-3M"): 2,
        (LineRole.STORAGE_LINK, "DAC-200-3M"): 1,
    }
    assert {line.kind for line in design.lines} == {"switch", "nic", "cable"}
    assert design.price == make.eur("49300")  # 40,000 + 4 x 2,000 + 2 x 400 + 500
    assert (design.leaf_switches, design.spine_switches, design.server_links) == (1, 0, 6)
    assert design.power_w == 1101  # 1,000 + 4 x 25 + 3 x 0.1, rounded up
    assert "apart from the compute fabric" in design.explanation.render()


def test_every_role_says_storage_so_that_no_line_is_mistaken_for_the_fabric():
    design, _storage = _network(2, _parts())

    assert design is not None
    assert all("storage" in line.role for line in design.lines)
    assert all(line.kind != LineKind.STORAGE_SERVER for line in design.lines)


def test_a_server_reading_more_than_one_port_carries_gets_more_ports():
    # One 400G port carries 40,000 MB/s (80 % of 50 GB/s); 8 servers reading 1.5 times that
    # each need two ports each, so two single-port cards each.
    per_port = 400 * MBS_PER_GBPS
    read = 8 * per_port * 1.5
    design, _storage = _network(8, _parts(net.parallel_fs(), *_ethernet_optics()), read_mbs=read)

    assert design is not None
    assert design.unmet == ()
    assert _lines(design)[(LineRole.STORAGE_ADAPTER, "NIC-CX7-400")] == 16


def test_the_cheapest_adapter_that_can_be_cabled_wins():
    dear = make.nic(sku="NIC-DEAR-400", price=3000)
    uncabled = make.nic(sku="NIC-100", speed_gbps=100, price=300)  # no 100G cable offered
    no_rdma = make.nic(sku="NIC-PLAIN-400", roce=False, infiniband=False, price=100)
    design, _storage = _network(2, [*_parts(), dear, uncabled, no_rdma])

    assert design is not None
    adapters = [line.sku for line in design.lines if line.role == LineRole.STORAGE_ADAPTER]
    assert adapters == ["NIC-CX7-400"]


def test_servers_across_the_row_need_the_long_reach():
    # Eight servers do not share the switch's rack: the 3 m DAC cannot reach them, so 10 m
    # fibers with optics are used for the GPU servers; the NFS server stays next to the switch.
    design, _storage = _network(8, _parts(*_ethernet_optics()))

    assert design is not None
    assert design.unmet == ()
    lines = _lines(design)
    assert lines[(LineRole.STORAGE_LINK, "FIB-10M")] == 8
    assert lines[(LineRole.STORAGE_LINK, "XCVR-ETH-HCA")] == 8
    assert lines[(LineRole.STORAGE_LINK, "XCVR-ETH-SW")] == 4
    assert lines[(LineRole.STORAGE_LINK, "DAC-200-3M")] == 1
    assert (LineRole.STORAGE_LINK, "DAC-NDR-3M") not in lines


def test_more_endpoints_than_one_switch_make_a_leaf_spine_network():
    # 130 servers x 2 units + 2 storage units = 262 units of 200G > 256: leaves of 128 down
    # units, ceil(262 / 128) = 3, and ceil(262 / 256) = 2 spines; uplinks at 400G.
    design, _storage = _network(130, _parts(*_ethernet_optics()))

    assert design is not None
    assert design.unmet == ()
    assert (design.leaf_switches, design.spine_switches) == (3, 2)
    # 262 units spread 88/87/87 over the leaves, each leaf's carried by 400G uplinks: 44 each.
    assert design.uplinks == 132
    assert _lines(design)[(LineRole.STORAGE_SPINE, "SW-ETH-800")] == 2


def test_no_ethernet_switch_is_unmet_and_named():
    catalog = net.network_snapshot(
        net.switch(), net.splitter_dac(), make.nic(), net.storage_server()
    )
    design = design_storage_network(4, _storage(catalog), 4000.0, catalog)

    assert design is not None
    assert design.lines == ()
    assert "RoCE adapter and Ethernet switch" in design.unmet[0].render()


def test_missing_cabling_for_the_storage_ports_is_unmet_with_its_speed():
    design, _storage = _network(4, [net.ethernet_switch(), net.splitter_dac(), make.nic()])

    assert design is not None
    assert design.lines == ()
    assert any("200 Gb/s" in message.render() for message in design.unmet)


def test_nothing_to_join_gives_no_network():
    catalog = net.network_snapshot(*_parts(), net.storage_server())
    storage = _storage(catalog)

    assert design_storage_network(1, storage, 4000.0, catalog) is None
    assert design_storage_network(4, None, 4000.0, catalog) is None
    with pytest.raises(ValueError, match="read_mbs"):
        design_storage_network(4, storage, -1.0, catalog)


def test_storage_devices_join_the_management_network():
    catalog = net.network_snapshot(*net.infiniband_parts())
    alone = design_fabric(2, 8, 400, True, catalog, production=False)
    with_storage = design_fabric(2, 8, 400, True, catalog, production=False, other_managed=2)

    assert alone is not None
    assert with_storage is not None
    assert with_storage.management_links == alone.management_links + 2
