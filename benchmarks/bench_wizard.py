"""The customer wizard's server time: each step page, the result page and the checklist PDF.

Against the seed catalog in the development database (``make bench`` loads it), with Django's
test client (no network). The benchmark stores its own ``WizardResult`` through the wizard's
last step and deletes it afterwards. Targets (p95): each wizard page (GET and POST) 150 ms,
the checklist PDF 2 s; the last step and the result page 30 ms. The last step is
measured twice: answers asked before (the wizard's defaults recur: the computed result is kept
per process and data version) and answers never asked (another utilisation and horizon each
time). So is the result page: its first visit (the stored result decoded and its page worked
out) and the later ones (cached per process).

Run: ``python -m benchmarks bench_wizard`` (or ``make bench``).
"""

from __future__ import annotations

from benchmarks.timing import django_setup, measure, report

TARGET_STEP_MS = 150.0
TARGET_RESULT_MS = 30.0  # the last step too
TARGET_FIRST_VISIT_MS = 300.0
TARGET_PDF_MS = 2000.0
RUNS = 30
PDF_RUNS = 8


def main() -> bool:
    django_setup()
    from django.conf import settings

    # One client posts far faster than a person: lift the per-address rate limits for the run
    # (read at request time; Django may already be set up by an earlier benchmark of the run).
    for rate in ("WIZARD_RATE", "QUOTE_REQUEST_RATE", "CHECKLIST_PDF_RATE"):
        setattr(settings, rate, "1000000/m")
    from django.test import Client
    from django.urls import reverse

    from quotes.models import WizardResult
    from tests.quotes.wizard.wizard_cases import FINE_TUNING

    # The answers the tests walk (one copy), deployment "not sure": every option is shown.
    answers = FINE_TUNING | {"deployment": FINE_TUNING["deployment"] | {"deployment": "not_sure"}}

    client = Client(HTTP_HOST="localhost")
    ok = True

    def url(step: str) -> str:
        return reverse("wizard:step", kwargs={"step": step})

    def post(step: str) -> None:
        response = client.post(url(step), answers[step] | {"nav": "next"})
        assert response.status_code == 302, (step, response.status_code)

    steps = list(answers)
    for index, step in enumerate(steps):
        if index:
            post(steps[index - 1])
        samples = measure(lambda step=step: client.get(url(step)), runs=RUNS)
        ok &= report(f"GET step {index + 1} ({step})", samples, target_p95_ms=TARGET_STEP_MS)
        if step != steps[-1]:
            samples = measure(lambda step=step: post(step), runs=RUNS)
            ok &= report(f"POST step {index + 1} ({step})", samples, target_p95_ms=TARGET_STEP_MS)

    created: list[str] = []

    # A question never asked: another utilisation and horizon each time (99 x 7 of them).
    new_answers = (
        {"utilization_pct": str(pct), "horizon_years": str(years)}
        for pct in range(99, 0, -1)
        for years in range(1, 8)
    )

    def finish(new: bool) -> None:
        last = answers["deployment"] | {"nav": "next"}
        if new:
            last |= next(new_answers)
        response = client.post(url("deployment"), last)
        assert response.status_code == 302, response.status_code
        created.append(response["Location"])

    try:
        samples = measure(lambda: finish(False), runs=RUNS, warmup=1)
        ok &= report(
            "POST step 4, answers asked before (stores the kept result)",
            samples,
            target_p95_ms=TARGET_RESULT_MS,
        )
        samples = measure(lambda: finish(True), runs=RUNS)
        ok &= report(
            "POST step 4, new answers (computes and stores the result)",
            samples,
            target_p95_ms=TARGET_RESULT_MS,
        )
        fresh = iter(list(created[-RUNS:]))
        samples = measure(lambda: client.get(next(fresh)), runs=RUNS - 1, warmup=1)
        ok &= report("GET result page, first visit", samples, target_p95_ms=TARGET_FIRST_VISIT_MS)
        result_url = created[-1]
        samples = measure(lambda: client.get(result_url), runs=RUNS)
        ok &= report("GET result page, later visits", samples, target_p95_ms=TARGET_RESULT_MS)

        def pdf() -> None:
            response = client.get(result_url + "checklist.pdf")
            assert response["Content-Type"] == "application/pdf"

        from django.core.cache import cache

        def pdf_rendered() -> None:
            cache.clear()  # the PDF is cached per result and language: measure the rendering
            pdf()

        samples = measure(pdf_rendered, runs=PDF_RUNS, warmup=1)
        ok &= report("GET checklist PDF (rendered)", samples, target_p95_ms=TARGET_PDF_MS)
        samples = measure(pdf, runs=RUNS)
        ok &= report("GET checklist PDF (cached)", samples, target_p95_ms=TARGET_STEP_MS)
    finally:
        tokens = [location.rstrip("/").split("/")[-1] for location in created]
        WizardResult.objects.filter(token__in=tokens).delete()
    return ok
