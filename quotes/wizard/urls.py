"""The customer wizard: four steps, the stored result at a private URL, its PDF, a quote."""

from django.urls import path

from quotes.wizard.views import result, steps

app_name = "wizard"

urlpatterns = [
    path("", steps.wizard_step, name="start"),
    path("wizard/reset/", steps.wizard_reset, name="reset"),
    path("wizard/<slug:step>/", steps.wizard_step, name="step"),
    path("r/<slug:token>/", result.result_detail, name="result"),
    path("r/<slug:token>/recompute/", result.result_recompute, name="result_recompute"),
    path("r/<slug:token>/use-budget/", result.result_use_budget, name="result_use_budget"),
    path("r/<slug:token>/reprice/", result.result_reprice, name="result_reprice"),
    path("r/<slug:token>/options.csv", result.result_csv, name="result_csv"),
    path("r/<slug:token>/checklist.pdf", result.checklist_pdf, name="checklist_pdf"),
    path("r/<slug:token>/quote/", result.quote_request, name="quote_request"),
    path("r/<slug:token>/quote/sent/", result.quote_sent, name="quote_sent"),
]
