"""Parts: what every configuration is built from.

A ``Part`` holds what all parts share (SKU, vendor, model, source, availability, audit); each
kind adds its specifications through multi-table inheritance, so a SKU is unique across kinds and
one ``Price`` table serves them all. Units are in the field names: GB = 10^9 bytes, W, GB/s, MB/s,
Gb/s, TB.

SXM and OAM GPUs are bought on a baseboard of one generation (``Gpu.baseboard``, e.g. HGX-H100)
and fit only a chassis built for it (``Chassis.baseboards``): the builder never pairs them
otherwise.

A cluster of several servers also buys switches (``NetworkSwitch``), the cables and optics of each
link (``Cable``) and shared storage (``StorageServer``); they are parts like the others, priced
through the same ``Price`` rows, and ``engine/build/cluster/fabric.py`` designs with them.
"""

from __future__ import annotations

from typing import ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from catalog.models.audit import Audited
from catalog.models.choices import (
    AVAILABILITY_CHOICES,
    CABLE_ENDS_CHOICES,
    CABLE_KIND_CHOICES,
    COOLING_CHOICES,
    DRIVE_FORM_FACTOR_CHOICES,
    DRIVE_KIND_CHOICES,
    FORM_FACTOR_CHOICES,
    GPU_CLASS_CHOICES,
    PART_KIND_CHOICES,
)
from engine.build.parts import (
    Availability,
    CableEnds,
    CableKind,
    DriveFormFactor,
    FormFactor,
    PartKind,
)
from gpuquote.core.choices import values_of


