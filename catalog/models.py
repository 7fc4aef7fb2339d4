"""The parts catalog: what every configuration is built from.

A ``Part`` holds what all parts share (SKU, vendor, model, source, audit); each kind adds its
specifications through multi-table inheritance, so a SKU is unique across kinds and one ``Price``
table serves them all. Units are in the field names: GB = 10^9 bytes, W, GB/s, MB/s, Gb/s, TB.

Prices are history: a new price is a new row and nothing is overwritten; the current price of a
part is a query (``catalog.selectors``), not a copied field.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django_celery_beat.validators import crontab_validator

from catalog.feeds.fetch import feed_file_resolve, is_url
from catalog.feeds.parse import column_map_errors
from engine.money import CURRENCIES
from gpuquote.core.outbound import outbound_url_errors


class PartKind(models.TextChoices):
    GPU = "gpu", _("GPU")
    CPU = "cpu", _("CPU")
    MEMORY = "memory", _("Memory module")
    DRIVE = "drive", _("Drive")
    NIC = "nic", _("Network card")
    CHASSIS = "chassis", _("Chassis")


class Audited(models.Model):
    """Who created and last changed a row, and when (set by the admin and the services)."""

    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("updated by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )

    class Meta:
        abstract = True


class Part(Audited):
    kind = models.CharField(_("kind"), max_length=16, choices=PartKind.choices, editable=False)
    sku = models.CharField(_("SKU"), max_length=64, unique=True)
    vendor = models.CharField(_("vendor"), max_length=64)
    model = models.CharField(_("model"), max_length=128)
    source = models.TextField(_("specification source"), help_text=_("Datasheet URL(s)."))
    notes = models.TextField(_("notes"), blank=True)
    active = models.BooleanField(_("offered"), default=True)

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
        ]


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
    nvswitch = models.BooleanField(_("NVLink switch fabric (NVSwitch)"), default=False)
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


class PriceKind(models.TextChoices):
    PURCHASE = "purchase", _("Purchase")
    MANAGED_MONTHLY = "managed_monthly", _("Managed hosting, per month")


class Price(models.Model):
    """One observed price of a part. Rows are never updated: a new price is a new row."""

    part = models.ForeignKey(
        Part, verbose_name=_("part"), on_delete=models.PROTECT, related_name="prices"
    )
    price_kind = models.CharField(_("price kind"), max_length=16, choices=PriceKind.choices)
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    observed_on = models.DateField(_("price date"))
    source = models.TextField(_("source"), help_text=_("Quote, price list or URL."))
    created_at = models.DateTimeField(_("recorded at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["part", "price_kind", "currency", "-observed_on", "-id"]
        verbose_name = _("price")
        verbose_name_plural = _("prices")
        indexes = [
            models.Index(
                fields=["part", "price_kind", "currency", "-observed_on", "-id"],
                name="catalog_price_current_idx",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0), name="%(app_label)s_%(class)s_amount_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES), name="%(app_label)s_%(class)s_currency_known"
            ),
            models.CheckConstraint(
                condition=Q(price_kind__in=PriceKind.values),
                name="%(app_label)s_%(class)s_price_kind_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.part} {self.amount} {self.currency} ({self.observed_on})"


# ---------------------------------------------------------------------------------------------
# Price feeds: where prices come from, each refresh run, prices held for review, cloud prices.
# The feed rules (columns, validation, thresholds) are described in docs/price-feeds.md.
# ---------------------------------------------------------------------------------------------


class PriceSourceKind(models.TextChoices):
    SUPPLIER = "supplier", _("Supplier: purchase prices of parts")
    HOSTING = "hosting", _("Hosting: managed-hosting prices per month")
    CLOUD = "cloud", _("Cloud: GPU prices per GPU-hour")


class FeedFormat(models.TextChoices):
    CSV = "csv", "CSV"
    JSON = "json", "JSON"


class PriceSource(Audited):
    """A price list fetched on a schedule (Celery beat); see ``catalog.services``."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    kind = models.CharField(_("kind"), max_length=16, choices=PriceSourceKind.choices)
    location = models.CharField(
        _("location"),
        max_length=500,
        help_text=_(
            "An http(s) URL, or a file path (relative paths start from PRICE_FEED_FILE_ROOT)."
        ),
    )
    format = models.CharField(_("format"), max_length=8, choices=FeedFormat.choices)
    currency = models.CharField(
        _("default currency"),
        max_length=3,
        choices=[(code, code) for code in CURRENCIES],
        help_text=_("For rows without a currency column."),
    )
    column_map = models.JSONField(
        _("column mapping"),
        default=dict,
        blank=True,
        help_text=_(
            'Field name to the feed\'s column name, e.g. {"sku": "Part number", '
            '"price": "Unit price"}. Fields not listed use their own name.'
        ),
    )
    schedule = models.CharField(
        _("schedule (cron)"),
        max_length=100,
        default="17 4 * * *",
        help_text=_(
            "minute hour day-of-month month day-of-week, in UTC (17 4 * * * = daily 04:17)."
        ),
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    notes = models.TextField(_("notes"), blank=True)
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        verbose_name=_("beat schedule entry"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    # The run lease: one refresh per source at a time, across hosts (see price_source_refresh).
    lock_token = models.CharField(max_length=32, blank=True, editable=False)
    locked_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name"]
        verbose_name = _("price source")
        verbose_name_plural = _("price sources")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=PriceSourceKind.values),
                name="%(app_label)s_%(class)s_kind_known",
            ),
            models.CheckConstraint(
                condition=Q(format__in=FeedFormat.values),
                name="%(app_label)s_%(class)s_format_known",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES),
                name="%(app_label)s_%(class)s_currency_known",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}
        try:
            crontab_validator(self.schedule)
        except ValidationError as exc:
            errors["schedule"] = exc.messages
        if self.kind:
            problems = column_map_errors(self.kind, self.column_map)
            if problems:
                errors["column_map"] = problems
        location_errors = price_source_location_errors(self.location)
        if location_errors:
            errors["location"] = location_errors
        if errors:
            raise ValidationError(errors)


