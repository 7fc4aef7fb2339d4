from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """For the load balancer: the process answers and its database does too."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


@require_GET
def livez(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers (no database). Also the load benchmark's baseline view."""
    return JsonResponse({"status": "ok"})
