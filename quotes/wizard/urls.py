"""The customer wizard: four steps, the stored result at a private URL, its PDF, a quote."""

from django.urls import include, path

from quotes import views

app_name = "wizard"

urlpatterns = [
    path("", views.wizard_step, name="start"),
    path("wizard/reset/", views.wizard_reset, name="reset"),
    path("wizard/<slug:step>/", views.wizard_step, name="step"),
    path("r/<slug:token>/", views.result_detail, name="result"),
    path("r/<slug:token>/checklist.pdf", views.checklist_pdf, name="checklist_pdf"),
    path("r/<slug:token>/quote/", views.quote_request, name="quote_request"),
    path("r/<slug:token>/quote/sent/", views.quote_sent, name="quote_sent"),
    path("", include("quotes.sales.urls")),  # /staff/... and the customer's /q/<token>/
]
