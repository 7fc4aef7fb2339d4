from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from gpuquote.api.errors import PayloadTooLarge, problem_response


@require_GET
def livez(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers (no database; the load balancer's check, and the load
    benchmark's baseline view). ``gpuquote.ops.health`` has the deeper checks."""
    return JsonResponse({"status": "ok"})


@csrf_exempt  # any method, no session: the answer is the same JSON 404
def api_not_found(request: HttpRequest) -> JsonResponse:
    """No API resource at this path (any method): the API's problem shape, as JSON."""
    detail = gettext("No API resource at this address: see /api/v1/docs/.")
    return problem_response(404, detail)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400 (``handler400``): under /api/ the problem shape, and a body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413 there; elsewhere Django's own page."""
    if not request.path.startswith("/api/"):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        error = PayloadTooLarge()
        return problem_response(error.status_code, str(error.detail))
    return problem_response(400, gettext("The request could not be read."))
