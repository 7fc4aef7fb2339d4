"""Serving speed with one server down: what the users see while a failed server waits for its
repair (the service tier's replacement time).

The servers still up keep their model copies and share every user between them, so each copy
serves more users and each user's decode step reads more KV cache: the same formula as the
normal speed (``language.language_speed``), on fewer copies. Pure.
"""

from __future__ import annotations

from ..build.parts import GpuSpec
from ..i18n import Message
from ..sizing import Explanation
from ..sizing.model import ModelFigures
from ..workload import Workload
from .language import language_speed
from .results import OneServerDown


def copies_lost(*, gpus_per_replica: int, gpus_per_server: int) -> int:
    """Model copies one failed server takes with it: those it holds whole, or the one copy it
    holds part of when a copy spans servers."""
    if gpus_per_replica > gpus_per_server:
        return 1
    return max(1, gpus_per_server // gpus_per_replica)


def one_server_down(
    workload: Workload,
    model: ModelFigures,
    gpu: GpuSpec,
    *,
    gpus_per_replica: int,
    replicas: int,
    gpus_per_server: int,
    servers: int,
) -> OneServerDown | None:
    """Tokens per second each user sees with one of ``servers`` servers down, every user still
    asking at once; None for a single server (its failure stops the service: a single point of
    failure, not a slower service)."""
    if servers < 2:
        return None
    left = replicas - copies_lost(
        gpus_per_replica=gpus_per_replica, gpus_per_server=gpus_per_server
    )
    if left < 1:
        return OneServerDown(servers - 1, 0, 0.0, 0.0)
    # The figures alone: the normal speed's lines and explanations already say how.
    lines: list[Message] = []
    ex: list[Explanation] = []
    speed = language_speed(workload, model, gpu, gpus_per_replica, left, lines, ex)
    return OneServerDown(
        servers=servers - 1,
        replicas=left,
        tokens_per_second_per_user=speed.tokens_per_second_per_user,
        tokens_per_second=speed.tokens_per_second,
    )
