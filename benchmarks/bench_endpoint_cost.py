"""The CPU one anonymous request costs, per endpoint: its most expensive valid input and its most
expensive invalid input (the largest values the forms allow, the largest bodies under the
limits, the heaviest stored result).

CPU time of this process (``time.process_time``) around the test client's call: one warm-up,
then the median of 3. Against the development database (``make prepare`` loads the catalog);
the benchmark stores its own results and a sent quote. Each call comes from its own address, so
no rate limit answers in its place (the limits bound how often, not how much). Whatever a call
needs to be the expensive one (an empty PDF cache, a question never asked) is arranged before
it, outside the measurement.

Run: ``python -m benchmarks.bench_endpoint_cost`` (or ``python -m benchmarks
bench_endpoint_cost``). No target: a report (the figures are in docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
import json
import secrets
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.timing import django_setup

RUNS = 3
BIG_FORM_BYTES = 2_400_000  # under DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MiB)
_addresses = (f"10.{a}.{b}.{c}" for a, b, c in itertools.product(range(1, 250), repeat=3))


def _address() -> dict[str, Any]:
    return {"REMOTE_ADDR": next(_addresses)}


def cpu_ms(call: Callable[[], Any], prepare: Callable[[], None] | None = None) -> tuple[float, str]:
    """Median CPU milliseconds of ``call`` (after one warm-up) and the last status seen."""
    samples = []
    status = ""
    for run in range(RUNS + 1):
        if prepare is not None:
            prepare()
        started = time.process_time()
        response = call()
        elapsed = (time.process_time() - started) * 1000
        status = str(getattr(response, "status_code", ""))
        if run:
            samples.append(elapsed)
    return statistics.median(samples), status


def main() -> bool:  # one list of cases, read top to bottom
    django_setup()
    import logging

    from django.conf import settings

    logging.disable(logging.WARNING)  # 404s, 401s and sign-in failures are the point here

    settings.ALLOWED_HOSTS = ["*"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # not the console
    from django.contrib.auth import get_user_model
    from django.core.cache import cache, caches
    from django.test import Client

    from quotes.models import WizardResult

    client = Client(HTTP_HOST="localhost")
    counter = itertools.count(1)

    def run(endpoint: str, label: str, call: Callable[[], Any], prepare=None) -> None:
        try:
            ms, status = cpu_ms(call, prepare)
        except Exception as exc:  # a case this version cannot run: say so, go on
            print(f"   {endpoint:38} {label:58} not run: {type(exc).__name__}: {exc}"[:200])
            return
        print(f"   {endpoint:38} {label:58} {ms:9.1f} ms CPU  [{status}]", flush=True)

    def get(path: str, **extra: Any) -> Callable[[], Any]:
        return lambda: client.get(path, **_address(), **extra)

    def post(path: str, data: Any = None, **extra: Any) -> Callable[[], Any]:
        return lambda: client.post(path, data() if callable(data) else data, **_address(), **extra)

    def clear_caches() -> None:
        for alias in settings.CACHES:
            caches[alias].clear()
        try:
            from quotes.wizard import result_cache

            result_cache._advices.clear()
            result_cache._contexts.clear()
        except (ImportError, AttributeError):
            pass

    # --- The wizard's answers: the heaviest the forms accept -----------------------------------
    heavy_project = {
        "goal": "pretraining",
        "model": "custom",
        "parameters_billions": "10000",
        "model_kind": "decoder",
        "method": "full",
        "precision": "fp32",
        "batch_size": "65536",
        "sequence_length": "131072",
        "lora_rank": "16",
        "gradient_checkpointing": "",
    }
    heavy = {
        "project": heavy_project,
        "data": {"kind": "text", "training_tokens": "1000000000000000", "epochs": "1000"},
        "usage": {"environment": "production", "uptime": "always_on", "growth_gpus": "16"},
        "deployment": {
            "deployment": "not_sure",
            "region": "US",
            "currency": "USD",
            "horizon_years": "7",
            "utilization_pct": "80",
            "budget": "1",
        },
    }
    serving = {  # the largest registry model, as many users and as long a context as allowed
        "project": {"goal": "inference", "model": "llama-3.1-405b"}
        | {
            k: v
            for k, v in heavy_project.items()
            if k not in ("goal", "model", "parameters_billions")
        },
        "data": {"kind": "text", "concurrent_users": "100000", "context_length": "131072"},
        "usage": heavy["usage"],
        "deployment": heavy["deployment"],
    }
    tuning = {  # the largest registry model, fully fine-tuned on the most data allowed
        "project": serving["project"]
        | {
            "goal": "fine_tuning",
            "method": "full",
            "precision": "bf16",
            "batch_size": "1024",
            "sequence_length": "131072",
        },
        "data": {"kind": "text", "total_gb": "100000000", "epochs": "1000"},
        "usage": heavy["usage"],
        "deployment": heavy["deployment"],
    }
    cases = {
        "pretraining 10T params, 1e15 tokens": heavy,
        "serving Llama 3.1 405B, 100k users, 128k context": serving,
        "full fine-tuning Llama 3.1 405B, 100 PB x 1000": tuning,
    }

    def step(name: str) -> str:
        return f"/wizard/{name}/"

    def walk(answers: dict[str, dict[str, str]]) -> Any:
        last = None
        for name, data in answers.items():
            last = client.post(step(name), data | {"nav": "next"}, **_address())
        return last

    def fresh_deployment(answers: dict[str, dict[str, str]]) -> Callable[[], dict[str, str]]:
        # A question never asked: another utilisation each time (the answer is not stored yet).
        return lambda: (
            answers["deployment"] | {"nav": "next", "utilization_pct": str(next(counter) % 99 + 1)}
        )

    def new_result(answers: dict[str, dict[str, str]]) -> str:
        walk({k: v for k, v in answers.items() if k != "deployment"})
        response = client.post(step("deployment"), fresh_deployment(answers)(), **_address())
        location = response.get("Location", "")
        if not location.startswith("/r/"):
            raise RuntimeError(f"no result stored ({response.status_code})")
        return location.split("/")[2]

    print("== the wizard ==", flush=True)
    run("GET / (step 1)", "no answers", get("/"))
    run(
        "POST /wizard/project/",
        "heaviest custom model",
        post(step("project"), heavy["project"] | {"nav": "next"}),
    )
    run(
        "POST /wizard/project/",
        f"one {BIG_FORM_BYTES // 1000} KB field",
        post(step("project"), {"model": "x" * BIG_FORM_BYTES}),
    )
    many = "&".join(["model=x"] * 999)
    run(
        "POST /wizard/project/",
        "999 repeated fields",
        post(step("project"), many, content_type="application/x-www-form-urlencoded"),
    )
    walk({k: v for k, v in heavy.items() if k != "deployment"})
    run("GET /wizard/deployment/", "heaviest answers stored", get(step("deployment")))
    run(
        "POST /wizard/deployment/",
        f"budget of {BIG_FORM_BYTES // 1000}K digits",
        post(
            step("deployment"),
            heavy["deployment"] | {"budget": "9" * BIG_FORM_BYTES, "nav": "next"},
        ),
    )
    for label, answers in cases.items():
        walk({k: v for k, v in answers.items() if k != "deployment"})
        run(
            "POST /wizard/deployment/ (computes)",
            label,
            post(step("deployment"), fresh_deployment(answers)),
        )
    run("POST /wizard/reset/", "-", post("/wizard/reset/"))

    print("== the stored result ==", flush=True)
    try:
        token = new_result(serving)
    except Exception as exc:
        print(f"   heavy result not stored ({exc}); the fine-tuning case instead")
        from tests.quotes.wizard.wizard_cases import FINE_TUNING_WITH_BUDGET

        token = new_result(FINE_TUNING_WITH_BUDGET)
    result = f"/r/{token}/"
    run("GET /r/<token>/", "heaviest result, first visit", get(result), clear_caches)
    run("GET /r/<token>/", "heaviest result, later visit", get(result))
    run("GET /r/<token>/", "unknown token", get("/r/" + "x" * 40 + "/"))
    run(
        "GET /r/<token>/checklist.pdf",
        "heaviest result, not cached",
        get(result + "checklist.pdf"),
        clear_caches,
    )
    run("GET /r/<token>/checklist.pdf", "heaviest result, again", get(result + "checklist.pdf"))
    run("GET /r/<token>/options.csv", "heaviest result", get(result + "options.csv"), clear_caches)
    from catalog.models import Part

    gpus = list(Part.objects.filter(kind="gpu").values_list("sku", flat=True))
    cheapest = gpus[0] if gpus else ""

    def reprice() -> dict[str, str]:
        n = next(counter)
        return {
            "gpu": cheapest,
            "gpu_count": "512",
            "horizon_years": str(n % 7 + 1),
            "region": ("US", "DE", "FR")[n % 3],
            "deployment": "not_sure",
        }

    run(
        "POST /r/<token>/reprice/ (computes)",
        "512 GPUs of one model, not sure where",
        post(result + "reprice/", reprice),
    )
    run(
        "POST /r/<token>/reprice/",
        f"gpu_count of {BIG_FORM_BYTES // 1000}K digits",
        post(
            result + "reprice/",
            {
                "gpu_count": "9" * BIG_FORM_BYTES,
                "horizon_years": "3",
                "region": "US",
                "deployment": "not_sure",
            },
        ),
        clear_caches,
    )
    budget_tokens: list[str] = []

    def budget_prepare() -> None:
        budget_tokens.append(new_result(heavy))

    run(
        "POST /r/<token>/use-budget/ (computes)",
        "heaviest result, budget 1",
        lambda: client.post(f"/r/{budget_tokens[-1]}/use-budget/", **_address()),
        budget_prepare,
    )
    run(
        "POST /r/<token>/recompute/",
        "a current result (nothing to do)",
        post(result + "recompute/"),
    )
    quote_ok = {
        "name": "Ada",
        "company": "Acme",
        "email": "ada@example.com",
        "country": "FR",
        "message": "m" * 4000,
        "consent": "on",
    }

    def quote_prepare() -> None:
        budget_tokens.append(new_result(heavy))

    run(
        "POST /r/<token>/quote/",
        "longest valid form (4,000-char message)",
        lambda: client.post(f"/r/{budget_tokens[-1]}/quote/", quote_ok, **_address()),
        quote_prepare,
    )
    run(
        "POST /r/<token>/quote/",
        f"message of {BIG_FORM_BYTES // 1000} KB",
        post(result + "quote/", quote_ok | {"message": "m" * BIG_FORM_BYTES}),
        clear_caches,
    )
    run("GET /r/<token>/quote/sent/", "-", get(result + "quote/sent/"))

    print("== the customer's quote ==", flush=True)
    try:
        from django.contrib.auth.models import Group

        from quotes.sales import services as sales_services
        from tests.quotes.sales.test_quote_services import quote_make

        def sent_quote_make(user, **kwargs):
            quote = quote_make(user, **kwargs)
            sales_services.quote_send(user=user, quote=quote, failed_checks_acknowledged=True)
            quote.refresh_from_db()
            return quote

        user = get_user_model().objects.filter(username="bench-rep").first()
        if user is None:
            user = get_user_model().objects.create_user(
                username="bench-rep", password=secrets.token_urlsafe()
            )
            user.groups.add(Group.objects.get_or_create(name=sales_services.REP_GROUP)[0])
        from decimal import Decimal

        lines = [
            sales_services.LineInput(
                kind="part",
                sku="GPU-H100",
                description=f"H100 {i}",
                quantity=Decimal(2),
                unit_price=Decimal("25000.00"),
            )
            for i in range(50)
        ]
        quote = sent_quote_make(user, lines=lines)
        page = f"/q/{quote.token}/"
        run("GET /q/<token>/", "a sent quote of 50 lines", get(page))
        run(
            "POST /q/<token>/",
            f"one {BIG_FORM_BYTES // 1000} KB field",
            post(page, {"answer": "x" * BIG_FORM_BYTES}),
        )
        run(
            "GET /q/<token>/quote.pdf",
            "a sent quote of 50 lines, first",
            get(page + "quote.pdf"),
            clear_caches,
        )
        run("GET /q/<token>/quote.pdf", "a sent quote of 50 lines, again", get(page + "quote.pdf"))
        run("GET /q/<token>/quote.pdf", "unknown token", get("/q/" + "x" * 40 + "/quote.pdf"))
    except Exception as exc:
        print(f"   no sent quote ({type(exc).__name__}: {exc})")

    print("== the API ==", flush=True)
    # The API's workloads: the ones the wizard stored for its heaviest answers (the same shape).
    workloads = {}
    for label, answers in cases.items():
        try:
            workloads[label] = WizardResult.objects.get(token=new_result(answers)).answers[
                "workload"
            ]
        except Exception as exc:
            print(f"   no workload for {label} ({exc})")

    def varied(workload: dict[str, Any]) -> dict[str, Any]:
        workload = json.loads(json.dumps(workload))
        n = next(counter)
        if "concurrent_requests" in workload.get("inference", {}):
            workload["inference"]["concurrent_requests"] -= n
        elif "epochs" in workload.get("training", {}):
            workload["training"]["epochs"] -= n / 1000
        elif "epochs" in workload.get("data", {}):
            workload["data"]["epochs"] -= n / 1000
        return workload

    arrays = "[" + ",".join(["[0]"] * 650_000) + "]"  # 2.6 MB
    for name in ("sizing", "configurations", "tco"):
        path = f"/api/v1/{name}/"
        for label, workload in workloads.items():

            def body(workload=workload, name=name) -> str:
                workload = varied(workload)
                extra = {"environment": "production"} | (
                    {"region": "US", "currency": "USD", "horizon_years": 7} if name == "tco" else {}
                )
                return json.dumps(workload if name == "sizing" else {"workload": workload} | extra)

            # A question never asked: the answers cached per body are cleared before each call, and
            # the engine's own memos see another number each time.
            run(
                f"POST {path}",
                label,
                post(path, body, content_type="application/json"),
                clear_caches,
            )
        run(
            f"POST {path}",
            "2.6 MB of [[0],[0],...]",
            post(path, arrays, content_type="application/json"),
        )
        # Under every cap (64 KB, 1,000 items an array, 5,000 nodes): parsed, then refused.
        padded = json.dumps({f"k{i}": [0] * 990 for i in range(5)} | {"pad": "x" * 50_000})
        run(
            f"POST {path}",
            "64 KB object, 4,950 array items (under the caps)",
            post(path, padded, content_type="application/json"),
        )
    run("GET /api/v1/models/", "-", get("/api/v1/models/"))
    run("GET /api/v1/service-tiers/", "-", get("/api/v1/service-tiers/"))
    for name in ("gpus", "cpus", "chassis", "prices"):
        path = f"/api/v1/catalog/{name}/"
        run(f"GET {path}", "page_size=1000", get(path + "?page_size=1000&ordering=-sku"))
        run(
            f"GET {path}",
            "1,000 repeated filters, 8 KB",
            get(path + "?" + "&".join(f"vendor=x{i}" for i in range(1000))),
        )
    run(
        "GET /api/v1/catalog/gpus/<sku>/",
        "unknown SKU of 2,000 chars",
        get("/api/v1/catalog/gpus/" + "x" * 2000 + "/"),
    )
    run("GET /api/v1/schema/", "-", get("/api/v1/schema/"))
    run("GET /api/v1/docs/", "-", get("/api/v1/docs/"))
    run("GET /api/v1/redoc/", "-", get("/api/v1/redoc/"))
    run("GET /api/v1/<unknown>", "-", get("/api/v1/" + "x" * 2000))

    print("== operations and the rest ==", flush=True)
    for path in ("/livez", "/readyz", "/healthz", "/metrics"):
        run(f"GET {path}", "-", get(path))
    run("GET /staff/login/", "-", get("/staff/login/"))
    get_user_model().objects.filter(
        username="bench-login"
    ).exists() or get_user_model().objects.create_user(
        username="bench-login", password=secrets.token_urlsafe()
    )
    run(
        "POST /staff/login/",
        "a known user, wrong password",
        lambda: client.post(
            "/staff/login/", {"username": "bench-login", "password": "wrong"}, **_address()
        ),
    )
    run(
        "POST /staff/login/",
        "unknown user",
        lambda: client.post(
            "/staff/login/",
            {"username": f"nobody{next(counter)}", "password": "wrong"},
            **_address(),
        ),
    )
    run(
        "POST /staff/login/",
        f"password of {BIG_FORM_BYTES // 1000} KB",
        lambda: client.post(
            "/staff/login/",
            {"username": "bench-login", "password": "p" * BIG_FORM_BYTES},
            **_address(),
        ),
    )
    run("POST /i18n/setlang/", "fr", post("/i18n/setlang/", {"language": "fr", "next": "/"}))
    run(
        "POST /i18n/setlang/",
        f"next of {BIG_FORM_BYTES // 1000} KB",
        post("/i18n/setlang/", {"language": "fr", "next": "/" + "x" * BIG_FORM_BYTES}),
    )

    cache.clear()
    return True


if __name__ == "__main__":
    main()
