"""The builder's rules checked on hand-built servers (``check_configuration``), and the rules
as data: every check a rule with its words and source.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

from engine.build import rules
from engine.build.builder import ServerConfiguration, check_configuration
from engine.build.parts import DriveFormFactor, FormFactor
from tests.engine import catalog_factory as make
from tests.engine.build.builder_cases import check, fits, needs


def test_check_configuration_reports_every_rule_for_a_hand_built_server():
    # A desktop CPU in the wrong socket, one data drive on SATA, no boot mirror, in production
    desktop = make.cpu(sku="CPU-RYZEN", name="Ryzen 9", socket="AM5", server_grade=False)
    sata = make.drive(
        sku="SATA-3.84",
        name="3.84 TB SATA",
        kind="sata_ssd",
        capacity_tb=3.84,
        read_mbs=550,
        form_factor=DriveFormFactor.SATA,
    )
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.l40s(),
        gpu_count=1,
        cpu=desktop,
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=sata,
        data_drive_count=1,
    )

    checks = check_configuration(config, needs(fits(GPU_L40S=(1, 30.0))))

    assert [c.rule for c in checks] == list(rules.RULE_ORDER)
    assert {c.rule: c.detail.render() for c in checks if not c.passed} == {
        rules.CPU_SERVER_GRADE: "The Ryzen 9 fits socket AM5; the 2U 4-GPU PCIe has LGA4677.",
        rules.MEMORY_POPULATION: "16 DIMMs cannot fill the 24 channels (2 CPUs x 12) evenly.",
        rules.STORAGE_NVME: "The 3.84 TB SATA is a SATA SSD drive; data needs NVMe.",
        # Production mirrors its data drives: 3,840 GB raw / 2 copies = 1,920 GB usable
        rules.STORAGE_CAPACITY: (
            "1920 GB of usable data storage per server, less than the 4000 GB needed (4000 GB "
            "for the whole job, 1 servers)."
        ),
        rules.STORAGE_THROUGHPUT: (
            "The data drives read 550 MB/s per server, less than the 6000 MB/s needed."
        ),
        rules.BOOT_MIRROR: ("0 boot drives; production needs a mirror of 2 identical SSDs."),
    }


def test_every_check_code_is_a_rule_with_words_and_a_source():
    assert set(rules.RULES) == set(rules.RULE_ORDER)
    for rule in rules.RULES.values():
        assert rule.title.render()
        assert rule.reason.render()
        assert rule.source
        assert "%(" not in rule.title.render() + rule.reason.render()
    assert rules.rule_get(rules.SYSTEM_RAM).title.render() == "System RAM at least 2 x GPU memory"


def test_a_gpu_of_another_form_factor_does_not_fit_the_chassis():
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.h100_sxm(),
        gpu_count=1,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
    )

    checks = check_configuration(config, needs(fits(GPU_H100_SXM=(1, 30.0))))

    assert check(checks, rules.GPU_FIT_CHASSIS).detail.render() == (
        "The 2U 4-GPU PCIe takes PCIe GPUs, not the SXM H100 SXM."
    )
    assert FormFactor.SXM not in make.pcie_chassis().gpu_form_factors
