from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from gpuquote.api.errors import problem


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


@csrf_exempt  # any method, no session: the answer is the same JSON 404
def api_not_found(request: HttpRequest) -> JsonResponse:
    """No API resource at this path (any method): the API's problem shape, as JSON."""
    detail = gettext("No API resource at this address: see /api/v1/docs/.")
    return JsonResponse(problem(404, detail), status=404)
