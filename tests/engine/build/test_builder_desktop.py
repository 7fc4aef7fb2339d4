"""A desktop-class experiment box: an AM5 board takes unbuffered DIMMs only and keeps
data on its M.2 slots; servers take registered DIMMs and keep data in hot-swap bays; production
never runs on the tower.

Figures from ``catalog_factory`` and the parts below: an RTX 4090 1,800; the tower 800 (one GPU,
4 UDIMM slots, 2 M.2 slots, no front bay); an 8-core AM5 CPU 300 (2 channels, 28 lanes); a
32 GB UDIMM 140; the 480 GB M.2 stick 120; the U.2 drive 900.
"""

from __future__ import annotations

from typing import Any

from engine.build import rules
from engine.build.builder import (
    Environment,
    ServerConfiguration,
    build_options,
    check_configuration,
)
from engine.build.parts import DriveFormFactor
from tests.engine import catalog_factory as make
from tests.engine.build.builder_cases import check, fits, lines, needs, pcie_parts, rendered

ONE_4090 = fits(GPU_RTX_4090=(1, 20.0))


def tower(**overrides: Any) -> Any:
    fields = {
        "sku": "CH-AM5-TOWER",
        "name": "AM5 tower",
        "rack_units": 5,
        "gpu_slots": 1,
        "cpu_sockets": 1,
        "cpu_socket_type": "AM5",
        "dimm_slots": 4,
        "nvme_bays": 0,
        "m2_slots": 2,
        "psu_count": 1,
        "psu_w": 1300,
        "psu_redundant": 0,
        "max_system_power_w": 1300,
        "base_power_w": 60,
        "price": 800,
        "rack_mount": False,
        "registered_memory": False,
    }
    return make.pcie_chassis(**(fields | overrides))


def am5_cpu() -> Any:
    return make.cpu(
        sku="CPU-EPYC-4344P",
        name="EPYC 4344P",
        socket="AM5",
        cores=8,
        threads=16,
        tdp_w=65,
        memory_channels=2,
        max_memory_gb=192,
        pcie_lanes=28,
        price=300,
    )


def udimm() -> Any:
    return make.dimm_gb(32, 140, sku="UDIMM-32", name="32 GB DDR5 ECC UDIMM", registered=False)


def desktop_catalog(*extra: Any) -> Any:
    return make.snapshot(
        make.rtx_4090(), tower(), am5_cpu(), udimm(), make.boot_ssd(), make.drive(), *extra
    )


def experiment(**overrides: Any) -> Any:
    fields = {"environment": Environment.EXPERIMENT, "storage_gb": 300.0, "storage_read_mbs": 0.0}
    return needs(ONE_4090, **(fields | overrides))


def test_an_experiment_gets_the_desktop_box_with_udimms_and_an_m2_data_drive():
    [option] = build_options(experiment(), desktop_catalog()).options

    # 800 + 1,800 + 300 + 2 x 140 (48 GB >= 2 x 24 GB of VRAM, one DIMM per channel) + one M.2
    # stick for the 300 GB (120): 3,300. The U.2 drive has no bay here.
    assert lines(option) == [
        ("chassis", "CH-AM5-TOWER", 1, "800.00", ""),
        ("gpu", "GPU-RTX-4090", 1, "1800.00", ""),
        ("cpu", "CPU-EPYC-4344P", 1, "300.00", ""),
        ("memory", "UDIMM-32", 2, "140.00", ""),
        ("drive", "M2-480", 1, "120.00", "data"),
    ]
    assert option.totals.price == make.eur("3300.00")
    assert check(option, rules.STORAGE_NVME).detail.render() == (
        "1 x 480 GB NVMe M.2 (NVMe) on the board's M.2 slots: a workstation tower for "
        "experiments, where no drive is swapped while the job runs."
    )


def test_registered_dimms_never_go_in_the_desktop_board_nor_udimms_in_a_server():
    rdimm = make.dimm_gb(32, 100)  # cheaper than the UDIMM, but registered
    catalog = desktop_catalog(rdimm, make.pcie_chassis(), *pcie_parts(), make.l40s())

    tower_option = build_options(experiment(), catalog).options[0]
    server_option = build_options(
        needs(fits(GPU_L40S=(1, 30.0)), environment=Environment.EXPERIMENT), catalog
    ).options[0]

    assert ("memory", "UDIMM-32", 2, "140.00", "") in lines(tower_option)
    server_memory = [line for line in lines(server_option) if line[0] == "memory"]
    assert server_memory
    assert all(line[1] != "UDIMM-32" for line in server_memory)


def test_a_hand_build_mixing_dimm_kinds_fails_the_memory_check():
    mixed = ServerConfiguration(
        servers=1,
        chassis=tower(),
        gpu=make.rtx_4090(),
        gpu_count=1,
        cpu=am5_cpu(),
        cpu_count=1,
        dimm=make.dimm_gb(32, 100),
        dimm_count=2,
        data_drive=make.boot_ssd(),
        data_drive_count=1,
    )

    memory = check(check_configuration(mixed, experiment()), rules.MEMORY_POPULATION)

    assert memory.passed is False
    assert memory.detail.render() == (
        "The 32 GB DDR5-4800 RDIMM is registered (RDIMM); the AM5 tower takes unbuffered "
        "(UDIMM) DIMMs only."
    )


def test_m2_data_stays_out_of_servers_and_production():
    in_server = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.l40s(),
        gpu_count=1,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(16, 80),
        dimm_count=16,
        data_drive=make.boot_ssd(),
        data_drive_count=1,
    )
    job = needs(fits(GPU_L40S=(1, 30.0)), environment=Environment.EXPERIMENT, storage_gb=300.0)

    storage = check(check_configuration(in_server, job), rules.STORAGE_NVME)

    assert make.boot_ssd().form_factor is DriveFormFactor.M2
    assert storage.passed is False
    assert "front bays" in storage.detail.render()
    # Production on the tower: no build (no spare supply, not a rack server).
    production = build_options(experiment(environment=Environment.PRODUCTION), desktop_catalog())
    assert production.options == ()
    assert rendered(production.unmet)


def test_more_m2_drives_than_slots_is_refused():
    data = experiment(storage_gb=1400.0)  # three 480 GB sticks, two slots; the U.2 has no bay

    result = build_options(data, desktop_catalog())

    assert result.options == ()
