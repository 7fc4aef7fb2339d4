"""One request's search: memoised candidate lists, per-model best plans, the tiers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ...i18n import Message, gettext_noop
from .. import rules
from ..checks import _model_sharded, _nvlink_ok
from ..cluster.fabric import FabricDesign
from ..cluster.shared_storage import StorageDesign, design_shared_storage
from ..cluster.storage_network import design_storage_network
from ..configuration import (
    BuilderInconsistencyError,
    BuildNeeds,
    Environment,
    GpuFit,
    _drive_gb,
    _memory_floor_gb,
    _min_units,
    _nic_lanes,
    replica_layout_ok,
    server_capacity,
    servers_for,
    shared_storage_needed,
    sparse_training,
)
from ..parts import ChassisSpec, Cooling, DriveSpec, GpuClass, GpuSpec
from .explain import explain_no_plan, usable_fit
from .index import _BOUND_SLACK, _INF, _front_by_power, _front_by_power_lanes, _Index, _pareto
from .plan import (
    _RANK_GPU,
    _RANK_PARTS,
    _UNMET_MAX,
    _Cluster,
    _CpuSet,
    _Model,
    _PartSet,
    _Plan,
    _PricedNics,
    _spec,
)
from .server import solve_server


def preferred_search(index: _Index, needs: BuildNeeds) -> _Search:
    """The search the builder answers from: over the current parts alone when they make a
    configuration that passes every rule (within the budget), else over every offered part, so
    an end-of-life or refurbished part is used only when no current part does the job."""
    current = index.current_only
    if current is not None:
        search = _Search(current, needs)
        cheapest = search.cheapest()
        if cheapest is not None and (
            needs.budget is None or cheapest.total <= current.units_floor(needs.budget)
        ):
            return search
    return _Search(index, needs)


class _Search:
    """One request's search: memoised candidate lists, per-model best plans, diagnostics."""

    def __init__(self, index: _Index, needs: BuildNeeds) -> None:
        self.index = index
        self.needs = needs
        self.production = needs.environment is Environment.PRODUCTION
        self.boot = index.boot if self.production else None
        self.boot_cost = self.boot.cost * rules.BOOT_MIRROR_DRIVES if self.boot else 0
        self._cpu_memo: dict[tuple[str, int, int, bool], tuple[_CpuSet, ...]] = {}
        self._memory_memo: dict[
            tuple[int, int, int, float, int, int, bool], tuple[_PartSet, ...]
        ] = {}
        self._drive_memo: dict[tuple[float, float, int, bool], tuple[_PartSet, ...]] = {}
        self._nic_memo: dict[int, tuple[_PartSet, ...]] = {}
        self._ram_floor_memo: dict[tuple[float, int, bool], int | None] = {}
        self._counts_memo: dict[tuple[int, int, bool, bool], tuple[list[int], int]] = {}
        self._best: dict[tuple[int, bool, int, bool], tuple[_Plan | None, float]] = {}
        self._cluster_memo: dict[tuple[int, int, int, bool], _Cluster | None] = {}
        self._storage: tuple[StorageDesign | None] | None = None
        self._storage_networks: dict[int, FabricDesign] = {}
        self._priced_memo: dict[tuple[int, int, int, bool], tuple[_PricedNics, ...]] = {}
        self.failures: dict[object, tuple[int, int, Message]] = {}
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
        return tuple(messages[:_UNMET_MAX])

    # GPU models

    def _storage_floor(self) -> int:
        """A lower bound on the data drives of any configuration, whatever the number of servers:
        all servers together hold at least the job's capacity and read rate, so at least
        ``job / per-drive figure`` drives of a model (rounded up, less a hair so that float
        rounding in the per-server shares can never make the bound too high)."""

        def at_least(need: float, per_unit: float) -> int:
            if need <= 0:
                return 0
            return math.ceil(need / per_unit * _BOUND_SLACK) if per_unit > 0 else -1

        best = _INF
        for item in self.index.nvme:
            by_capacity = at_least(self.needs.storage_gb, _drive_gb(item.spec))
            by_read = at_least(self.needs.storage_read_mbs, item.spec.read_mbs)
            if by_capacity >= 0 and by_read >= 0:
                best = min(best, max(1, by_capacity, by_read) * item.cost)
        return int(best) if best != _INF else 0

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
            + math.floor(ram_gb * ram_unit * _BOUND_SLACK)
            + math.floor(cores * self.index.core_unit_price)
        )

    def _models(self) -> list[_Model]:
        floor = _memory_floor_gb(self.needs)
        models: list[_Model] = []
        for gpu, cost in self.index.gpus:
            fit = usable_fit(self, gpu, floor)
            if fit is None:
                continue
            chassis = self.index.chassis_for(gpu)
            floor_rest = self._floor_rest(gpu, cost, fit)
            models.append(
                _Model(
                    gpu=gpu,
                    cost=cost,
                    fit=fit,
                    floor_rest=floor_rest,
                    lower_bound=floor_rest + (chassis[0].cost if chassis else 0),
                )
            )
        if not self.index.gpus:
            self.fail(
                _RANK_GPU,
                None,
                gettext_noop("The catalog offers no GPU priced in %(currency)s."),
                currency=self.index.currency,
            )
        return sorted(models, key=lambda m: (m.lower_bound, m.gpu.sku))

    # Candidate lists, memoised per request, cheapest first

    def ram_floor(self, ram_gb: float, ddr: int, registered: bool = True) -> int | None:
        """The least any set of DDR``ddr`` DIMMs (registered or not) of ``ram_gb`` can cost
        (None: no such DIMM)."""
        key = (ram_gb, ddr, registered)
        if key not in self._ram_floor_memo:
            unit = self.index.ram_unit_price.get((ddr, self.production, registered))
            floor = None if unit is None else math.floor(Fraction(ram_gb) * unit)
            self._ram_floor_memo[key] = floor
        return self._ram_floor_memo[key]

    def cpu_sets(
        self, socket: str, sockets: int, cores: int, workstation: bool = False
    ) -> tuple[_CpuSet, ...]:
        """CPU sets for the sockets; ``workstation``: a tower for experiments, which also takes
        the workstation CPUs of its platform (rules.CPU_SERVER_GRADE)."""
        key = (socket, sockets, cores, workstation)
        memo = self._cpu_memo.get(key)
        if memo is None:
            offered = self.index.tower_cpus_by_socket if workstation else self.index.cpus_by_socket
            fitting = [
                _CpuSet(
                    item=item,
                    count=sockets,
                    cost=item.cost * sockets,
                    power_mw=item.power_mw * sockets,
                    lanes=item.spec.pcie_lanes * sockets,
                    channels=item.spec.memory_channels * sockets,
                    max_gb=item.spec.max_memory_gb * sockets,
                )
                for item in offered.get(socket, ())
                if item.spec.cores * sockets >= cores
            ]
            # The channel count shapes the DIMM sets, so a CPU only competes with CPUs of the same
            # channel count: (channels, -channels) ties exactly when the counts are equal.
            memo = tuple(
                _pareto(
                    fitting,
                    lambda c: (c.channels, -c.channels, c.power_mw, -c.lanes, -c.max_gb),
                )
            )
            self._cpu_memo[key] = memo
        return memo

    def memory_sets(
        self,
        ddr: int,
        cpus: _CpuSet,
        slots: int,
        ram_gb: float,
        max_dpc: int,
        registered: bool = True,
    ) -> tuple[_PartSet, ...]:
        """Per DIMM model of the board's kind (registered or unbuffered), the fewest DIMMs
        filling every channel evenly to ``ram_gb``."""
        key = (ddr, cpus.channels, slots, ram_gb, cpus.max_gb, max_dpc, registered)
        memo = self._memory_memo.get(key)
        if memo is None:
            group = cpus.channels
            sets = []
            for item in self.index.dimms.get((ddr, self.production, registered), ()):
                capacity = item.spec.capacity_gb
                per_channel = _min_units(group * capacity, ram_gb)
                if per_channel is None:
                    continue
                per_channel = max(1, per_channel)
                count = group * per_channel
                if per_channel > max_dpc or count > slots or count * capacity > cpus.max_gb:
                    continue
                sets.append(_PartSet(item, count, count * item.cost, count * item.power_mw, 0))
            sets.sort(key=lambda s: (s.cost, s.power_mw, _spec(s).sku))
            memo = _front_by_power(sets)
            self._memory_memo[key] = memo
        return memo

    def _drive_count(self, spec: DriveSpec, storage_gb: float, read_mbs: float) -> int | None:
        """The fewest drives holding ``storage_gb`` and reading ``read_mbs``; production mirrors
        them (``usable_data_gb``): an even count of at least two."""
        copies = rules.DATA_MIRROR_COPIES if self.production else 1
        by_capacity = _min_units(_drive_gb(spec) / copies, storage_gb)
        by_read = _min_units(spec.read_mbs, read_mbs)
        if by_capacity is None or by_read is None:
            return None
        count = max(1, by_capacity, by_read)
        if self.production:
            count = max(copies, -(-count // copies) * copies)
        return count

    def drive_sets(
        self, storage_gb: float, read_mbs: float, bays: int, m2_slots: int = 0
    ) -> tuple[_PartSet, ...]:
        """Data drive sets in the ``bays`` hot-swap bays, and, when ``m2_slots`` (a tower for
        experiments, ``rules.m2_data_allowed``), on the board's M.2 slots."""
        if m2_slots:
            both = self._drive_sets(storage_gb, read_mbs, bays, m2=False) + self._drive_sets(
                storage_gb, read_mbs, m2_slots, m2=True
            )
            return tuple(sorted(both, key=lambda s: (s.cost, s.power_mw, s.lanes, _spec(s).sku)))
        return self._drive_sets(storage_gb, read_mbs, bays, m2=False)

    def _drive_sets(
        self, storage_gb: float, read_mbs: float, slots: int, *, m2: bool
    ) -> tuple[_PartSet, ...]:
        key = (storage_gb, read_mbs, slots, m2)
        memo = self._drive_memo.get(key)
        if memo is None:
            front_key = (storage_gb, read_mbs, -1, m2)
            front = self._drive_memo.get(front_key)
            if front is None:
                sets = []
                for item in self.index.m2_data if m2 else self.index.nvme:
                    count = self._drive_count(item.spec, storage_gb, read_mbs)
                    most = self.index.max_m2_slots if m2 else self.index.max_bays
                    if count is None or count > most:
                        continue
                    lanes = rules.PCIE_LANES_PER_NVME * count
                    sets.append(
                        _PartSet(item, count, count * item.cost, count * item.power_mw, lanes)
                    )
                sets.sort(key=lambda s: (s.cost, s.power_mw, s.lanes, _spec(s).sku))
                # Lanes grow with the count: a set dropped here has a cheaper, cooler one with
                # no more drives, which fits whatever bays the dropped one fits.
                front = _front_by_power_lanes(sets)
                self._drive_memo[front_key] = front
            memo = tuple(s for s in front if s.count <= slots)
            self._drive_memo[key] = memo
        return memo

    def nic_sets(self, per_server: int) -> tuple[_PartSet, ...]:
        memo = self._nic_memo.get(per_server)
        if memo is None:
            need = self.needs.interconnect_gbps_per_gpu
            sets = []
            for item in self.index.fabric_nics:
                if item.spec.speed_gbps < need:
                    continue
                count = -(-per_server // item.spec.ports)
                lanes = _nic_lanes(item.spec) * count
                sets.append(_PartSet(item, count, count * item.cost, count * item.power_mw, lanes))
            sets.sort(key=lambda s: (s.cost, s.power_mw, s.lanes, _spec(s).sku))
            memo = _front_by_power_lanes(sets)
            self._nic_memo[per_server] = memo
        return memo

    # The cluster: fabric, shared storage and the storage network

    def cluster_for(self, servers: int, per_server: int, nics: _PartSet) -> _Cluster | None:
        """The fabric, shared storage and storage network of ``servers`` servers with these
        NICs, priced (memoised); None when the catalog cannot build them."""
        nic = nics.item.spec if nics.item is not None else None
        # The fabric depends on the NICs' speed and kind only, the storage on the job only.
        key = (
            servers,
            per_server,
            0 if nic is None else nic.speed_gbps,
            nic is not None and nic.infiniband,
        )
        if key in self._cluster_memo:
            return self._cluster_memo[key]
        cost = 0
        storage = network = None
        other_managed = 0
        if shared_storage_needed(self.needs, servers):
            storage = self._shared_storage()
            if storage is not None and not storage.unmet:
                network = self._storage_network(servers, storage)
                other_managed = storage.servers + network.leaf_switches + network.spine_switches
        fabric = None
        if nic is not None:
            fabric = self._fabric(
                servers, per_server, nic.speed_gbps, nic.infiniband, other_managed
            )
        found: _Cluster | None = None
        parts = [design for design in (fabric, storage, network) if design is not None]
        if not any(design.unmet for design in parts):
            for design in parts:
                units = self.index.units(design.price)
                if units is None:
                    break
                cost += units
            else:
                found = _Cluster(cost, fabric, storage, network)
        self._cluster_memo[key] = found
        return found

    def priced_nics(
        self, servers: int, per_server: int, nics: Sequence[_PartSet]
    ) -> tuple[_PricedNics, ...]:
        """The NIC sets with the cluster each needs, cheapest together first (memoised); a set
        whose cluster the catalog cannot build is left out."""
        key = (servers, per_server, len(nics), nics[0].item is None if nics else True)
        memo = self._priced_memo.get(key)
        if memo is None:
            priced = []
            for cards in nics:
                cluster = self.cluster_for(servers, per_server, cards)
                if cluster is not None:
                    priced.append(_PricedNics(servers * cards.cost + cluster.cost, cards, cluster))
            priced.sort(key=lambda p: (p.extra, p.parts.power_mw, p.parts.lanes))
            memo = self._priced_memo[key] = tuple(priced)
        return memo

    def _fabric(
        self, servers: int, per_server: int, speed_gbps: int, infiniband: bool, other_managed: int
    ) -> FabricDesign | None:
        return self.index.fabric(
            servers, per_server, speed_gbps, infiniband, self.production, other_managed
        )

    def _shared_storage(self) -> StorageDesign | None:
        """The job's shared storage tier (memoised: it depends on the job only)."""
        if self._storage is None:
            self._storage = (
                design_shared_storage(
                    self.needs.storage_gb, self.needs.storage_read_mbs, self.index.cluster
                ),
            )
        return self._storage[0]

    def _storage_network(self, servers: int, storage: StorageDesign) -> FabricDesign:
        """The network from ``servers`` GPU servers to the storage tier (memoised per count)."""
        network = self._storage_networks.get(servers)
        if network is None:
            network = design_storage_network(
                servers, storage, self.needs.storage_read_mbs, self.index.cluster
            )
            if network is None:  # the tier holds data, so there is always something to join
                raise BuilderInconsistencyError("a shared storage tier without a network")
            self._storage_networks[servers] = network
        return network

    # Per GPU model

    def gpu_counts(self, chassis: ChassisSpec, model: _Model) -> tuple[list[int], int]:
        """GPU counts per server worth trying in this chassis, and the largest count left out
        only because the chassis cannot link GPUs that share the model (0: none)."""
        gpu, needed = model.gpu, model.fit.gpus
        growth = self.needs.growth_gpus
        consumer = gpu.gpu_class is GpuClass.CONSUMER
        sharded = _model_sharded(self.needs, model.fit)
        replica = model.fit.replica_gpus
        capacity = server_capacity(gpu, chassis, growth)
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
                if replica_layout_ok(count, replica, capacity)
                and not any(
                    -(-needed // smaller) == -(-needed // count)
                    for smaller in range(1, count)
                    if replica_layout_ok(smaller, replica, capacity)
                )
            ]
        wanted = [count for count in wanted if replica_layout_ok(count, replica, capacity)]
        counts = [
            count
            for count in wanted
            if _nvlink_ok(gpu, chassis, count, sharded, self.needs.serving, replica)
        ]
        unlinked = max((count for count in wanted if count not in counts), default=0)
        return counts, unlinked

    def best_plan(
        self,
        model: _Model,
        bound: float,
        comfort: bool = False,
        per_server: int = 0,
        upper: bool = False,
    ) -> _Plan | None:
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
                    model.fit.gpus, plan.per_server, plan.servers
                ):
                    self._best[key] = (plan, bound)
                    return plan if plan.total < bound else None
        plan = self._solve_model(model, bound, comfort, per_server, upper)
        self._best[key] = (plan, bound)
        return plan

    def _solve_model(
        self, model: _Model, bound: float, comfort: bool, only_count: int, upper: bool = False
    ) -> _Plan | None:
        if self.production and self.boot is None:
            self.fail(
                _RANK_PARTS,
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
        best: _Plan | None = None
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
            shape = (id(model), spec.gpu_slots, spec.nvswitch, spec.nvlink_bridge)
            memo = self._counts_memo.get(shape)
            if memo is None:
                memo = self._counts_memo[shape] = self.gpu_counts(spec, model)
            counts, left_out = memo
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
        if bound == _INF:
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

    def cheapest(self) -> _Plan | None:
        best: _Plan | None = None
        bound: float = _INF
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

    def _most_gpus(self, model: _Model) -> int:
        """The most working GPUs an upper-tier plan of the model can hold: ``servers x
        per_server`` stays below the job's count plus one server's worth, for PCIe below twice
        the job's count, and within the idle share upper tiers allow."""
        needed = model.fit.gpus
        most = self.index.max_slots_for(model.gpu)
        idle_cap = needed + int(needed * rules.UPPER_TIER_IDLE_GPUS_MAX_SHARE)
        if model.gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
            return min(idle_cap, needed + max(0, most - 1))
        return min(idle_cap, 2 * needed - 1, needed + max(0, most - 1))

    def fastest(self, bound: float) -> _Plan | None:
        def ceiling(model: _Model) -> float:
            return model.gpu.bf16_tflops * self._most_gpus(model)

        best: _Plan | None = None
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

    def best_value(self, bound: float) -> _Plan | None:
        def value(plan: _Plan) -> float:
            return plan.tflops / plan.total if plan.total else _INF

        def ceiling(model: _Model) -> float:
            # A plan of X GPUs costs at least X x the GPU price plus the floor of everything
            # else, and TFLOPS per price grows with X: the most GPUs give the ceiling.
            gpus = self._most_gpus(model)
            rest = model.lower_bound - model.fit.gpus * model.cost
            price = gpus * model.cost + rest
            return model.gpu.bf16_tflops * gpus / price if price > 0 else _INF

        best: _Plan | None = None
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

    def with_comfort(self, plan: _Plan, bound: float) -> _Plan:
        """The same GPUs in the same number of servers, cheapest with one DIMM per channel and
        twice the read throughput, when that exists under ``bound``; else the plan itself."""
        comfortable = self.best_plan(
            plan.model, bound, comfort=True, per_server=plan.per_server, upper=True
        )
        return comfortable if comfortable is not None else plan
