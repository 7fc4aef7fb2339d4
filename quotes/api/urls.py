from django.urls import include, path

from quotes.api import partner_views, views

urlpatterns = [
    path("models/", views.ModelListView.as_view(), name="models"),
    path("sizing/", views.SizingView.as_view(), name="sizing"),
    path("configurations/", views.ConfigurationsView.as_view(), name="configurations"),
    path("tco/", views.TcoView.as_view(), name="tco"),
    path("quotes/", partner_views.QuoteListCreateView.as_view(), name="quote-list"),
    path("quotes/<int:pk>/", partner_views.QuoteDetailView.as_view(), name="quote-detail"),
    path("quotes/<int:pk>/pdf/", partner_views.QuotePdfView.as_view(), name="quote-pdf"),
    path("", include("quotes.api.webhook_urls")),
]
