"""Parts: what every configuration is built from.

A ``Part`` holds what all parts share (SKU, vendor, model, source, availability, audit); each
kind adds its specifications through multi-table inheritance, so a SKU is unique across kinds and
one ``Price`` table serves them all. Units are in the field names: GB = 10^9 bytes, W, GB/s, MB/s,
Gb/s, TB.

SXM and OAM GPUs are bought on a baseboard of one generation (``Gpu.baseboard``, e.g. HGX-H100)
and fit only a chassis built for it (``Chassis.baseboards``): the builder never pairs them
otherwise.
"""

from __future__ import annotations

from typing import ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.audit import Audited


class PartKind(models.TextChoices):
    GPU = "gpu", _("GPU")
    CPU = "cpu", _("CPU")
    MEMORY = "memory", _("Memory module")
    DRIVE = "drive", _("Drive")
    NIC = "nic", _("Network card")
    CHASSIS = "chassis", _("Chassis")


class Availability(models.TextChoices):
    CURRENT = "current", _("Current")
    END_OF_LIFE = "end_of_life", _("End of life")
    REFURBISHED = "refurbished", _("Refurbished")


class Part(Audited):
    KIND: ClassVar[str]  # each kind's model names its PartKind

    kind = models.CharField(_("kind"), max_length=16, choices=PartKind.choices, editable=False)
    sku = models.CharField(_("SKU"), max_length=64, unique=True)
    vendor = models.CharField(_("vendor"), max_length=64)
    model = models.CharField(_("model"), max_length=128)
    source = models.TextField(_("specification source"), help_text=_("Datasheet URL(s)."))
    notes = models.TextField(_("notes"), blank=True)
    active = models.BooleanField(_("offered"), default=True)
    availability = models.CharField(
        _("availability"),
        max_length=16,
        choices=Availability.choices,
        default=Availability.CURRENT,
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
                condition=Q(kind__in=PartKind.values), name="%(app_label)s_%(class)s_kind_known"
            ),
            models.CheckConstraint(
                condition=Q(availability__in=Availability.values),
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


class FormFactor(models.TextChoices):
    SXM = "sxm", "SXM"
    PCIE = "pcie", "PCIe"
    OAM = "oam", "OAM"


class GpuClass(models.TextChoices):
    DATACENTER = "datacenter", _("Datacenter")
    WORKSTATION = "workstation", _("Workstation")
    CONSUMER = "consumer", _("Consumer")


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
    form_factor = models.CharField(_("form factor"), max_length=8, choices=FormFactor.choices)
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
    gpu_class = models.CharField(_("class"), max_length=16, choices=GpuClass.choices)
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
                condition=~Q(form_factor=FormFactor.PCIE) | Q(baseboard=""),
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


class DriveKind(models.TextChoices):
    NVME = "nvme", "NVMe"
    SATA_SSD = "sata_ssd", _("SATA SSD")
    HDD = "hdd", _("Hard disk")


class Drive(Part):
    KIND = PartKind.DRIVE

    drive_kind = models.CharField(_("type"), max_length=16, choices=DriveKind.choices)
    form_factor = models.CharField(_("form factor"), max_length=16, help_text="U.2, E3.S, M.2…")
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


class Cooling(models.TextChoices):
    AIR = "air", _("Air")
    LIQUID = "liquid", _("Liquid")


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
    cooling = models.CharField(_("cooling"), max_length=8, choices=Cooling.choices)
    max_system_power_w = models.PositiveIntegerField(_("max system power (W)"))
    base_power_w = models.PositiveIntegerField(
        _("base power (W)"), help_text=_("Fans, board, BMC and boot devices at full load.")
    )
    rack_mount = models.BooleanField(
        _("rack-mount server"), default=True, help_text=_("Off for a workstation tower.")
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
