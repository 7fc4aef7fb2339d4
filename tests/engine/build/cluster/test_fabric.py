"""The cluster network: leaf/spine counts, cabling, management network, prices, what is missing.

Every expected figure is worked out by hand from the parts in ``cluster_parts`` (64-port NDR
switch EUR 25,000; twin-port switch optic EUR 1,500; adapter optic EUR 900; fiber EUR 100 (10 m)
or EUR 150 (30 m); 1:2 splitter DAC EUR 400 (3 m); management switch EUR 4,000; Cat6 EUR 5 (3 m)
or EUR 10 (10 m)).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.advice.codec import decode, encode
from engine.build.cluster.fabric import FabricDesign, design_fabric
from engine.build.cluster.lines import UPLINK_REACH_M, ClusterLine, LineKind, LineRole
from engine.build.cluster.shared_storage import StorageDesign, design_shared_storage
from engine.build.parts import CableEnds, DriveFormFactor, hot_swap_bay
from engine.money import Money
from tests.engine import catalog_factory as make
from tests.engine.build import cluster_parts as net


def _design(servers: int, ports: int = 8, speed: int = 400, infiniband: bool = True, parts=None):
    catalog = net.network_snapshot(*(net.infiniband_parts() if parts is None else parts))
    design = design_fabric(servers, ports, speed, infiniband, catalog, production=False)
    assert design is not None
    return design


def _lines(design: FabricDesign) -> dict[tuple[str, str], int]:
    return {(line.role, line.sku): line.quantity for line in design.lines}


def _render(design: FabricDesign) -> list[str]:
    return [message.render() for message in design.unmet]


def test_one_server_needs_no_fabric():
    catalog = net.network_snapshot(*net.infiniband_parts())

    assert design_fabric(1, 8, 400, True, catalog, production=True) is None
    assert design_fabric(0, 8, 400, True, catalog, production=False) is None


def test_two_servers_of_eight_gpus_share_one_leaf_cabled_with_splitter_dacs_in_the_rack():
    design = _design(servers=2)

    # 16 endpoints fit one 64-port switch: no spine. Two servers share the switch's rack, so the
    # 3 m splitter DAC reaches: 8 cages x 2 links = 16 links for 8 x EUR 400 = EUR 3,200, far
    # below optics (16 fibers + 8 twin-port + 16 adapter optics = EUR 28,000).
    assert (design.leaf_switches, design.spine_switches) == (1, 0)
    assert (design.server_links, design.uplinks, design.links) == (16, 0, 16)
    # Management: 2 BMCs + 1 fabric switch = 3 ports on one switch, 3 + 1 uplink = 4 cords.
    assert design.management_switches == 1
    assert _lines(design) == {
        (LineRole.LEAF, "SW-IB-64"): 1,
        (LineRole.SERVER_LINK, "DAC-NDR-3M"): 8,
        (LineRole.MANAGEMENT, "SW-MGMT-48"): 1,
        (LineRole.MANAGEMENT_LINK, "CAT6-3M"): 4,
    }
    assert design.price == make.eur("32220")  # 25,000 + 3,200 + 4,000 + 20
    assert design.power_w == 851  # 750 + 8 x 0.1 + 100, rounded up
    assert design.rack_units == 2
    assert design.unmet == ()


def test_sixteen_servers_of_eight_gpus_need_four_leaves_and_two_spines_with_optics():
    design = _design(servers=16)

    # 128 endpoints on 64-port switches: leaves = ceil(128 / 32) = 4, spines = ceil(128 / 64) = 2.
    # Server racks stand in a row: 10 m links, beyond a DAC: fiber + a transceiver at each end.
    # Switch side: 32 links per leaf on twin-port optics = 16 per leaf, 64 in all. Uplinks run
    # 30 m: 128 fibers, 16 optics per leaf and 32 per spine = 128 twin-port optics.
    assert (design.leaf_switches, design.spine_switches) == (4, 2)
    assert (design.server_links, design.uplinks, design.links) == (128, 128, 256)
    assert _lines(design) == {
        (LineRole.LEAF, "SW-IB-64"): 4,
        (LineRole.SPINE, "SW-IB-64"): 2,
        (LineRole.SERVER_LINK, "FIB-10M"): 128,
        (LineRole.SERVER_LINK, "XCVR-IB-SW"): 64,
        (LineRole.SERVER_LINK, "XCVR-IB-HCA"): 128,
        (LineRole.UPLINK, "FIB-30M"): 128,
        (LineRole.UPLINK, "XCVR-IB-SW"): 128,
        # 16 BMCs + 6 switches = 22 ports, one switch, 23 cords of 10 m.
        (LineRole.MANAGEMENT, "SW-MGMT-48"): 1,
        (LineRole.MANAGEMENT_LINK, "CAT6-10M"): 23,
    }
    # 150,000 switches + 12,800 + 96,000 + 115,200 server links + 19,200 + 192,000 uplinks
    # + 4,000 + 230 management.
    assert design.price == make.eur("589430")
    # 6 x 750 + 192 x 15 + 128 x 9 + 100 W.
    assert design.power_w == 4500 + 2880 + 1152 + 100
    assert design.rack_units == 7
    assert design.unmet == ()


def test_sixty_four_eight_gpu_servers_match_the_superpod_component_table():
    # NVIDIA DGX SuperPOD B200 reference architecture, 2 scalable units: 64 nodes, 512 GPUs,
    # 16 leaf and 8 spine switches, 512 node-leaf and 512 leaf-spine cables.
    design = _design(servers=64)

    assert (design.leaf_switches, design.spine_switches) == (16, 8)
    assert (design.server_links, design.uplinks) == (512, 512)
    # 64 BMCs + 24 switches = 88 ports: two 48-port switches (47 each), 88 + 2 cords.
    assert design.management_switches == 2
    assert design.management_links == 90


def test_the_largest_two_tier_fabric_is_radix_squared_over_two_and_beyond_it_is_unmet():
    biggest = _design(servers=256)  # 2,048 endpoints = 64 x 64 / 2
    beyond = _design(servers=257)  # 2,056

    assert (biggest.leaf_switches, biggest.spine_switches) == (64, 32)
    assert biggest.unmet == ()
    assert (beyond.leaf_switches, beyond.spine_switches, beyond.links) == (0, 0, 0)
    assert any("three-tier" in text and "2048" in text for text in _render(beyond))
    # The management network is still designed for the servers.
    assert beyond.management_switches == 6  # ceil(257 / 47)


def test_a_missing_switch_kind_is_named_not_raised():
    parts = [p for p in net.infiniband_parts() if p.sku != "SW-IB-64"] + [net.ethernet_switch()]

    design = _design(servers=4, parts=parts)

    assert (design.leaf_switches, design.spine_switches) == (0, 0)
    texts = _render(design)
    assert len(texts) == 1
    assert "No InfiniBand switch with ports of 400 Gb/s or faster" in texts[0]
    assert design.management_switches == 1
    assert design.price == make.eur("4025")  # management switch + 5 cords of 3 m


def test_a_switch_slower_than_the_gpu_ports_is_not_used():
    design = _design(servers=2, speed=800)

    assert design.leaf_switches == 0
    assert "800 Gb/s" in _render(design)[0]


def test_an_800gbe_switch_splits_its_ports_into_128_ports_of_400gbe():
    ethernet_optics = [
        net.switch_optic(sku="XCVR-ETH-SW", infiniband=False, ethernet=True),
        net.adapter_optic(sku="XCVR-ETH-NIC", infiniband=False, ethernet=True),
    ]
    parts = [net.ethernet_switch(), net.management_switch(), net.cable(), net.cat6_10m()]

    design = _design(servers=16, infiniband=False, parts=parts + ethernet_optics)

    # 128 endpoints on 64 x 800GbE ports split in two: one switch, no spine.
    assert (design.leaf_switches, design.spine_switches) == (1, 0)
    assert _lines(design)[(LineRole.SERVER_LINK, "XCVR-ETH-SW")] == 64
    assert design.unmet == ()


def test_missing_cabling_is_unmet_and_the_switches_are_still_priced():
    # InfiniBand-only optics cannot serve an Ethernet fabric.
    parts = [net.ethernet_switch(), net.management_switch(), *net.infiniband_parts()[2:]]

    design = _design(servers=16, infiniband=False, parts=parts)

    assert design.leaf_switches == 1
    texts = _render(design)
    assert len(texts) == 1
    assert "Ethernet (RoCE) cabling for the server-to-leaf link at 400 Gb/s over 10 m" in texts[0]
    assert (LineRole.LEAF, "SW-ETH-800") in _lines(design)


def test_uplinks_need_the_long_reach():
    no_long_fiber = [p for p in net.infiniband_parts() if p.sku != "FIB-30M"]

    design = _design(servers=16, parts=no_long_fiber)

    texts = _render(design)
    assert len(texts) == 1
    assert f"over {UPLINK_REACH_M:g} m" in texts[0]
    assert "leaf-to-spine" in texts[0]


def test_the_cheapest_complete_fabric_wins_even_with_more_switches():
    # 32-port switches at EUR 8,000: 8 leaves + 4 spines = EUR 96,000 < 6 x EUR 25,000; the optics
    # count is the same (64 + 128 twin-port, 128 adapter), the management network has 28 ports.
    small = net.switch(sku="SW-IB-32", name="NDR switch 32 x 400G", ports=32, price=8000)

    design = _design(servers=16, parts=[*net.infiniband_parts(), small])

    assert (design.leaf_switches, design.spine_switches) == (8, 4)
    lines = _lines(design)
    assert lines[(LineRole.LEAF, "SW-IB-32")] == 8
    assert lines[(LineRole.UPLINK, "XCVR-IB-SW")] == 64 + 64
    assert lines[(LineRole.MANAGEMENT_LINK, "CAT6-10M")] == 16 + 12 + 1


def test_ties_go_to_the_lower_sku_and_unpriced_or_foreign_parts_are_not_offered():
    twin = net.switch(sku="SW-IB-00")
    usd = net.switch(sku="SW-IB-CHEAP-USD", price=Money(Decimal(1), "USD"))
    unpriced = net.switch(sku="SW-IB-AAA", price=None)
    parts = [*net.infiniband_parts(), twin, usd, unpriced]

    design = _design(servers=2, parts=parts)

    assert [line.sku for line in design.lines if line.role == LineRole.LEAF] == ["SW-IB-00"]


def test_optics_replace_a_dac_that_is_dearer_than_them():
    dear_dac = net.splitter_dac(price=20000)
    parts = [p for p in net.infiniband_parts() if p.sku != "DAC-NDR-3M"] + [dear_dac]

    design = _design(servers=2, parts=parts)

    assert _lines(design)[(LineRole.SERVER_LINK, "XCVR-IB-HCA")] == 16
    assert (LineRole.SERVER_LINK, "DAC-NDR-3M") not in _lines(design)


def test_a_switch_to_switch_cable_does_not_serve_server_links():
    wrong_way = net.splitter_dac(sku="DAC-SW-SW", ends=CableEnds.SWITCH_TO_SWITCH, price=1)

    design = _design(servers=2, parts=[*net.infiniband_parts(), wrong_way])

    assert (LineRole.SERVER_LINK, "DAC-SW-SW") not in _lines(design)


def test_the_price_is_the_exact_sum_of_the_lines_and_lines_carry_availability():
    design = _design(servers=16)

    total = sum((line.unit_price * line.quantity for line in design.lines), make.eur(0))
    assert design.price == total
    assert all(isinstance(line, ClusterLine) for line in design.lines)
    assert {line.kind for line in design.lines} == {LineKind.SWITCH, LineKind.CABLE}
    assert all(line.total == line.unit_price * line.quantity for line in design.lines)


def test_the_explanation_states_the_figures():
    text = _design(servers=16).explanation.render()

    assert text.startswith("16 servers × 8 ports of 400 Gb/s InfiniBand: 4 leaf and 2 spine")
    assert "NDR switch 64 x 400G, 64 ports each" in text
    assert "128 server links and 128 uplinks" in text


def test_a_design_survives_the_codec_as_stored_with_a_quote():
    design = _design(servers=16)
    storage = design_shared_storage(400_000, 0, net.network_snapshot(net.storage_server()))

    unmet = _design(servers=16, parts=[p for p in net.infiniband_parts() if p.sku != "FIB-30M"])

    assert decode(FabricDesign, encode(design)) == design
    assert decode(FabricDesign, encode(unmet)) == unmet  # a Message inside a Message
    assert decode(StorageDesign, encode(storage)) == storage


def test_production_adds_nothing_to_the_fabric():
    catalog = net.network_snapshot(*net.infiniband_parts())

    assert design_fabric(8, 8, 400, True, catalog, production=True) == design_fabric(
        8, 8, 400, True, catalog, production=False
    )


def test_bad_port_figures_are_refused():
    catalog = net.network_snapshot(*net.infiniband_parts())

    with pytest.raises(ValueError, match="port"):
        design_fabric(2, 0, 400, True, catalog, production=False)


def test_a_switch_counts_its_ports_at_a_lower_speed_up_to_its_breakout():
    ndr = net.switch()
    ethernet = net.ethernet_switch()

    assert [ndr.ports_at(s) for s in (800, 400, 200, 100)] == [0, 64, 128, 128]
    assert [ethernet.ports_at(s) for s in (800, 400, 200, 100)] == [64, 128, 256, 256]


@pytest.mark.parametrize(
    ("form", "in_bay"),
    [
        (DriveFormFactor.M2, False),
        (DriveFormFactor.U2, True),
        (DriveFormFactor.U3, True),
        (DriveFormFactor.E1S, True),
        (DriveFormFactor.E3S, True),
        (DriveFormFactor.SATA, False),
        (DriveFormFactor.LFF, False),
    ],
)
def test_only_u2_u3_and_edsff_drives_take_a_front_nvme_bay(form, in_bay):
    assert hot_swap_bay(make.drive(form_factor=form)) is in_bay


def test_a_drive_is_u2_unless_it_says_otherwise():
    assert make.drive().form_factor is DriveFormFactor.U2
