"""Admin for the whole catalog: search, filters, price history inline, read-only audit."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from catalog.models import Chassis, Cpu, Drive, Gpu, MemoryModule, NetworkCard, Price

AUDIT_FIELDS = ("created_at", "created_by", "updated_at", "updated_by")


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
    list_display = ("sku", "vendor", "model", "active", "updated_at", "updated_by")
    list_filter = ("active", "vendor")
    search_fields = ("sku", "vendor", "model", "notes")
    readonly_fields = AUDIT_FIELDS
    inlines = [PriceInline]
    list_select_related = ("updated_by",)

    def save_model(self, request, obj, form, change) -> None:
        obj.kind = obj.KIND
        if not change:
            obj.created_by = request.user
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change) -> None:
        prices = formset.save(commit=False)
        for price in prices:
            price.created_by = request.user
            price.save()
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
        "gpu_class",
        "active",
        "updated_at",
    )
    list_filter = ("gpu_class", "form_factor", "ecc", "vendor", "architecture", "active")


@admin.register(Cpu)
class CpuAdmin(PartAdmin):
    list_display = ("sku", "model", "cores", "socket", "tdp_w", "memory_channels", "active")
    list_filter = ("vendor", "socket", "server_grade", "active")


@admin.register(MemoryModule)
class MemoryModuleAdmin(PartAdmin):
    list_display = ("sku", "model", "capacity_gb", "ddr_generation", "speed_mts", "active")
    list_filter = ("ddr_generation", "speed_mts", "ecc", "registered", "active")


@admin.register(Drive)
class DriveAdmin(PartAdmin):
    list_display = ("sku", "model", "drive_kind", "capacity_tb", "read_mbs", "active")
    list_filter = ("drive_kind", "form_factor", "vendor", "active")


@admin.register(NetworkCard)
class NetworkCardAdmin(PartAdmin):
    list_display = ("sku", "model", "speed_gbps", "ports", "infiniband", "roce", "active")
    list_filter = ("speed_gbps", "infiniband", "roce", "ethernet", "active")


@admin.register(Chassis)
class ChassisAdmin(PartAdmin):
    list_display = (
        "sku",
        "model",
        "rack_units",
        "gpu_slots",
        "cooling",
        "cpu_socket_type",
        "active",
    )
    list_filter = ("cooling", "rack_units", "nvswitch", "accepts_sxm", "accepts_pcie", "active")


@admin.register(Price)
class PriceAdmin(admin.ModelAdmin):
    """All price rows; read-only, since history is never rewritten."""

    list_display = ("part", "price_kind", "amount", "currency", "observed_on", "created_at")
    list_filter = ("price_kind", "currency", "part__kind", "observed_on")
    search_fields = ("part__sku", "part__model", "source")
    date_hierarchy = "observed_on"
    list_select_related = ("part",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


admin.site.site_header = _("GPUQuote administration")
admin.site.site_title = _("GPUQuote")