class Part(Audited):
    KIND: ClassVar[str]  # each kind's model names its PartKind

    kind = models.CharField(_("kind"), max_length=16, choices=PART_KIND_CHOICES, editable=False)
    sku = models.CharField(_("SKU"), max_length=64, unique=True)
    vendor = models.CharField(_("vendor"), max_length=64)
    model = models.CharField(_("model"), max_length=128)
    source = models.TextField(_("specification source"), help_text=_("Datasheet URL(s)."))
    notes = models.TextField(_("notes"), blank=True)
    active = models.BooleanField(_("offered"), default=True)
    availability = models.CharField(
        _("availability"),
        max_length=16,
        choices=AVAILABILITY_CHOICES,
        default=Availability.CURRENT.value,
        help_text=_(
            "Whether it can be bought new; the builder uses other parts only when no current "
            "part does the job."
        ),
    )
    lead_time_weeks = models.PositiveSmallIntegerField(
        _("lead time (weeks)"),
        null=True,
        blank=True,
        help_text=_("Typical weeks from order to delivery; empty when unknown."),
    )
    availability_source = models.TextField(
        _("availability source"),
        blank=True,
        help_text=_(
            "Where the availability and lead time come from: a public document (URL, date "
            "read) or 'estimate' with its basis."
        ),
    )

    class Meta:
        ordering = ["kind", "vendor", "model"]
        verbose_name = _("part")
        verbose_name_plural = _("parts")
        constraints = [
            models.CheckConstraint(
                condition=~Q(sku=""), name="%(app_label)s_%(class)s_sku_not_empty"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=values_of(PartKind)), name="%(app_label)s_%(class)s_kind_known"
            ),
            models.CheckConstraint(
                condition=Q(availability__in=values_of(Availability)),
                name="%(app_label)s_%(class)s_availability_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.vendor} {self.model}"


def _non_negative(*fields: str) -> list[models.CheckConstraint]:
    return [
        models.CheckConstraint(
            condition=Q(**{f"{field}__gte": 0}), name=f"%(app_label)s_%(class)s_{field}_gte_0"
        )
        for field in fields
    ]


class Gpu(Part):
    KIND = PartKind.GPU

    architecture = models.CharField(_("architecture"), max_length=32)
    memory_gb = models.PositiveIntegerField(_("memory (GB)"))
    memory_bandwidth_gbs = models.PositiveIntegerField(_("memory bandwidth (GB/s)"))
    bf16_tflops = models.DecimalField(
        _("dense BF16/FP16 tensor TFLOPS"),
        max_digits=7,
        decimal_places=1,
        help_text=_("Without sparsity."),
    )
    fp8_tflops = models.DecimalField(
        _("dense FP8 tensor TFLOPS"), max_digits=7, decimal_places=1, null=True, blank=True
    )
    tdp_w = models.PositiveIntegerField(_("TDP (W)"))
    form_factor = models.CharField(_("form factor"), max_length=8, choices=FORM_FACTOR_CHOICES)
    baseboard = models.CharField(
        _("baseboard"),
        max_length=32,
        blank=True,
        help_text=_(
            "SXM/OAM: the baseboard generation it comes on (HGX-A100, HGX-H100 for H100 and "
            "H200, HGX-B200, OAM-MI300X); empty for PCIe cards."
        ),
    )
    nvlink_gbs = models.PositiveIntegerField(
        _("NVLink / fabric bandwidth (GB/s)"),
        null=True,
        blank=True,
        help_text=_("Bidirectional per GPU; empty when the card has no GPU-to-GPU link."),
    )
    ecc = models.BooleanField(_("ECC memory"))
    mig = models.BooleanField(_("multi-instance GPU"), default=False)
    gpu_class = models.CharField(_("class"), max_length=16, choices=GPU_CLASS_CHOICES)
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"))

    class Meta:
        verbose_name = _("GPU")
        verbose_name_plural = _("GPUs")
        constraints = [
            *_non_negative(
                "memory_gb", "memory_bandwidth_gbs", "bf16_tflops", "fp8_tflops", "tdp_w"
            ),
            models.CheckConstraint(
                condition=Q(memory_gb__gte=1), name="%(app_label)s_%(class)s_memory_gb_gte_1"
            ),
            models.CheckConstraint(
                condition=~Q(form_factor=FormFactor.PCIE.value) | Q(baseboard=""),
                name="%(app_label)s_%(class)s_pcie_has_no_baseboard",
            ),
        ]

    def clean(self) -> None:
        super().clean()
        if self.form_factor != FormFactor.PCIE and not self.baseboard:
            raise ValidationError(
                {"baseboard": _("An SXM or OAM GPU comes on a baseboard: name its generation.")}
            )
        if self.form_factor == FormFactor.PCIE and self.baseboard:
            raise ValidationError({"baseboard": _("A PCIe card has no baseboard.")})


class Cpu(Part):
    KIND = PartKind.CPU

    socket = models.CharField(_("socket"), max_length=16)
    cores = models.PositiveSmallIntegerField(_("cores"))
    threads = models.PositiveSmallIntegerField(_("threads"))
    base_ghz = models.DecimalField(_("base clock (GHz)"), max_digits=4, decimal_places=2)
    boost_ghz = models.DecimalField(_("boost clock (GHz)"), max_digits=4, decimal_places=2)
    tdp_w = models.PositiveIntegerField(_("TDP (W)"))
    memory_channels = models.PositiveSmallIntegerField(_("memory channels"))
    max_memory_gb = models.PositiveIntegerField(_("max memory per socket (GB)"))
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"))
    pcie_lanes = models.PositiveSmallIntegerField(_("PCIe lanes per socket"))
    server_grade = models.BooleanField(_("server grade"))

    class Meta:
        verbose_name = _("CPU")
        verbose_name_plural = _("CPUs")
        constraints = [
            *_non_negative("base_ghz", "boost_ghz"),
            models.CheckConstraint(
                condition=Q(threads__gte=models.F("cores")),
                name="%(app_label)s_%(class)s_threads_gte_cores",
            ),
            models.CheckConstraint(
                condition=Q(cores__gte=1), name="%(app_label)s_%(class)s_cores_gte_1"
            ),
        ]


class MemoryModule(Part):
    KIND = PartKind.MEMORY

    capacity_gb = models.PositiveIntegerField(_("capacity (GB)"))
    ddr_generation = models.PositiveSmallIntegerField(_("DDR generation"))
    speed_mts = models.PositiveIntegerField(_("speed (MT/s)"))
    ecc = models.BooleanField(_("ECC"))
    registered = models.BooleanField(_("registered (RDIMM)"))
    power_w = models.DecimalField(_("power (W)"), max_digits=5, decimal_places=1)

    class Meta:
        verbose_name = _("memory module")
        verbose_name_plural = _("memory modules")
        constraints = [
            *_non_negative("power_w"),
            models.CheckConstraint(
                condition=Q(capacity_gb__gte=1), name="%(app_label)s_%(class)s_capacity_gb_gte_1"
            ),
        ]


class Drive(Part):
    KIND = PartKind.DRIVE

    drive_kind = models.CharField(_("type"), max_length=16, choices=DRIVE_KIND_CHOICES)
    form_factor = models.CharField(
        _("form factor"),
        max_length=16,
        choices=DRIVE_FORM_FACTOR_CHOICES,
        default=DriveFormFactor.U2.value,
        help_text=_(
            "U.2, U.3, E1.S and E3.S drives take a front NVMe bay; an M.2 stick sits on the board "
            "and boots the server."
        ),
    )
    capacity_tb = models.DecimalField(
        _("capacity (TB)"), max_digits=6, decimal_places=2, help_text=_("TB = 10^12 bytes.")
    )
    read_mbs = models.PositiveIntegerField(_("sequential read (MB/s)"))
    write_mbs = models.PositiveIntegerField(_("sequential write (MB/s)"))
    endurance_dwpd = models.DecimalField(
        _("endurance (drive writes per day)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
    )
    power_w = models.DecimalField(_("power, active (W)"), max_digits=5, decimal_places=1)

    class Meta:
        verbose_name = _("drive")
        verbose_name_plural = _("drives")
        constraints = [
            *_non_negative("capacity_tb", "endurance_dwpd", "power_w"),
            models.CheckConstraint(
                condition=Q(capacity_tb__gt=0), name="%(app_label)s_%(class)s_capacity_tb_gt_0"
            ),
            models.CheckConstraint(
                condition=Q(form_factor__in=values_of(DriveFormFactor)),
                name="%(app_label)s_%(class)s_form_factor_known",
            ),
        ]


class NetworkCard(Part):
    KIND = PartKind.NIC

    speed_gbps = models.PositiveIntegerField(_("speed per port (Gb/s)"))
    ports = models.PositiveSmallIntegerField(_("ports"))
    ethernet = models.BooleanField(_("Ethernet"))
    infiniband = models.BooleanField(_("InfiniBand"))
    roce = models.BooleanField(_("RoCE capable"))
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"))
    pcie_lanes = models.PositiveSmallIntegerField(_("PCIe lanes"))
    power_w = models.DecimalField(_("power (W)"), max_digits=5, decimal_places=1)

    class Meta:
        verbose_name = _("network card")
        verbose_name_plural = _("network cards")
        constraints = [
            *_non_negative("power_w"),
            models.CheckConstraint(
                condition=Q(ports__gte=1), name="%(app_label)s_%(class)s_ports_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(ethernet=True) | Q(infiniband=True),
                name="%(app_label)s_%(class)s_has_a_fabric",
            ),
        ]


class Chassis(Part):
    KIND = PartKind.CHASSIS

    rack_units = models.PositiveSmallIntegerField(_("rack units (U)"))
    gpu_slots = models.PositiveSmallIntegerField(_("GPU slots"))
    accepts_sxm = models.BooleanField(_("accepts SXM GPUs"), default=False)
    accepts_pcie = models.BooleanField(_("accepts PCIe GPUs"), default=False)
    accepts_oam = models.BooleanField(_("accepts OAM GPUs"), default=False)
    max_gpu_tdp_w = models.PositiveIntegerField(_("max TDP per GPU slot (W)"))
    baseboards = models.CharField(
        _("baseboards"),
        max_length=128,
        blank=True,
        help_text=_(
            "The SXM/OAM baseboard generations the chassis is built for, comma-separated "
            "(e.g. HGX-H100); empty for a PCIe-only chassis."
        ),
    )
    nvswitch = models.BooleanField(
        _("NVLink switch fabric (NVSwitch)"),
        default=False,
        help_text=_(
            "All GPUs on one switched all-to-all fabric on the baseboard: NVSwitch on NVIDIA HGX "
            "boards, the Infinity Fabric mesh on AMD OAM boards (customers read the GPU vendor's "
            "name for it)."
        ),
    )
    nvlink_bridge = models.BooleanField(_("NVLink bridges between card pairs"), default=False)
    pcie_switches = models.BooleanField(_("GPUs behind PCIe switches"), default=False)
    cpu_sockets = models.PositiveSmallIntegerField(_("CPU sockets"))
    cpu_socket_type = models.CharField(_("CPU socket type"), max_length=16)
    dimm_slots = models.PositiveSmallIntegerField(_("DIMM slots"))
    ddr_generation = models.PositiveSmallIntegerField(_("DDR generation"))
    nvme_bays = models.PositiveSmallIntegerField(_("NVMe bays"))
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"))
    psu_count = models.PositiveSmallIntegerField(_("power supplies"))
    psu_w = models.PositiveIntegerField(_("power per supply (W)"))
    psu_redundant = models.PositiveSmallIntegerField(
        _("redundant supplies"), help_text=_("M in an N+M configuration.")
    )
    cooling = models.CharField(_("cooling"), max_length=8, choices=COOLING_CHOICES)
    max_system_power_w = models.PositiveIntegerField(_("max system power (W)"))
    base_power_w = models.PositiveIntegerField(
        _("base power (W)"), help_text=_("Fans, board, BMC and boot devices at full load.")
    )
    rack_mount = models.BooleanField(
        _("rack-mount server"), default=True, help_text=_("Off for a workstation tower.")
    )
    registered_memory = models.BooleanField(
        _("takes registered DIMMs"),
        default=True,
        help_text=_("Off for a desktop-class board, which takes unbuffered DIMMs (UDIMM) only."),
    )
    m2_slots = models.PositiveSmallIntegerField(
        _("M.2 slots"),
        default=2,
        help_text=_("M.2 NVMe slots on the board (the boot mirror; data in a tower)."),
    )

    class Meta:
        verbose_name = _("chassis")
        verbose_name_plural = _("chassis")
        constraints = [
            models.CheckConstraint(
                condition=Q(accepts_sxm=True) | Q(accepts_pcie=True) | Q(accepts_oam=True),
                name="%(app_label)s_%(class)s_accepts_a_form_factor",
            ),
            models.CheckConstraint(
                condition=Q(psu_redundant__lt=models.F("psu_count")),
                name="%(app_label)s_%(class)s_psu_redundant_lt_count",
            ),
            models.CheckConstraint(
                condition=Q(rack_units__gte=1), name="%(app_label)s_%(class)s_rack_units_gte_1"
            ),
        ]

    @property
    def baseboard_set(self) -> frozenset[str]:
        return frozenset(b.strip() for b in self.baseboards.split(",") if b.strip())

    def clean(self) -> None:
        super().clean()
        if (self.accepts_sxm or self.accepts_oam) and not self.baseboard_set:
            raise ValidationError(
                {"baseboards": _("A chassis for SXM or OAM GPUs names the baseboards it takes.")}
            )


# --- Cluster parts: switches, cables and optics, storage servers --------------------------------


class NetworkSwitch(Part):
    KIND = PartKind.SWITCH

    ports = models.PositiveSmallIntegerField(_("ports"), help_text=_("At the port speed."))
    port_speed_gbps = models.PositiveIntegerField(_("speed per port (Gb/s)"))
    breakout = models.PositiveSmallIntegerField(
        _("ports per port at lower speed"),
        default=1,
        help_text=_(
            "How many slower ports one port splits into (2: a 400G NDR port into 2 x 200G; 4: an "
            "800GbE port into 4 x 200GbE); 1 when it does not split."
        ),
    )
    infiniband = models.BooleanField(_("InfiniBand"))
    ethernet = models.BooleanField(_("Ethernet (RoCE)"))
    management = models.BooleanField(
        _("management switch"),
        default=False,
        help_text=_("A 1/10 GbE switch for the out-of-band (BMC) network, not the GPU fabric."),
    )
    rack_units = models.PositiveSmallIntegerField(_("rack units (U)"))
    power_w = models.DecimalField(
        _("power, typical (W)"),
        max_digits=7,
        decimal_places=1,
        help_text=_("With passive cables; optics add their own power."),
    )

    class Meta:
        verbose_name = _("switch")
        verbose_name_plural = _("switches")
        constraints = [
            *_non_negative("power_w"),
            models.CheckConstraint(
                condition=Q(ports__gte=1), name="%(app_label)s_%(class)s_ports_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(breakout__gte=1), name="%(app_label)s_%(class)s_breakout_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(rack_units__gte=1), name="%(app_label)s_%(class)s_rack_units_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(ethernet=True) | Q(infiniband=True),
                name="%(app_label)s_%(class)s_has_a_fabric",
            ),
        ]


class Cable(Part):
    KIND = PartKind.CABLE

    cable_kind = models.CharField(_("type"), max_length=16, choices=CABLE_KIND_CHOICES)
    speed_gbps = models.PositiveIntegerField(_("speed per link (Gb/s)"))
    infiniband = models.BooleanField(_("InfiniBand"))
    ethernet = models.BooleanField(_("Ethernet"))
    length_m = models.DecimalField(
        _("length (m)"), max_digits=6, decimal_places=2, help_text=_("0 for a transceiver.")
    )
    ends = models.CharField(
        _("ends"),
        max_length=20,
        choices=CABLE_ENDS_CHOICES,
        default=CableEnds.ANY.value,
        help_text=_("What it connects, or the cage a transceiver goes in."),
    )
    links = models.PositiveSmallIntegerField(
        _("links per unit"),
        default=1,
        help_text=_("2 for a twin-port transceiver or a 1:2 splitter cable, 4 for a 1:4 splitter."),
    )
    power_w = models.DecimalField(_("power (W)"), max_digits=5, decimal_places=2)

    class Meta:
        verbose_name = _("cable or transceiver")
        verbose_name_plural = _("cables and transceivers")
        constraints = [
            *_non_negative("length_m", "power_w"),
            models.CheckConstraint(
                condition=Q(links__gte=1), name="%(app_label)s_%(class)s_links_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(ethernet=True) | Q(infiniband=True),
                name="%(app_label)s_%(class)s_has_a_fabric",
            ),
            models.CheckConstraint(
                condition=Q(cable_kind__in=values_of(CableKind)),
                name="%(app_label)s_%(class)s_cable_kind_known",
            ),
            models.CheckConstraint(
                condition=Q(ends__in=values_of(CableEnds)),
                name="%(app_label)s_%(class)s_ends_known",
            ),
        ]

    def clean(self) -> None:
        super().clean()
        one_cage = self.ends in {CableEnds.SWITCH, CableEnds.ADAPTER}
        two_ends = self.ends in {CableEnds.SWITCH_TO_ADAPTER, CableEnds.SWITCH_TO_SWITCH}
        if self.cable_kind == CableKind.TRANSCEIVER and two_ends:
            raise ValidationError(
                {"ends": _("A transceiver goes in one cage: name it (switch or adapter).")}
            )
        if self.cable_kind != CableKind.TRANSCEIVER and one_cage:
            raise ValidationError({"ends": _("Only a transceiver goes in one cage.")})
        if self.cable_kind == CableKind.COPPER and not self.ethernet:
            raise ValidationError({"ethernet": _("A Cat6 cord carries Ethernet.")})


class StorageServer(Part):
    KIND = PartKind.STORAGE_SERVER

    usable_tb = models.DecimalField(
        _("usable capacity (TB)"),
        max_digits=8,
        decimal_places=2,
        help_text=_("TB = 10^12 bytes, after its own RAID or erasure coding."),
    )
    protection = models.CharField(
        _("data protection"),
        max_length=64,
        help_text=_("How the usable capacity is protected, e.g. RAID 6 (2 x 10+2), EC 8+2."),
    )
    read_mbs = models.PositiveIntegerField(
        _("read throughput to clients (MB/s)"),
        help_text=_("What it delivers over the network, not what its drives could."),
    )
    network_gbps = models.PositiveIntegerField(_("network ports together (Gb/s)"))
    port_speed_gbps = models.PositiveIntegerField(
        _("speed of each network port (Gb/s)"),
        help_text=_("Its data ports run at this speed: network_gbps / port_speed_gbps ports."),
    )
    rack_units = models.PositiveSmallIntegerField(_("rack units (U)"))
    power_w = models.DecimalField(_("power, typical (W)"), max_digits=7, decimal_places=1)

    class Meta:
        verbose_name = _("storage server")
        verbose_name_plural = _("storage servers")
        constraints = [
            *_non_negative("power_w"),
            models.CheckConstraint(
                condition=Q(usable_tb__gt=0), name="%(app_label)s_%(class)s_usable_tb_gt_0"
            ),
            models.CheckConstraint(
                condition=Q(read_mbs__gte=1), name="%(app_label)s_%(class)s_read_mbs_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(rack_units__gte=1), name="%(app_label)s_%(class)s_rack_units_gte_1"
            ),
            models.CheckConstraint(
                condition=~Q(protection=""), name="%(app_label)s_%(class)s_protection_not_empty"
            ),
            models.CheckConstraint(
                condition=Q(port_speed_gbps__gte=1, port_speed_gbps__lte=F("network_gbps")),
                name="%(app_label)s_%(class)s_port_speed_within_network",
            ),
        ]
