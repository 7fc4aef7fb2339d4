"""The words shown beside the catalog's enum values in the admin and forms, one per member.

The enums themselves are declared once, where they are used: the parts' kinds and properties in
``engine.build.parts``, what a feed is in ``catalog.feeds``, a service tier's coverage in
``engine.commerce.service_tiers``. A member added there without a word here fails at import
(``gpuquote.core.choices.choices_of``); a new value also needs a migration (the field's choices
and its ``*_known`` constraint).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from catalog.feeds.types import Commitment, FeedFormat, FeedKind
from engine.build.parts import (
    Availability,
    CableEnds,
    CableKind,
    Cooling,
    DriveFormFactor,
    DriveKind,
    FormFactor,
    GpuClass,
    PartKind,
)
from engine.commerce.service_tiers import Coverage
from gpuquote.core.choices import choices_of

PART_KIND_CHOICES = choices_of(
    PartKind,
    {
        PartKind.GPU: _("GPU"),
        PartKind.CPU: _("CPU"),
        PartKind.MEMORY: _("Memory module"),
        PartKind.DRIVE: _("Drive"),
        PartKind.NIC: _("Network card"),
        PartKind.CHASSIS: _("Chassis"),
        PartKind.SWITCH: _("Switch"),
        PartKind.CABLE: _("Cable or transceiver"),
        PartKind.STORAGE_SERVER: _("Storage server"),
    },
)

AVAILABILITY_CHOICES = choices_of(
    Availability,
    {
        Availability.CURRENT: _("Current"),
        Availability.END_OF_LIFE: _("End of life"),
        Availability.REFURBISHED: _("Refurbished"),
    },
)

FORM_FACTOR_CHOICES = choices_of(
    FormFactor,
    {
        FormFactor.SXM: "SXM",
        FormFactor.PCIE: "PCIe",
        FormFactor.OAM: "OAM",
    },
)

GPU_CLASS_CHOICES = choices_of(
    GpuClass,
    {
        GpuClass.DATACENTER: _("Datacenter"),
        GpuClass.WORKSTATION: _("Workstation"),
        GpuClass.CONSUMER: _("Consumer"),
    },
)

DRIVE_KIND_CHOICES = choices_of(
    DriveKind,
    {
        DriveKind.NVME: "NVMe",
        DriveKind.SATA_SSD: _("SATA SSD"),
        DriveKind.HDD: _("Hard disk"),
    },
)

DRIVE_FORM_FACTOR_CHOICES = choices_of(
    DriveFormFactor,
    {
        DriveFormFactor.M2: "M.2",
        DriveFormFactor.U2: "U.2",
        DriveFormFactor.U3: "U.3",
        DriveFormFactor.E1S: "E1.S",
        DriveFormFactor.E3S: "E3.S",
        DriveFormFactor.SATA: _("2.5-inch SATA"),
        DriveFormFactor.LFF: _("3.5-inch"),
    },
)

COOLING_CHOICES = choices_of(
    Cooling,
    {
        Cooling.AIR: _("Air"),
        Cooling.LIQUID: _("Liquid"),
    },
)

CABLE_KIND_CHOICES = choices_of(
    CableKind,
    {
        CableKind.DAC: _("Copper cable (DAC)"),
        CableKind.AOC: _("Active optical cable"),
        CableKind.FIBER: _("Optical fiber cord"),
        CableKind.TRANSCEIVER: _("Optical transceiver"),
        CableKind.COPPER: _("Cat6 patch cord"),
    },
)

CABLE_ENDS_CHOICES = choices_of(
    CableEnds,
    {
        CableEnds.ANY: _("Any two ports"),
        CableEnds.SWITCH_TO_ADAPTER: _("Switch to server adapters"),
        CableEnds.SWITCH_TO_SWITCH: _("Switch to switch"),
        CableEnds.SWITCH: _("Switch cage (transceiver)"),
        CableEnds.ADAPTER: _("Adapter cage (transceiver)"),
    },
)


FEED_KIND_CHOICES = choices_of(
    FeedKind,
    {
        FeedKind.SUPPLIER: _("Supplier: purchase prices of parts"),
        FeedKind.HOSTING: _("Hosting: managed-hosting prices per month"),
        FeedKind.CLOUD: _("Cloud: GPU prices per GPU-hour"),
        FeedKind.CLOUD_OFFERS: _("Cloud offers: the providers' catalogs (gpuhunt format)"),
        FeedKind.EXCHANGE_RATES: _("Exchange rates: ECB euro reference rates"),
        FeedKind.ELECTRICITY: _("Electricity: Eurostat non-household prices (nrg_pc_205)"),
        FeedKind.HOSTING_OFFERS: _("Hosting offers: dated public offers (market band)"),
    },
)


FEED_FORMAT_CHOICES = choices_of(
    FeedFormat,
    {
        FeedFormat.CSV: "CSV",
        FeedFormat.JSON: "JSON",
        FeedFormat.XML: "XML",
        FeedFormat.ZIP: _("ZIP of CSV files"),
    },
)


COMMITMENT_CHOICES = choices_of(
    Commitment,
    {
        Commitment.ON_DEMAND: _("On demand"),
        Commitment.RESERVED_1Y: _("Reserved, 1 year"),
        Commitment.RESERVED_3Y: _("Reserved, 3 years"),
    },
)


COVERAGE_CHOICES = choices_of(
    Coverage,
    {
        Coverage.BUSINESS_HOURS: _("Business hours (working days)"),
        Coverage.ALWAYS: _("24×7 (every hour of every day)"),
    },
)
