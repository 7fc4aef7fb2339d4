"""One request's search: the GPU models the job fits, per-model best plans (branch and bound over
chassis and GPU counts, ``server`` fills each server), the tiers and why nothing was found."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import partial
from typing import Any

from ...i18n import Message, gettext_noop
from .. import rules
from ..checks import model_sharded, nvlink_ok
from ..configuration import (
    BuildNeeds,
    Environment,
    GpuFit,
    drive_gb,
    memory_floor_gb,
    replica_layout_ok,
    server_capacity,
    servers_for,
    sparse_training,
    whole_copies,
)
from ..parts import ChassisSpec, Cooling, GpuClass, GpuSpec
from .candidates import Candidates
from .explain import explain_no_plan, usable_fit
from .index import SearchIndex
from .memo import Memo
from .records import BOUND_SLACK, INF, RANK_GPU, RANK_PARTS, UNMET_MAX, FittingGpu, Plan
from .server import solve_server


def preferred_search(index: SearchIndex, needs: BuildNeeds) -> Search:
    """The search the builder answers from: over the current parts alone when they make a
    configuration that passes every rule (within the budget), else over every offered part, so
    an end-of-life or refurbished part is used only when no current part does the job."""
    current = index.current_only
    if current is not None:
        search = Search(current, needs)
        cheapest = search.cheapest()
        if cheapest is not None and (
            needs.budget is None or cheapest.total <= current.units_floor(needs.budget)
        ):
            return search
    return Search(index, needs)


class Search:
    """One request's search: its candidates, per-model best plans, diagnostics."""

    def __init__(self, index: SearchIndex, needs: BuildNeeds) -> None:
        self.index = index
        self.needs = needs
        self.production = needs.environment is Environment.PRODUCTION
        self.boot = index.boot if self.production else None
        self.boot_cost = self.boot.cost * rules.BOOT_MIRROR_DRIVES if self.boot else 0
        self.candidates = Candidates(index, needs, self.production)
        self._counts: Memo[tuple[int, int, bool, bool, bool], tuple[list[int], int]] = Memo()
        # Not a memo: a model's best plan found below a bound, and the bound searched, so that a
        # later ask with a lower bound is answered without searching again.
        self._best: dict[tuple[int, bool, int, bool], tuple[Plan | None, float]] = {}
        self.failures: dict[object, tuple[int, int, Message]] = {}
        # Per GPU model (by id): whether a plan keeps every model copy inside one server, and
        # the fits of more, smaller copies (kept here, so that their ids stay theirs).
        self._whole: dict[int, bool] = {}
        self._smaller: dict[int, tuple[FittingGpu, ...]] = {}
        self.storage_floor = self._storage_floor()
        self.models = self._models()

    # Diagnostics

    def fail(self, rank: int, subject: object, template: str, **params: Any) -> None:
        """Record why ``subject`` (a GPU SKU; None: the whole request) fails, if it got further
        than its failures so far."""
        key = subject if subject is not None else (template, tuple(sorted(params.items())))
        kept = self.failures.get(key)
        if kept is None or rank > kept[0]:
            self.failures[key] = (rank, len(self.failures), Message(template, params))

    def unmet(self) -> tuple[Message, ...]:
        messages: list[Message] = []
        for _, _, message in sorted(self.failures.values(), key=lambda f: (-f[0], f[1])):
            if message not in messages:
                messages.append(message)
        if not messages:
            messages.append(Message(gettext_noop("No configuration passes every rule.")))
        return tuple(messages[:UNMET_MAX])

    # GPU models

    def _storage_floor(self) -> int:
        """A lower bound on the data drives of any configuration, whatever the number of servers:
        all servers together hold at least the job's capacity and read rate, so at least
        ``job / per-drive figure`` drives of a model (rounded up, less a hair so that float
        rounding in the per-server shares can never make the bound too high)."""

        def at_least(need: float, per_unit: float) -> int:
            if need <= 0:
                return 0
            return math.ceil(need / per_unit * BOUND_SLACK) if per_unit > 0 else -1

        best = INF
        for item in self.index.nvme:
            by_capacity = at_least(self.needs.storage_gb, drive_gb(item.spec))
            by_read = at_least(self.needs.storage_read_mbs, item.spec.read_mbs)
            if by_capacity >= 0 and by_read >= 0:
                best = min(best, max(1, by_capacity, by_read) * item.cost)
        return int(best) if best != INF else 0

    def _floor_rest(self, gpu: GpuSpec, cost: int, fit: GpuFit) -> int:
        """A lower bound on everything but the chassis, over all servers: the job's GPUs, one
        boot mirror, the storage floor, and RAM and cores at their lowest unit prices (all
        servers together hold at least 2 x the job's VRAM and max(4 per GPU, the job's, 8)
        cores)."""
        ram_gb = rules.SYSTEM_RAM_PER_VRAM * Fraction(gpu.memory_gb) * fit.gpus
        ram_unit = self.index.ram_unit_price.get((None, self.production, None), Fraction(0))
        cores = max(
            rules.CPU_CORES_PER_GPU * fit.gpus,
            self.needs.cpu_cores_min,
            rules.CPU_CORES_MIN_PER_SERVER,
        )
        return (
            fit.gpus * cost
            + self.boot_cost
            + self.storage_floor
            + math.floor(ram_gb * ram_unit * BOUND_SLACK)
            + math.floor(cores * self.index.core_unit_price)
        )

    def _fitting(self, gpu: GpuSpec, cost: int, fit: GpuFit) -> FittingGpu:
        chassis = self.index.chassis_for(gpu)
        floor_rest = self._floor_rest(gpu, cost, fit)
        return FittingGpu(
            gpu=gpu,
            cost=cost,
            fit=fit,
            floor_rest=floor_rest,
            lower_bound=floor_rest + (chassis[0].cost if chassis else 0),
        )

    def _models(self) -> list[FittingGpu]:
        floor = memory_floor_gb(self.needs)
        models: list[FittingGpu] = []
        for gpu, cost in self.index.gpus:
            fit = usable_fit(self, gpu, floor)
            if fit is None:
                continue
            models.append(self._fitting(gpu, cost, fit))
        if not self.index.gpus:
            self.fail(
                RANK_GPU,
                None,
                gettext_noop("The catalog offers no GPU priced in %(currency)s."),
                currency=self.index.currency,
            )
        return sorted(models, key=lambda m: (m.lower_bound, m.gpu.sku))

    # Per GPU model

    def gpu_counts(
        self, chassis: ChassisSpec, model: FittingGpu, whole: bool = False
    ) -> tuple[list[int], int]:
        """GPU counts per server worth trying in this chassis, and the largest count left out
        only because the chassis cannot link GPUs that share the model (0: none); ``whole``:
        only counts that keep every model copy inside the server."""
        gpu, needed = model.gpu, model.fit.gpus
        growth = self.needs.growth_gpus
        consumer = gpu.gpu_class is GpuClass.CONSUMER
        sharded = model_sharded(self.needs, model.fit)
        replica = model.fit.replica_gpus
        capacity = server_capacity(gpu, chassis, growth)

        def layout_ok(count: int) -> bool:
            if whole:
                return whole_copies(count, replica)
            return replica_layout_ok(count, replica, capacity)

        if gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
            wanted = [chassis.gpu_slots]
            if growth or (consumer and chassis.gpu_slots > rules.CONSUMER_GPUS_MAX_PER_SERVER):
                wanted = []
        else:
            most = min(capacity, needed)
            # A larger count for the same number of servers only adds GPUs and needs; a count
            # must hold whole model copies (or, for a copy larger than the server, a share).
            wanted = [
                count
                for count in range(1, most + 1)
                if layout_ok(count)
                and not any(
                    -(-needed // smaller) == -(-needed // count)
                    for smaller in range(1, count)
                    if layout_ok(smaller)
                )
            ]
        wanted = [count for count in wanted if layout_ok(count)]
        counts = [
            count
            for count in wanted
            if nvlink_ok(gpu, chassis, count, sharded, self.needs.serving, replica)
        ]
        unlinked = max((count for count in wanted if count not in counts), default=0)
        return counts, unlinked

    def best_plan(
        self,
        model: FittingGpu,
        bound: float,
        comfort: bool = False,
        per_server: int = 0,
        upper: bool = False,
    ) -> Plan | None:
        """The model's cheapest plan if it costs less than ``bound`` (memoised); ``comfort``: with
        the comfort margins; ``per_server``: only with that many GPUs per server (0: any);
        ``upper``: for an upper tier, so without more idle GPUs than the job uses
        (``rules.UPPER_TIER_IDLE_GPUS_MAX_SHARE``)."""
        key = (id(model), comfort, per_server, upper)
        cached = self._best.get(key)
        if cached is not None:
            plan, searched_below = cached
            if plan is not None:
                return plan if plan.total < bound else None
            if searched_below >= bound:
                return None
        if upper:
            # The cheapest plan with no limit on idle GPUs answers too when it keeps within it
            # (the limit only removes plans); none at all below the bound means none either.
            free = self._best.get((id(model), comfort, per_server, False))
            if free is not None:
                plan, searched_below = free
                if plan is None and searched_below >= bound:
                    return None
                if plan is not None and not self._too_idle(
                    plan.model.fit.gpus, plan.per_server, plan.servers
                ):
                    self._best[key] = (plan, bound)
                    return plan if plan.total < bound else None
        plan = self._solve_model(model, bound, comfort, per_server, upper)
        self._best[key] = (plan, bound)
        return plan

    def _solve_model(
        self, model: FittingGpu, bound: float, comfort: bool, only_count: int, upper: bool = False
    ) -> Plan | None:
        """The model's cheapest plan under ``bound``. Tensor-parallel copies stay inside one
        server whenever a server of the GPU model can hold one (the layout vLLM recommends:
        tensor parallel inside a server, pipeline stages across servers only for a model that
        does not fit one, https://docs.vllm.ai/en/v0.8.3/serving/distributed_serving.html);
        else more, smaller copies that each fit a server; a copy spanning servers, whose speed
        is a pipeline's (``engine.performance.language``), is the last resort."""
        plan = self._solve_layouts(model, bound, comfort, only_count, upper, whole=True)
        if plan is not None or model.fit.replica_gpus == 1 or self._whole_fits(model):
            return plan
        for smaller in self._smaller_copies(model):
            if self._whole_fits(smaller):
                return self.best_plan(smaller, bound, comfort, only_count, upper)
        return self._solve_layouts(model, bound, comfort, only_count, upper, whole=False)

    def _whole_fits(self, model: FittingGpu) -> bool:
        """Whether any plan keeps every copy of the model inside one server, whatever it costs
        (the cheapest such plan is kept as the model's, for later asks)."""
        key = id(model)
        if key not in self._whole:
            plan = self._solve_layouts(model, INF, False, 0, False, whole=True)
            self._whole[key] = plan is not None
            if plan is not None:
                self._best.setdefault((key, False, 0, False), (plan, INF))
        return self._whole[key]

    def _smaller_copies(self, model: FittingGpu) -> tuple[FittingGpu, ...]:
        """The job as more, smaller copies on the same GPU model, largest copy first."""
        key = id(model)
        if key not in self._smaller:
            fits = () if self.needs.smaller_copies is None else self.needs.smaller_copies(model.gpu)
            self._smaller[key] = tuple(
                self._fitting(model.gpu, model.cost, fit)
                for fit in fits
                if fit.replica_gpus < model.fit.replica_gpus
            )
        return self._smaller[key]

    def _solve_layouts(
        self,
        model: FittingGpu,
        bound: float,
        comfort: bool,
        only_count: int,
        upper: bool,
        *,
        whole: bool,
    ) -> Plan | None:
        """The cheapest plan under ``bound`` with copies inside servers (``whole``) or with
        any sound layout."""
        if self.production and self.boot is None:
            self.fail(
                RANK_PARTS,
                None,
                gettext_noop(
                    "Production needs a mirror of %(drives)s SSDs of at least %(min_gb)s GB for "
                    "the system, and the catalog offers none: add one."
                ),
                drives=rules.BOOT_MIRROR_DRIVES,
                min_gb=rules.BOOT_DRIVE_MIN_GB,
            )
            return None
        gpu = model.gpu
        floor_rest = model.floor_rest
        blocked: dict[str, int] = {}
        best: Plan | None = None
        any_chassis = False
        unlinked = 0
        needed = model.fit.gpus
        # No chassis holds more GPUs than the largest one: the fewest servers any plan needs.
        fewest = servers_for(needed, max(1, self.index.max_slots_for(gpu)), self.needs)
        if not self.index.chassis_for(gpu) and self.index.chassis_by_form.get(gpu.form_factor):
            blocked["baseboard"] = 1  # chassis of its form factor, none for its baseboard
        for chassis in self.index.chassis_for(gpu):
            if fewest * chassis.cost + floor_rest >= bound:
                break
            spec = chassis.spec
            if self._chassis_blocked(spec, gpu, blocked):
                continue
            shape = (id(model), spec.gpu_slots, spec.nvswitch, spec.nvlink_bridge, whole)
            counts, left_out = self._counts.get(shape, partial(self.gpu_counts, spec, model, whole))
            unlinked = max(unlinked, left_out)
            if only_count:
                counts = [count for count in counts if count == only_count]
            if not counts:
                blocked["slots"] = max(blocked.get("slots", 0), spec.gpu_slots)
                continue
            any_chassis = True
            for per_server in counts:
                servers = servers_for(needed, per_server, self.needs)
                if upper and self._too_idle(needed, per_server, servers):
                    continue
                if sparse_training(self.needs, per_server, servers):
                    blocked["sparse"] = 1
                    continue
                spare_gpus = servers * per_server - needed
                floor = (
                    servers * (chassis.cost + self.boot_cost)
                    + floor_rest
                    - self.boot_cost
                    + spare_gpus * model.cost
                )
                if floor >= bound:
                    continue
                plan = solve_server(self, chassis, model, per_server, bound, comfort)
                if plan is not None:
                    best, bound = plan, plan.total
        if bound == INF:
            explain_no_plan(self, model, blocked, any_chassis=any_chassis, unlinked=unlinked)
        return best

    def _chassis_blocked(self, spec: ChassisSpec, gpu: GpuSpec, blocked: dict[str, int]) -> bool:
        """Whether the chassis cannot take the GPU at all; records why in ``blocked``."""
        if gpu.tdp_w > spec.max_gpu_tdp_w:
            blocked["tdp"] = max(blocked.get("tdp", 0), spec.max_gpu_tdp_w)
            return True
        if gpu.tdp_w > rules.LIQUID_COOLING_ABOVE_GPU_W and spec.cooling is not Cooling.LIQUID:
            blocked["liquid"] = 1
            return True
        if self.production and spec.psu_redundant < rules.PSU_REDUNDANT_MIN:
            blocked["psu"] = 1
            return True
        if self.production and not spec.rack_mount:
            blocked["tower"] = 1
            return True
        return False

    # Tiers

    def cheapest(self) -> Plan | None:
        best: Plan | None = None
        bound: float = INF
        for model in self.models:
            if model.lower_bound >= bound:
                break
            plan = self.best_plan(model, bound)
            if plan is not None:
                best, bound = plan, plan.total
        return best

    def _too_idle(self, needed: int, per_server: int, servers: int) -> bool:
        """Whether a plan leaves more GPUs idle than an upper tier may: the same job done
        faster or with headroom, not a box mostly empty (spare servers aside)."""
        working = (servers - self.needs.spare_servers) * per_server
        return (working - needed) > needed * rules.UPPER_TIER_IDLE_GPUS_MAX_SHARE

    def _most_gpus(self, model: FittingGpu) -> int:
        """The most working GPUs an upper-tier plan of the model can hold: ``servers x
        per_server`` stays below the job's count plus one server's worth, for PCIe below twice
        the job's count, and within the idle share upper tiers allow."""
        needed = model.fit.gpus
        most = self.index.max_slots_for(model.gpu)
        idle_cap = needed + int(needed * rules.UPPER_TIER_IDLE_GPUS_MAX_SHARE)
        if model.gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
            return min(idle_cap, needed + max(0, most - 1))
        return min(idle_cap, 2 * needed - 1, needed + max(0, most - 1))

    def fastest(self, bound: float) -> Plan | None:
        def ceiling(model: FittingGpu) -> float:
            return model.gpu.bf16_tflops * self._most_gpus(model)

        best: Plan | None = None
        best_key: tuple[float, float, int] | None = None
        for model in sorted(self.models, key=lambda m: (-ceiling(m), m.lower_bound)):
            if best_key is not None and ceiling(model) < best_key[0]:
                break
            plan = self.best_plan(model, bound, upper=True)
            if plan is None:
                continue
            key = (plan.tflops, plan.bandwidth, -plan.total)
            if best_key is None or key > best_key:
                best, best_key = plan, key
        return best

    def best_value(self, bound: float) -> Plan | None:
        def value(plan: Plan) -> float:
            return plan.tflops / plan.total if plan.total else INF

        def ceiling(model: FittingGpu) -> float:
            # A plan of X GPUs costs at least X x the GPU price plus the floor of everything
            # else, and TFLOPS per price grows with X: the most GPUs give the ceiling.
            gpus = self._most_gpus(model)
            rest = model.lower_bound - model.fit.gpus * model.cost
            price = gpus * model.cost + rest
            return model.gpu.bf16_tflops * gpus / price if price > 0 else INF

        best: Plan | None = None
        best_key: tuple[float, float, int] | None = None
        for model in sorted(self.models, key=lambda m: (-ceiling(m), m.lower_bound)):
            if best_key is not None and ceiling(model) < best_key[0]:
                break
            plan = self.best_plan(model, bound, upper=True)
            if plan is None:
                continue
            key = (value(plan), plan.tflops, -plan.total)
            if best_key is None or key > best_key:
                best, best_key = plan, key
        return best

    def model_plans(self, bound: float) -> list[Plan]:
        """Each GPU model's cheapest upper-tier plan below ``bound`` (the models without one left
        out), for tiers chosen by what the job gets rather than by TFLOPS."""
        plans = (self.best_plan(model, bound, upper=True) for model in self.models)
        return [plan for plan in plans if plan is not None]

    def with_comfort(self, plan: Plan, bound: float) -> Plan:
        """The same GPUs in the same number of servers, cheapest with one DIMM per channel and
        twice the read throughput, when that exists under ``bound``; else the plan itself."""
        comfortable = self.best_plan(
            plan.model, bound, comfort=True, per_server=plan.per_server, upper=True
        )
        return comfortable if comfortable is not None else plan
