from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from gpuquote import views
from gpuquote.api.schema_view import SchemaView
from gpuquote.core.form_body import form_body_limited
from gpuquote.ops import health, metrics
from quotes.wizard.views import steps as wizard_steps

api_v1: list[URLPattern | URLResolver] = [
    # The public calculators and the partner endpoints first (the most called), then the
    # catalog and the documentation; no two of these patterns match the same path.
    path("", include("quotes.api.urls")),
    path("", include("catalog.api.urls")),
    # Generated once per process and language, not per request (gpuquote.api.schema_view).
    path("schema/", SchemaView.as_view(), name="schema"),
    # Swagger UI runs under the site's strict policy: its start-up script is served by the same
    # view (?script=), its page styles come from a static file.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api:schema", template_name="api/swagger_ui.html"
        ),
        name="docs",
    ),
    # Redoc injects its styles at run time and searches in a blob: worker: allowed on this
    # page only, never a script.
    path(
        "redoc/",
        csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})(
            SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html")
        ),
        name="redoc",
    ),
]

urlpatterns = [
    # The API first: its calls are most of the traffic, and Django tries the patterns in order.
    path("api/v1/", include((api_v1, "api"))),
    # "/" opens the wizard's first step; "home" stays the name the templates link to.
    path("", wizard_steps.wizard_step, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("livez", views.livez, name="livez"),
    # Django's own language switch (django.conf.urls.i18n), its form body bounded as the site's.
    path("i18n/setlang/", form_body_limited(set_language), name="set_language"),
    path("admin/", admin.site.urls),
    # Anything else under /api/: a JSON problem, never the site's HTML 404 page.
    re_path(r"^api/", views.api_not_found),
    path("", include("quotes.wizard.urls")),
    # The sales team's /staff/... screens and the customer's /q/<token>/ quote: names sales:*.
    path("", include("quotes.sales.urls")),
]

# Django's own 400s (an unreadable or oversized body): the problem shape under /api/.
handler400 = "gpuquote.views.bad_request"