def price_source_location_errors(location: str) -> list[str]:
    """Why a feed location is refused when saved: a URL must resolve to public addresses (or
    hosts of OUTBOUND_ALLOW_PRIVATE_HOSTS), a file must exist inside PRICE_FEED_FILE_ROOT. Each
    refresh checks again (the host may resolve elsewhere, the file may go)."""
    location = location.strip()
    if is_url(location):
        return outbound_url_errors(location)
    if "://" in location:
        return [_("Use an http(s) URL or a file path.")]
    if not location:
        return []  # the field's own "required" error
    path = feed_file_resolve(location, Path(settings.PRICE_FEED_FILE_ROOT))
    if path is None:
        return [_("The file must be inside the price feed directory (PRICE_FEED_FILE_ROOT).")]
    if not path.is_file():
        return [_("There is no such file in the price feed directory (PRICE_FEED_FILE_ROOT).")]
    return []


class RunStatus(models.TextChoices):
    RUNNING = "running", _("Running")
    APPLIED = "applied", _("Applied")
    APPLIED_WITH_ERRORS = "applied_with_errors", _("Applied; some rows rejected")
    REJECTED = "rejected", _("Rejected: nothing applied")
    FAILED = "failed", _("Failed: nothing applied")
    SKIPPED = "skipped", _("Skipped: another run was in progress")
    ABANDONED = "abandoned", _("Abandoned: the worker stopped; nothing applied")


class RunTrigger(models.TextChoices):
    SCHEDULE = "schedule", _("Schedule")
    MANUAL = "manual", _("Refresh now (admin)")
    COMMAND = "command", _("Management command")


