from django.urls import path

from quotes.api import views

urlpatterns = [
    path("models/", views.ModelListView.as_view(), name="models"),
    path("sizing/", views.SizingView.as_view(), name="sizing"),
    path("configurations/", views.ConfigurationsView.as_view(), name="configurations"),
    path("tco/", views.TcoView.as_view(), name="tco"),
]
