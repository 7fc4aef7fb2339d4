from django.contrib import admin

from quotes.models import RegionAssumption


@admin.register(RegionAssumption)
class RegionAssumptionAdmin(admin.ModelAdmin):
    list_display = ("region", "name", "value", "currency", "updated_at", "updated_by")
    list_filter = ("region", "name")
    search_fields = ("name", "source")
    readonly_fields = ("updated_at", "updated_by")

    def save_model(self, request, obj, form, change) -> None:
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)
