from django.urls import path

from catalog.api import views

urlpatterns = [
    path("catalog/gpus/", views.GpuListView.as_view(), name="catalog-gpus"),
    path("catalog/gpus/<str:sku>/", views.GpuDetailView.as_view(), name="catalog-gpu"),
    path("catalog/cpus/", views.CpuListView.as_view(), name="catalog-cpus"),
    path("catalog/chassis/", views.ChassisListView.as_view(), name="catalog-chassis"),
    path("catalog/prices/", views.CurrentPriceListView.as_view(), name="catalog-prices"),
]
