"""From a workload to priced configurations: sizing feeds the builder.

The one place where the two engines meet, so the API, the wizard and the staff screens all get
the same answer for the same workload and catalog.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..build import rules
from ..build.builder import BuildNeeds, BuildResult, BuiltOption, Environment, GpuFit, build_options
from ..build.configuration import GpuPreference
from ..build.parts import CatalogSnapshot, GpuSpec
from ..build.search import SearchIndex
from ..i18n import Message, gettext_noop
from ..money import Money
from ..performance.options import delivered_score
from ..sizing import Sizing, interconnect_gbps_per_gpu, max_concurrent_requests, size
from ..sizing.core import UNREACHABLE_GPUS, hours_on
from ..sizing.fit import tensor_parallel_degrees
from ..sizing.model import resolve_workload
from ..sizing.system import dataset_gb
from ..tco import TcoConfiguration
from ..workload import LIMITS, Workload, WorkloadError
from .on_gpu import gpu_profile, sized_on

# The most GPUs one answer may hold: the workload's own GPU range (``training.gpus``).
MAX_CLUSTER_GPUS = int(LIMITS["training.gpus"][1])


@dataclass(frozen=True, slots=True)
class Advice:
    sizing: Sizing  # the job on its own (no GPU chosen): storage, data rates, explanations
    build: BuildResult


def sizing_on_gpu(workload: Workload, gpu: GpuSpec, *, explain: bool = True) -> Sizing | None:
    """The job sized on the GPU model it would run on, at the GPU count it needs; None: no fit.

    The count is the most of: what memory needs, what the deadline or the throughput target
    needs, and (training) the data-parallel GPUs the customer asked for. Training that fits only
    when sharded is re-sized with ZeRO-3, as ``min_gpus`` assumed.
    """
    profile = gpu_profile(gpu)
    first = size(workload, gpu=profile, explain=explain)
    if first.min_gpus is None:
        return None
    gpus = _gpus_wanted(workload, first, first.min_gpus)
    if gpus > MAX_CLUSTER_GPUS:
        return None  # the deadline or the target needs more GPUs than GPUQuote builds
    # The first sizing already ran at the count it picked: sizing again at the same count gives
    # the same answer, unless training must then be sharded (``sized_on``).
    reshard = first.fits is False and workload.is_training and gpus > 1
    sized = (
        first
        if gpus == first.gpus and not reshard
        else sized_on(workload, gpu, gpus, explain=explain)
    )
    return sized if sized.fits is not False else None


def _gpus_wanted(workload: Workload, first: Sizing, min_gpus: int) -> int:
    """The GPU count the job runs on: the most of what memory needs (``min_gpus``), what the
    deadline or the throughput target needs, and (training) the data-parallel GPUs asked for."""
    wanted = [min_gpus, first.gpus_for_deadline or 0, first.gpus_for_target or 0]
    if workload.is_training:
        wanted.append(workload.training_or_default.gpus)
    return max(wanted)


def too_many_gpus(workload: Workload, gpu: GpuSpec) -> Message | None:
    """Why the job gets no fit on ``gpu`` when memory is not the reason: its deadline (or
    throughput target) needs more than ``MAX_CLUSTER_GPUS`` of them. Names the nearest deadline
    the largest cluster meets (interruptions included, ``engine.sizing.core.wall_hours``)."""
    first = size(workload, gpu=gpu_profile(gpu), explain=False)
    if first.min_gpus is None:
        return None
    needed = _gpus_wanted(workload, first, first.min_gpus)
    if needed <= MAX_CLUSTER_GPUS:
        return None
    deadline = workload.training.deadline_days if workload.training is not None else None
    largest = hours_on(first, MAX_CLUSTER_GPUS)
    if first.gpus_for_deadline is not None and deadline is not None and largest is not None:
        reachable = first.gpus_for_deadline < UNREACHABLE_GPUS
        return Message(
            gettext_noop(
                "To finish within %(days)s days the job needs %(gpus)s × %(gpu)s, more than the "
                "%(max)s GPUs one answer holds: allow at least %(min_days)s days, or choose a "
                "faster GPU."
            )
            if reachable
            else gettext_noop(
                "No number of %(gpu)s finishes the job within %(days)s days: interruptions "
                "alone cost more than that at this scale. Allow at least %(min_days)s days, or "
                "choose a faster GPU."
            ),
            {
                "days": round(deadline, 1),
                "gpus": needed,
                "gpu": gpu.name,
                "max": MAX_CLUSTER_GPUS,
                "min_days": math.ceil(largest / 24),
            },
        )
    return Message(
        gettext_noop(
            "The job needs %(gpus)s × %(gpu)s, more than the %(max)s GPUs one answer holds: "
            "choose a faster GPU or ask for less."
        ),
        {"gpus": needed, "gpu": gpu.name, "max": MAX_CLUSTER_GPUS},
    )


def smaller_copies(workload: Workload, gpu: GpuSpec, replica: int) -> tuple[GpuFit, ...]:
    """Serving ``workload`` on ``gpu`` as copies smaller than ``replica`` GPUs: for each
    tensor-parallel degree below it (largest first) whose copy holds the weights and at least
    one user, as many copies as the users need (each holds the KV cache of its share)."""
    if workload.is_training or replica <= 1:
        return ()
    profile = gpu_profile(gpu)
    users = workload.inference_or_default.concurrent_requests
    fits: list[GpuFit] = []
    for degree in sorted(tensor_parallel_degrees(resolve_workload(workload).arch), reverse=True):
        if degree >= replica:
            continue
        try:
            per_copy = max_concurrent_requests(workload, gpu=profile, gpus=degree)
        except WorkloadError:  # no KV cache to share out
            return ()
        if per_copy < 1:
            break  # fewer GPUs per copy hold even less
        copies = -(-users // per_copy)
        if copies * degree > MAX_CLUSTER_GPUS:
            break
        share = dataclasses.replace(
            workload,
            inference=dataclasses.replace(
                workload.inference_or_default, concurrent_requests=-(-users // copies)
            ),
        )
        sized = size(share, gpu=profile, gpus=degree, explain=False)
        fits.append(
            GpuFit(
                gpus=copies * degree,
                memory_per_gpu_gb=sized.memory_per_gpu_gb.total,
                model_sharded=degree > 1,
                replica_gpus=degree,
            )
        )
    return tuple(fits)


def build_needs(
    workload: Workload,
    *,
    environment: Environment,
    currency: str,
    budget: Money | None = None,
    growth_gpus: int = 0,
    always_on: bool = False,
    preference: GpuPreference | None = None,
    repair_hours: int = rules.SERVER_REPAIR_HOURS,
) -> tuple[Sizing, BuildNeeds]:
    """What the builder needs for the workload. ``always_on``: the service must stay up around
    the clock, so a production service keeps one spare server (N+1, ``rules.spare_servers``).
    ``preference``: the customer's own GPU model and count (the result page's re-pricing).
    ``repair_hours``: the chosen service tier's time to replace a failed server (the
    availability the checks quote)."""
    base = size(workload)
    # GPUs with the same memory and throughput figures size alike: one sizing per key.
    fits: dict[tuple[float, float, float, float | None, float, float | None], GpuFit | None] = {}

    def gpus_for(gpu: GpuSpec) -> GpuFit | None:
        if preference is not None and preference.sku and gpu.sku != preference.sku:
            return None
        fit = job_fit(gpu)
        if fit is None or preference is None:
            return fit
        return preference.applied_to(fit)

    def job_fit(gpu: GpuSpec) -> GpuFit | None:
        # A GPU that cannot run the job's number format gets no fit, whatever its memory.
        if not rules.runs_precision(gpu.architecture, workload.precision):
            return None
        # GPUs alike in these figures size alike; the efficiency is per model (deadlines).
        profile = gpu_profile(gpu)
        key = (
            gpu.memory_gb,
            gpu.memory_bandwidth_gbs,
            gpu.bf16_tflops,
            gpu.fp8_tflops,
            profile.training_mfu,
            profile.training_mfu_fp8,
        )
        if key not in fits:
            sized = sizing_on_gpu(workload, gpu, explain=False)  # the figures alone
            fits[key] = (
                None
                if sized is None
                else GpuFit(
                    gpus=sized.gpus,
                    memory_per_gpu_gb=sized.memory_per_gpu_gb.total,
                    model_sharded=sized.model_sharded,
                    replica_gpus=sized.replica_gpus,
                )
            )
        return fits[key]

    # Whether the job spans servers depends on the GPU chosen: the builder applies this rate
    # only when it does. A model too large for any one GPU is sharded: assume the faster fabric.
    interconnect = interconnect_gbps_per_gpu(workload, model_sharded=True)

    def fewer_per_copy(gpu: GpuSpec) -> tuple[GpuFit, ...]:
        fit = gpus_for(gpu)
        if fit is None:
            return ()
        found = smaller_copies(workload, gpu, fit.replica_gpus)
        return found if preference is None else tuple(preference.applied_to(f) for f in found)

    def unfit_reason(gpu: GpuSpec) -> Message | None:
        if preference is not None and preference.sku and gpu.sku != preference.sku:
            return None
        return too_many_gpus(workload, gpu)

    needs = BuildNeeds(
        gpus_for=gpus_for,
        unfit_reason=unfit_reason,
        smaller_copies=None if workload.is_training else fewer_per_copy,
        environment=environment,
        model_sharded=base.model_sharded,
        large_project=base.large_project,
        storage_gb=base.storage_gb,
        storage_read_mbs=base.storage_read_mbs,
        cpu_cores_min=base.cpu_cores,
        interconnect_gbps_per_gpu=interconnect,
        budget=budget,
        currency=currency,
        growth_gpus=growth_gpus,
        precision=str(workload.precision),
        serving=not workload.is_training,
        # Every data-parallel server reads the whole data set: each keeps a local copy of it
        # (and of the model it starts from) when the job spans servers.
        local_storage_gb=(
            dataset_gb(workload) + base.memory_gb.weights if workload.is_training else None
        ),
        spare_servers=rules.spare_servers(
            production=environment is Environment.PRODUCTION,
            serving=not workload.is_training,
            always_on=always_on,
        ),
        delivered=delivered_score(workload),
        repair_hours=repair_hours,
    )
    return base, needs


def advise(
    workload: Workload,
    catalog: CatalogSnapshot,
    *,
    environment: Environment,
    budget: Money | None = None,
    growth_gpus: int = 0,
    always_on: bool = False,
    preference: GpuPreference | None = None,
    index: SearchIndex | None = None,
    repair_hours: int = rules.SERVER_REPAIR_HOURS,
) -> Advice:
    """Sizing and the builder's options; ``index``: the catalog's search index, when the caller
    keeps one per snapshot (``build_options``)."""
    base, needs = build_needs(
        workload,
        environment=environment,
        currency=catalog.currency,
        budget=budget,
        growth_gpus=growth_gpus,
        always_on=always_on,
        preference=preference,
        repair_hours=repair_hours,
    )
    return Advice(sizing=base, build=build_options(needs, catalog, index))


def power_per_server(
    power_w: int, power_sized_w: int, cluster_power_w: int, servers: int
) -> tuple[int, int]:
    """A server's full-load draw and the power provisioned for it (W), each with its share of
    the cluster's switches and storage servers: what the TCO bills as energy and as rent."""
    share = -(-cluster_power_w // servers)
    return power_w + share, max(power_sized_w, power_w) + share


def tco_configuration(option: BuiltOption) -> TcoConfiguration:
    """A built option as the TCO model reads it: per-server figures of its identical servers.
    The totals are taken as shown to the customer, rounded to cents, then shared per server; the
    cluster's switches and storage servers draw power too, shared out per server. Rent is paid on
    the power the supplies are sized for (``power_sized_w``), energy on the draw."""
    servers = option.servers
    totals = option.totals
    managed = totals.managed_monthly_price
    draw_w, provisioned_w = power_per_server(
        totals.power_w, totals.power_sized_w, totals.cluster_power_w, servers
    )
    return TcoConfiguration(
        servers=servers,
        gpus_per_server=totals.gpus // servers,
        gpu_model=option.gpu_line.name,
        power_w=draw_w,
        provisioned_w=provisioned_w,
        price=Money(totals.price.rounded().amount / servers, totals.currency),
        rack_units=totals.rack_units // servers,
        managed_monthly_price=None
        if managed is None
        else Money(managed.rounded().amount / servers, managed.currency),
    )
