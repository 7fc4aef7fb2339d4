"""The bare view of ``benchmarks.bare_settings`` and its WSGI application."""

from django.http import HttpRequest, JsonResponse
from django.urls import path


def bare(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


urlpatterns = [path("livez", bare)]
