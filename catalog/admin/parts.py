"""Parts and prices in the admin: search, filters, price history inline, read-only audit."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from catalog.models import (
    Cable,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    MemoryModule,
    NetworkCard,
    NetworkSwitch,
    Price,
    StorageServer,
)
from catalog.selectors import price_is_stale, price_stale_before
from catalog.services import (
    prices_add,
)

if TYPE_CHECKING:
    pass

AUDIT_FIELDS = ("created_at", "created_by", "updated_at", "updated_by")
# Price tables scroll in their own box and wrap long text, never widening the page.
PRICE_TABLES_CSS = {"all": ("css/admin.css",)}


class PriceInline(admin.TabularInline):
    """History: existing rows are read-only; a new price is always a new row."""

    model = Price
    extra = 0
    fields = (
        "price_kind",
        "amount",
        "currency",
        "observed_on",
        "source",
        "created_at",
        "created_by",
    )
    readonly_fields = ("created_at", "created_by")
    ordering = ("price_kind", "currency", "-observed_on", "-id")
    can_delete = False
    show_change_link = False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class PartAdmin(admin.ModelAdmin):
    # Each kind's admin lists its own columns and filters.
    list_display: tuple[str, ...] = ("sku", "vendor", "model", "active", "updated_at", "updated_by")
    list_filter: ClassVar[tuple[str, ...]] = ("active", "vendor")
    search_fields = ("sku", "vendor", "model", "notes")
    readonly_fields = AUDIT_FIELDS
    inlines = [PriceInline]
    list_select_related = ("updated_by",)

    class Media:
        css = PRICE_TABLES_CSS

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "availability" and field is not None:
            field.required = False  # left out: the model's default, current
        return field

    def save_model(self, request, obj, form, change) -> None:
        obj.kind = obj.KIND
        if not change:
            obj.created_by = request.user
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change) -> None:
        # New price rows only (existing ones are read-only); recorded and announced by the
        # catalog service (partners' price.changed webhooks).
        prices_add(prices=formset.save(commit=False), user=request.user)
        formset.save_m2m()


@admin.register(Gpu)
class GpuAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "memory_gb",
        "bf16_tflops",
        "tdp_w",
        "form_factor",
        "baseboard",
        "gpu_class",
        "availability",
        "lead_time_weeks",
        "active",
        "updated_at",
    )
    list_filter = (
        "gpu_class",
        "form_factor",
        "ecc",
        "vendor",
        "architecture",
        "availability",
        "active",
    )


@admin.register(Cpu)
class CpuAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "cores",
        "socket",
        "tdp_w",
        "memory_channels",
        "server_grade",
        "availability",
        "active",
    )
    list_filter = ("vendor", "socket", "server_grade", "availability", "active")


@admin.register(MemoryModule)
class MemoryModuleAdmin(PartAdmin):
    list_display = ("sku", "model", "capacity_gb", "ddr_generation", "speed_mts", "active")
    list_filter = ("ddr_generation", "speed_mts", "ecc", "registered", "availability", "active")


@admin.register(Drive)
class DriveAdmin(PartAdmin):
    list_display = ("sku", "model", "drive_kind", "capacity_tb", "read_mbs", "active")
    list_filter = ("drive_kind", "form_factor", "vendor", "availability", "active")


@admin.register(NetworkCard)
class NetworkCardAdmin(PartAdmin):
    list_display = ("sku", "model", "speed_gbps", "ports", "infiniband", "roce", "active")
    list_filter = ("speed_gbps", "infiniband", "roce", "ethernet", "availability", "active")


@admin.register(Chassis)
class ChassisAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "rack_units",
        "gpu_slots",
        "baseboards",
        "cooling",
        "cpu_socket_type",
        "psu_count",
        "psu_redundant",
        "availability",
        "active",
    )
    list_filter = (
        "cooling",
        "rack_units",
        "nvswitch",
        "accepts_sxm",
        "accepts_pcie",
        "availability",
        "active",
    )


@admin.register(NetworkSwitch)
class NetworkSwitchAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "ports",
        "port_speed_gbps",
        "infiniband",
        "ethernet",
        "management",
        "rack_units",
        "availability",
        "lead_time_weeks",
        "active",
    )
    list_filter = (
        "infiniband",
        "ethernet",
        "management",
        "port_speed_gbps",
        "vendor",
        "availability",
        "active",
    )


@admin.register(Cable)
class CableAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "cable_kind",
        "speed_gbps",
        "ends",
        "links",
        "length_m",
        "infiniband",
        "ethernet",
        "availability",
        "active",
    )
    list_filter = (
        "cable_kind",
        "speed_gbps",
        "ends",
        "infiniband",
        "ethernet",
        "vendor",
        "availability",
        "active",
    )


@admin.register(StorageServer)
class StorageServerAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "usable_tb",
        "protection",
        "read_mbs",
        "network_gbps",
        "port_speed_gbps",
        "rack_units",
        "availability",
        "lead_time_weeks",
        "active",
    )
    list_filter = ("vendor", "rack_units", "availability", "active")


class StaleFilter(admin.SimpleListFilter):
    """Prices observed more than PRICE_STALE_DAYS ago."""

    title = _("freshness")
    parameter_name = "stale"

    def lookups(self, request, model_admin):
        return (("yes", _("Stale")), ("no", _("Fresh")))

    def queryset(self, request, queryset):
        cutoff = price_stale_before()
        if self.value() == "yes":
            return queryset.filter(observed_on__lt=cutoff)
        if self.value() == "no":
            return queryset.filter(observed_on__gte=cutoff)
        return queryset


@admin.register(Price)
class PriceAdmin(admin.ModelAdmin):
    """All price rows; read-only, since history is never rewritten."""

    list_display = (
        "part",
        "price_kind",
        "amount",
        "currency",
        "observed_on",
        "stale",
        "created_at",
    )
    list_filter = ("price_kind", "currency", StaleFilter, "part__kind", "observed_on")
    search_fields = ("part__sku", "part__model", "source")
    date_hierarchy = "observed_on"
    list_select_related = ("part",)

    class Media:
        css = PRICE_TABLES_CSS

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("stale"), boolean=True)
    def stale(self, obj: Price) -> bool:
        return price_is_stale(obj.observed_on)


# --- Price feeds --------------------------------------------------------------------------------
