from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from gpuquote import views
from quotes import views as wizard_views

api_v1 = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
    path("", include("catalog.api.urls")),
    path("", include("quotes.api.urls")),
]

urlpatterns = [
    # "/" opens the wizard's first step; "home" stays the name the templates link to.
    path("", wizard_views.wizard_step, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("livez", views.livez, name="livez"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/v1/", include((api_v1, "api"))),
    # Anything else under /api/: a JSON problem, never the site's HTML 404 page.
    re_path(r"^api/", views.api_not_found),
    path("", include("quotes.urls")),
]