class PriceRefreshRun(models.Model):
    """One attempt at refreshing a source: what was read, changed, rejected, held for review."""

    source = models.ForeignKey(
        PriceSource, verbose_name=_("source"), on_delete=models.PROTECT, related_name="runs"
    )
    status = models.CharField(_("status"), max_length=24, choices=RunStatus.choices)
    trigger = models.CharField(_("trigger"), max_length=16, choices=RunTrigger.choices)
    attempt = models.PositiveSmallIntegerField(_("attempt"), default=1)
    task_id = models.CharField(_("Celery task id"), max_length=64, blank=True)
    started_at = models.DateTimeField(_("started at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    bytes_read = models.PositiveBigIntegerField(_("bytes read"), null=True, blank=True)
    rows_read = models.PositiveIntegerField(_("rows read"), default=0)
    rows_changed = models.PositiveIntegerField(_("rows changed"), default=0)
    rows_unchanged = models.PositiveIntegerField(_("rows unchanged"), default=0)
    rows_rejected = models.PositiveIntegerField(_("rows rejected"), default=0)
    rows_quarantined = models.PositiveIntegerField(_("rows quarantined"), default=0)
    errors = models.JSONField(
        _("row errors"),
        default=list,
        blank=True,
        help_text=_("[{row, field, message, value}], at most PRICE_FEED_MAX_REPORTED_ERRORS."),
    )
    message = models.TextField(_("message"), blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = _("price refresh run")
        verbose_name_plural = _("price refresh runs")
        indexes = [
            models.Index(fields=["source", "-started_at"], name="catalog_run_source_started_idx")
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=RunStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.started_at:%Y-%m-%d %H:%M} {self.status}"


class Commitment(models.TextChoices):
    ON_DEMAND = "on_demand", _("On demand")
    RESERVED_1Y = "reserved_1y", _("Reserved, 1 year")
    RESERVED_3Y = "reserved_3y", _("Reserved, 3 years")


class CloudPrice(models.Model):
    """One observed cloud price per GPU-hour. History: a new price is a new row."""

    gpu_model = models.CharField(
        _("GPU model key"),
        max_length=32,
        help_text=_("As engine.assumptions.gpu_model_key."),
    )
    commitment = models.CharField(_("commitment"), max_length=16, choices=Commitment.choices)
    provider = models.CharField(_("provider"), max_length=64, blank=True)
    price_per_gpu_hour = models.DecimalField(
        _("price per GPU-hour"), max_digits=10, decimal_places=4
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    observed_on = models.DateField(_("price date"))
    source = models.TextField(_("source"), help_text=_("Price page or list, with its URL."))
    price_source = models.ForeignKey(
        PriceSource,
        verbose_name=_("price feed"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="cloud_prices",
    )
    created_at = models.DateTimeField(_("recorded at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["gpu_model", "commitment", "currency", "provider", "-observed_on", "-id"]
        verbose_name = _("cloud price")
        verbose_name_plural = _("cloud prices")
        indexes = [
            models.Index(
                fields=["gpu_model", "commitment", "currency", "provider", "-observed_on", "-id"],
                name="catalog_cloudprice_current_idx",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(price_per_gpu_hour__gte=0),
                name="%(app_label)s_%(class)s_price_per_gpu_hour_gte_0",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES),
                name="%(app_label)s_%(class)s_currency_known",
            ),
            models.CheckConstraint(
                condition=Q(commitment__in=Commitment.values),
                name="%(app_label)s_%(class)s_commitment_known",
            ),
        ]

    def __str__(self) -> str:
        who = f" {self.provider}" if self.provider else ""
        return (
            f"{self.gpu_model}{who} {self.price_per_gpu_hour} {self.currency}/GPU-h "
            f"({self.observed_on})"
        )


class ReviewStatus(models.TextChoices):
    PENDING = "pending", _("Awaiting review")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")


class QuarantinedPrice(models.Model):
    """A feed price that moved more than PRICE_QUARANTINE_CHANGE_PCT: held for staff review.

    It names either a part price (``part`` + ``price_kind``) or a cloud price (``gpu_model`` +
    ``commitment`` + ``provider``). Approving records it through the same services as a feed.
    """

    source = models.ForeignKey(
        PriceSource, verbose_name=_("source"), on_delete=models.PROTECT, related_name="+"
    )
    run = models.ForeignKey(
        PriceRefreshRun, verbose_name=_("run"), on_delete=models.PROTECT, related_name="+"
    )
    row = models.PositiveIntegerField(_("feed row"))
    part = models.ForeignKey(
        Part,
        verbose_name=_("part"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    price_kind = models.CharField(
        _("price kind"), max_length=16, choices=PriceKind.choices, blank=True
    )
    gpu_model = models.CharField(_("GPU model key"), max_length=32, blank=True)
    commitment = models.CharField(
        _("commitment"), max_length=16, choices=Commitment.choices, blank=True
    )
    provider = models.CharField(_("provider"), max_length=64, blank=True)
    amount = models.DecimalField(_("new amount"), max_digits=14, decimal_places=4)
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    observed_on = models.DateField(_("price date"))
    previous_amount = models.DecimalField(_("current amount"), max_digits=14, decimal_places=4)
    previous_observed_on = models.DateField(_("current price date"))
    source_detail = models.TextField(_("price source"), help_text=_("Stored with the price."))
    status = models.CharField(
        _("status"), max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    created_at = models.DateTimeField(_("held at"), auto_now_add=True)
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    price = models.ForeignKey(
        Price,
        verbose_name=_("recorded price"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    cloud_price = models.ForeignKey(
        CloudPrice,
        verbose_name=_("recorded cloud price"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["status", "-created_at", "-id"]
        verbose_name = _("quarantined price")
        verbose_name_plural = _("quarantined prices")
        constraints = [
            models.CheckConstraint(
                condition=(Q(part__isnull=False) & Q(gpu_model="") & ~Q(price_kind=""))
                | (Q(part__isnull=True) & ~Q(gpu_model="") & ~Q(commitment="")),
                name="%(app_label)s_%(class)s_part_or_cloud",
            ),
            models.CheckConstraint(
                condition=Q(status__in=ReviewStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
            models.CheckConstraint(
                condition=Q(amount__gte=0), name="%(app_label)s_%(class)s_amount_gte_0"
            ),
            models.UniqueConstraint(
                fields=["part", "price_kind", "currency", "observed_on", "amount"],
                condition=Q(status="pending", part__isnull=False),
                name="%(app_label)s_%(class)s_one_pending_part_price",
            ),
            models.UniqueConstraint(
                fields=["gpu_model", "commitment", "provider", "currency", "observed_on", "amount"],
                condition=Q(status="pending", part__isnull=True),
                name="%(app_label)s_%(class)s_one_pending_cloud_price",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject} {self.amount} {self.currency} ({self.get_status_display()})"

    @property
    def subject(self) -> str:
        if self.part_id:
            return f"{self.part.sku} {self.price_kind}"
        who = f" {self.provider}" if self.provider else ""
        return f"{self.gpu_model} {self.commitment}{who}"

    @property
    def change_pct(self) -> Decimal | None:
        if not self.previous_amount:
            return None
        return (self.amount - self.previous_amount) * 100 / self.previous_amount
