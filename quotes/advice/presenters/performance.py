"""What an option delivers (speed, images, embeddings, training time, software stack) and how
to watch it, as JSON."""

from __future__ import annotations

from typing import Any

from engine.performance.monitoring import MonitoringPlan
from engine.performance.results import Performance
from quotes.advice.presenters.needs import explanations_to_list
from quotes.advice.presenters.words import Render, number, text


def performance_to_dict(performance: Performance, *, render: Render = text) -> dict[str, Any]:
    """Per-user decode speed and time to first token, images/s, training time against the
    deadline and the software stack of an option; ``lines`` are the short answers to show."""
    serving, images, training, software = (
        performance.serving,
        performance.images,
        performance.training,
        performance.software,
    )
    down = performance.one_server_down
    encoder = performance.encoder
    return {
        "gpu": performance.gpu_name,
        "gpus": performance.gpus,
        "serving": None
        if serving is None
        else {
            "gpus_per_replica": serving.gpus_per_replica,
            "replicas": serving.replicas,
            "users": serving.users,
            "users_per_replica": serving.users_per_replica,
            "prompt_tokens": serving.prompt_tokens,
            "answer_tokens": serving.answer_tokens,
            "tokens_per_second_per_user": number(serving.tokens_per_second_per_user, 1),
            "tokens_per_second": number(serving.tokens_per_second, 1),
            "time_to_first_token_s": number(serving.time_to_first_token_s, 3),
            "memory_bound": serving.memory_bound,
            "speed": str(serving.speed),
            "first_token": str(serving.first_token),
            "one_server_down": None
            if down is None
            else {
                "servers": down.servers,
                "replicas": down.replicas,
                "tokens_per_second_per_user": number(down.tokens_per_second_per_user, 1),
                "tokens_per_second": number(down.tokens_per_second, 1),
            },
        },
        "images": None
        if images is None
        else {
            "images_per_second": number(images.images_per_second, 3),
            "seconds_per_image": number(images.seconds_per_image, 2),
            "steps": images.steps,
            "flops_per_image": images.flops_per_image,
            "users": images.users,
            "wait_s": None if images.wait_s is None else number(images.wait_s, 1),
            "long_wait": images.long_wait,
        },
        "encoder": None
        if encoder is None
        else {
            "embeddings_per_second": number(encoder.embeddings_per_second, 1),
            "seconds_per_request": number(encoder.seconds_per_request, 6),
            "seconds_at_concurrency": number(encoder.seconds_at_concurrency, 3),
            "sequence_length": encoder.sequence_length,
            "flops_per_request": encoder.flops_per_request,
            "index_hours": None if encoder.index_hours is None else number(encoder.index_hours, 2),
        },
        "training": None
        if training is None
        else {
            "hours": number(training.hours, 1),
            "deadline_days": training.deadline_days,
            "meets_deadline": training.meets_deadline,
        },
        "software": None
        if software is None
        else {
            "vendor": software.vendor,
            "platform": software.platform,
            "statement": render(software.statement),
            "sources": list(software.sources),
            "seen_on": software.seen_on.isoformat(),
            "stack": [
                {"key": line.key, "text": render(line.text), "sources": list(line.sources)}
                for line in software.lines
            ],
        },
        "monitoring": monitoring_to_dict(performance.monitoring, render=render),
        "lines": [render(line) for line in performance.lines],
        "explanations": explanations_to_list(performance.explanations, render),
    }


def monitoring_to_dict(
    plan: MonitoringPlan | None, *, render: Render = text
) -> dict[str, Any] | None:
    """What to watch on an option's servers and when to alert (the customer's numbers in the
    alerts: GB = 10^9 bytes, W, °C), the pipeline, and what the host watches in managed hosting."""
    if plan is None:
        return None
    return {
        "vendor": plan.vendor,
        "seen_on": plan.seen_on.isoformat(),
        "stack": [
            {"key": step.key, "text": render(step.text), "sources": list(step.sources)}
            for step in plan.stack
        ],
        "watches": [
            {
                "key": watch.key,
                "metric": watch.metric,
                "what": render(watch.what),
                "alert": render(watch.alert),
                "threshold": None if watch.threshold is None else str(watch.threshold),
                "unit": watch.unit,
                "sources": list(watch.sources),
            }
            for watch in plan.watches
        ],
        "host_watches": [render(message) for message in plan.host_watches],
    }
