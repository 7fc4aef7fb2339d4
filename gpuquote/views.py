from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from catalog.selectors import catalog_counts_get


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"counts": catalog_counts_get()})


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """For the load balancer: the process answers and its database does too."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
