"""One request's candidate parts, each list memoised and cheapest first: CPU, DIMM, drive and NIC
sets, and the cluster (fabric, shared storage, storage network) a number of servers needs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from .. import rules
from ..cluster.fabric import FabricDesign
from ..cluster.shared_storage import StorageDesign, design_shared_storage
from ..cluster.storage_network import design_storage_network
from ..configuration import (
    BuilderInconsistencyError,
    BuildNeeds,
    drive_gb,
    min_units,
    nic_pcie_lanes,
    shared_storage_needed,
)
from ..parts import DriveSpec, NicSpec
from .index import SearchIndex
from .memo import Memo
from .records import (
    CpuSet,
    PartSet,
    PricedCluster,
    PricedNics,
    front_by_power,
    front_by_power_lanes,
    pareto,
    part_spec,
)


class Candidates:
    """The part sets one request may use, computed once per shape and kept for the request."""

    def __init__(self, index: SearchIndex, needs: BuildNeeds, production: bool) -> None:
        self.index = index
        self.needs = needs
        self.production = production
        self._ram_floors: Memo[tuple[float, int, bool], int | None] = Memo()
        self._cpus: Memo[tuple[str, int, int, bool], tuple[CpuSet, ...]] = Memo()
        self._memory: Memo[tuple[int, int, int, float, int, int, bool], tuple[PartSet, ...]] = (
            Memo()
        )
        self._drive_fronts: Memo[tuple[float, float, bool], tuple[PartSet, ...]] = Memo()
        self._drives: Memo[tuple[float, float, int, bool], tuple[PartSet, ...]] = Memo()
        self._nics: Memo[int, tuple[PartSet, ...]] = Memo()
        self._clusters: Memo[tuple[int, int, int, bool], PricedCluster | None] = Memo()
        self._priced: Memo[tuple[int, int, int, bool], tuple[PricedNics, ...]] = Memo()
        self._storage: Memo[None, StorageDesign | None] = Memo()
        self._storage_networks: Memo[int, FabricDesign] = Memo()

    def ram_floor(self, ram_gb: float, ddr: int, registered: bool = True) -> int | None:
        """The least any set of DDR``ddr`` DIMMs (registered or not) of ``ram_gb`` can cost
        (None: no such DIMM)."""

        def floor() -> int | None:
            unit = self.index.ram_unit_price.get((ddr, self.production, registered))
            return None if unit is None else math.floor(Fraction(ram_gb) * unit)

        return self._ram_floors.get((ram_gb, ddr, registered), floor)

    def cpu_sets(
        self, socket: str, sockets: int, cores: int, workstation: bool = False
    ) -> tuple[CpuSet, ...]:
        """CPU sets for the sockets; ``workstation``: a tower for experiments, which also takes
        the workstation CPUs of its platform (rules.CPU_SERVER_GRADE)."""

        def sets() -> tuple[CpuSet, ...]:
            offered = self.index.tower_cpus_by_socket if workstation else self.index.cpus_by_socket
            fitting = [
                CpuSet(
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
            # The channel count shapes the DIMM sets, so a CPU only competes with CPUs of the
            # same channel count: (channels, -channels) ties exactly when the counts are equal.
            return tuple(
                pareto(
                    fitting,
                    lambda c: (c.channels, -c.channels, c.power_mw, -c.lanes, -c.max_gb),
                )
            )

        return self._cpus.get((socket, sockets, cores, workstation), sets)

    def memory_sets(
        self,
        ddr: int,
        cpus: CpuSet,
        slots: int,
        ram_gb: float,
        max_dpc: int,
        registered: bool = True,
    ) -> tuple[PartSet, ...]:
        """Per DIMM model of the board's kind (registered or unbuffered), the fewest DIMMs
        filling every channel evenly to ``ram_gb``."""

        def sets() -> tuple[PartSet, ...]:
            group = cpus.channels
            found = []
            for item in self.index.dimms.get((ddr, self.production, registered), ()):
                capacity = item.spec.capacity_gb
                per_channel = min_units(group * capacity, ram_gb)
                if per_channel is None:
                    continue
                per_channel = max(1, per_channel)
                count = group * per_channel
                if per_channel > max_dpc or count > slots or count * capacity > cpus.max_gb:
                    continue
                found.append(PartSet(item, count, count * item.cost, count * item.power_mw, 0))
            found.sort(key=lambda s: (s.cost, s.power_mw, part_spec(s).sku))
            return front_by_power(found)

        key = (ddr, cpus.channels, slots, ram_gb, cpus.max_gb, max_dpc, registered)
        return self._memory.get(key, sets)

    def _drive_count(self, spec: DriveSpec, storage_gb: float, read_mbs: float) -> int | None:
        """The fewest drives holding ``storage_gb`` and reading ``read_mbs``; production mirrors
        them (``usable_data_gb``): an even count of at least two."""
        copies = rules.DATA_MIRROR_COPIES if self.production else 1
        by_capacity = min_units(drive_gb(spec) / copies, storage_gb)
        by_read = min_units(spec.read_mbs, read_mbs)
        if by_capacity is None or by_read is None:
            return None
        count = max(1, by_capacity, by_read)
        if self.production:
            count = max(copies, -(-count // copies) * copies)
        return count

    def drive_sets(
        self, storage_gb: float, read_mbs: float, bays: int, m2_slots: int = 0
    ) -> tuple[PartSet, ...]:
        """Data drive sets in the ``bays`` hot-swap bays, and, when ``m2_slots`` (a tower for
        experiments, ``rules.m2_data_allowed``), on the board's M.2 slots."""
        if m2_slots:
            both = self._drive_sets(storage_gb, read_mbs, bays, m2=False) + self._drive_sets(
                storage_gb, read_mbs, m2_slots, m2=True
            )
            return tuple(
                sorted(both, key=lambda s: (s.cost, s.power_mw, s.lanes, part_spec(s).sku))
            )
        return self._drive_sets(storage_gb, read_mbs, bays, m2=False)

    def _drive_front(self, storage_gb: float, read_mbs: float, m2: bool) -> tuple[PartSet, ...]:
        """Every drive set holding the data, whatever the slots, pruned on (power, lanes)."""

        def front() -> tuple[PartSet, ...]:
            sets = []
            most = self.index.max_m2_slots if m2 else self.index.max_bays
            for item in self.index.m2_data if m2 else self.index.nvme:
                count = self._drive_count(item.spec, storage_gb, read_mbs)
                if count is None or count > most:
                    continue
                lanes = rules.PCIE_LANES_PER_NVME * count
                sets.append(PartSet(item, count, count * item.cost, count * item.power_mw, lanes))
            sets.sort(key=lambda s: (s.cost, s.power_mw, s.lanes, part_spec(s).sku))
            # Lanes grow with the count: a set dropped here has a cheaper, cooler one with no
            # more drives, which fits whatever bays the dropped one fits.
            return front_by_power_lanes(sets)

        return self._drive_fronts.get((storage_gb, read_mbs, m2), front)

    def _drive_sets(
        self, storage_gb: float, read_mbs: float, slots: int, *, m2: bool
    ) -> tuple[PartSet, ...]:
        return self._drives.get(
            (storage_gb, read_mbs, slots, m2),
            lambda: tuple(
                s for s in self._drive_front(storage_gb, read_mbs, m2) if s.count <= slots
            ),
        )

    def nic_sets(self, per_server: int) -> tuple[PartSet, ...]:
        def sets() -> tuple[PartSet, ...]:
            need = self.needs.interconnect_gbps_per_gpu
            found = []
            for item in self.index.fabric_nics:
                if item.spec.speed_gbps < need:
                    continue
                count = -(-per_server // item.spec.ports)
                lanes = nic_pcie_lanes(item.spec) * count
                found.append(PartSet(item, count, count * item.cost, count * item.power_mw, lanes))
            found.sort(key=lambda s: (s.cost, s.power_mw, s.lanes, part_spec(s).sku))
            return front_by_power_lanes(found)

        return self._nics.get(per_server, sets)

    # The cluster: fabric, shared storage and the storage network

    def cluster_for(self, servers: int, per_server: int, nics: PartSet) -> PricedCluster | None:
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
        return self._clusters.get(key, lambda: self._cluster(servers, per_server, nic))

    def _cluster(self, servers: int, per_server: int, nic: NicSpec | None) -> PricedCluster | None:
        storage = network = None
        other_managed = 0
        if shared_storage_needed(self.needs, servers):
            storage = self._shared_storage()
            if storage is not None and not storage.unmet:
                network = self._storage_network(servers, storage)
                other_managed = storage.servers + network.leaf_switches + network.spine_switches
        fabric = None
        if nic is not None:
            fabric = self.index.fabric(
                servers,
                per_server,
                nic.speed_gbps,
                nic.infiniband,
                self.production,
                other_managed,
            )
        parts = [design for design in (fabric, storage, network) if design is not None]
        if any(design.unmet for design in parts):
            return None
        cost = 0
        for design in parts:
            units = self.index.units(design.price)
            if units is None:
                return None
            cost += units
        return PricedCluster(cost, fabric, storage, network)

    def priced_nics(
        self, servers: int, per_server: int, nics: Sequence[PartSet]
    ) -> tuple[PricedNics, ...]:
        """The NIC sets with the cluster each needs, cheapest together first (memoised); a set
        whose cluster the catalog cannot build is left out."""

        def priced() -> tuple[PricedNics, ...]:
            found = []
            for cards in nics:
                cluster = self.cluster_for(servers, per_server, cards)
                if cluster is not None:
                    found.append(PricedNics(servers * cards.cost + cluster.cost, cards, cluster))
            found.sort(key=lambda p: (p.extra, p.parts.power_mw, p.parts.lanes))
            return tuple(found)

        key = (servers, per_server, len(nics), nics[0].item is None if nics else True)
        return self._priced.get(key, priced)

    def _shared_storage(self) -> StorageDesign | None:
        """The job's shared storage tier (it depends on the job only)."""
        return self._storage.get(
            None,
            lambda: design_shared_storage(
                self.needs.storage_gb, self.needs.storage_read_mbs, self.index.cluster
            ),
        )

    def _storage_network(self, servers: int, storage: StorageDesign) -> FabricDesign:
        """The network from ``servers`` GPU servers to the storage tier (per server count)."""

        def network() -> FabricDesign:
            found = design_storage_network(
                servers, storage, self.needs.storage_read_mbs, self.index.cluster
            )
            if found is None:  # the tier holds data, so there is always something to join
                raise BuilderInconsistencyError("a shared storage tier without a network")
            return found

        return self._storage_networks.get(servers, network)
