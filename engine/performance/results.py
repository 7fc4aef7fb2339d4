"""What a configuration delivers, as figures: the result types every job kind fills in, and how
a figure is rounded for people (``shown``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..i18n import Message
from ..sizing import Explanation
from .monitoring import MonitoringPlan
from .software import SoftwareStack

GB = 1e9


class Verdict(StrEnum):
    GOOD = "good"
    FAIR = "fair"
    POOR = "poor"


@dataclass(frozen=True, slots=True)
class ServingSpeed:
    """A language model served by ``replicas`` copies of ``gpus_per_replica`` GPUs each; tokens
    per second each user sees and in all, and the time to the first token, in seconds."""

    gpus_per_replica: int
    replicas: int
    users: int
    users_per_replica: int
    prompt_tokens: int
    answer_tokens: int
    tokens_per_second_per_user: float
    tokens_per_second: float
    time_to_first_token_s: float
    memory_bound: bool  # the step is limited by memory bandwidth (else by compute)
    speed: Verdict
    first_token: Verdict
    # Servers one copy spans, one pipeline stage each (1: every copy inside one server).
    pipeline_stages: int = 1


@dataclass(frozen=True, slots=True)
class OneServerDown:
    """The same service while one of the option's servers is down for repair: the ``servers``
    still up hold ``replicas`` model copies, which share every user (0 copies: the service
    stops, and so do its tokens)."""

    servers: int
    replicas: int
    tokens_per_second_per_user: float
    tokens_per_second: float


@dataclass(frozen=True, slots=True)
class ImageSpeed:
    """Images per second over all the GPUs, one image at a time per GPU; ``steps`` is 1 for a
    model that is not a diffusion model."""

    images_per_second: float
    seconds_per_image: float
    steps: int
    flops_per_image: float
    # The asked concurrency, each user asking one image: the last one waits this long
    # (``images.image_wait``); ``long_wait``: longer than ``images.LONG_WAIT_S``. None in
    # results stored before the wait was computed.
    users: int | None = None
    wait_s: float | None = None
    long_wait: bool | None = None


@dataclass(frozen=True, slots=True)
class EncoderSpeed:
    """An encoder (embeddings, reranking) on every GPU: requests of ``sequence_length`` tokens
    per second over all of them, one request's time alone on a GPU, the time the asked
    concurrency takes, and the hours to index the data set (None: no item count given)."""

    embeddings_per_second: float
    seconds_per_request: float
    seconds_at_concurrency: float
    sequence_length: int
    flops_per_request: float
    index_hours: float | None


@dataclass(frozen=True, slots=True)
class TrainingTime:
    hours: float
    deadline_days: float | None
    meets_deadline: bool | None  # None: no deadline given


@dataclass(frozen=True, slots=True)
class Performance:
    """What ``gpus`` x ``gpu_name`` deliver for the workload. ``lines`` are the short answers
    in the order to show them; ``explanations`` the figures with their formulas and sources."""

    gpu_name: str
    gpus: int
    serving: ServingSpeed | None
    images: ImageSpeed | None
    training: TrainingTime | None
    software: SoftwareStack | None
    lines: tuple[Message, ...]
    explanations: tuple[Explanation, ...]
    # What to watch on the option's servers run by the customer, and (``host_watches``) what
    # the host watches for them in managed hosting; None for a GPU vendor without data and in
    # results stored before options carried a monitoring plan.
    monitoring: MonitoringPlan | None = None
    # A language model served on several servers, one of them down (``degraded``); None for
    # other jobs, one server, and results stored before it was computed.
    one_server_down: OneServerDown | None = None
    # An encoder served (embeddings/s); None for other jobs and in results stored before.
    encoder: EncoderSpeed | None = None


# --- Entry points. -------------------------------------------------------------------------------


def shown(x: float) -> float | int:
    """A figure as people read it: whole numbers from 10 up (and whenever whole), one decimal
    from 1, else two significant digits. Still a number: the shell formats it for the locale."""
    if x >= 10:
        return round(x)
    shown = round(x, 1) if x >= 1 else float(f"{x:.2g}")
    return int(shown) if shown.is_integer() else shown
