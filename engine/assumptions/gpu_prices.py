"""Per-GPU-model defaults as records, each with its source: cloud prices per GPU-hour (global and
per region) and managed-hosting fees per GPU and month.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType

from .facts import EPOCH, OFFERS, Fact, _f

# Per GPU model. Keys are canonical model keys from ``gpu_model_key``.

CLOUD_ON_DEMAND: Mapping[str, Fact] = MappingProxyType(
    {
        "H100_SXM": _f(
            "3.99",
            OFFERS + ": RunPod Secure Cloud H100 SXM, on demand "
            "(https://www.runpod.io/pricing, seen 2026-11-09); Lambda 8x H100 SXM same price "
            "(https://lambda.ai/instances, 2026-09-20)",
            "USD",
        ),
        "H100_PCIE": _f(
            "3.29",
            OFFERS + ": Lambda 1x H100 PCIe, on demand (https://lambda.ai/instances, "
            "seen 2026-09-20)",
            "USD",
        ),
        "H100_NVL": _f(
            "6.98",
            EPOCH + ": Microsoft Azure NCads H100 v5, East US, on demand "
            "(https://web.archive.org/web/20250317154123/https://azure.microsoft.com/en-us/"
            "pricing/details/virtual-machines/, 2025-03-17)",
            "USD",
        ),
        "H200": _f(
            "5.40",
            OFFERS + ": Nebius H200 on demand from 1 Oct 2026 (https://nebius.com/prices, "
            "seen 2026-09-26)",
            "USD",
        ),
        "B200": _f(
            "8.50",
            OFFERS + ": Nebius B200 on demand from 1 Oct 2026 (https://nebius.com/prices, "
            "seen 2026-09-26)",
            "USD",
        ),
        "A100_SXM": _f(
            "2.79",
            OFFERS + ": Lambda 8x A100 SXM 80GB, on demand (https://lambda.ai/instances, "
            "seen 2026-09-20)",
            "USD",
        ),
        "A100_PCIE": _f(
            "1.79",
            OFFERS + ": RunPod Secure Cloud A100 80GB PCIe, on demand "
            "(https://www.runpod.io/pricing, seen 2026-11-09)",
            "USD",
        ),
        "L40S": _f(
            "1.55",
            OFFERS + ": Nebius L40S, on demand (https://nebius.com/prices, seen 2026-09-26)",
            "USD",
        ),
        "L4": _f(
            "0.49",
            OFFERS + ": RunPod Secure Cloud L4, on demand (https://www.runpod.io/pricing, "
            "seen 2026-10-08)",
            "USD",
        ),
        "MI300X": _f(
            "1.99",
            "DigitalOcean GPU Droplet AMD MI300X, on demand: 1.99 USD per hour for 1 GPU, "
            "15.92 USD for 8 (https://docs.digitalocean.com/products/droplets/details/pricing/, "
            "page validated 2026-05-28, seen 2026-12-03); not in the shared datasets",
            "USD",
        ),
    }
)

CLOUD_ON_DEMAND_BY_REGION: Mapping[str, Mapping[str, Fact]] = MappingProxyType(
    {
        "FR": MappingProxyType(
            {
                "H100_SXM": _f(
                    Decimal("25.3308") / 8,
                    OFFERS + ": Scaleway H100-SXM-8-80G, Paris, 25.3308 EUR/h for 8 GPUs "
                    "(https://www.scaleway.com/en/pricing/gpu/, seen 2026-09-26)",
                    "EUR",
                ),
                "H100_PCIE": _f(
                    "2.80",
                    OFFERS + ": OVHcloud h100-380, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "H200": _f(
                    Decimal("42.0") / 8,
                    OFFERS + ": OVHcloud h200-1920, Paris, 42.00 EUR/h for 8 GPUs "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "L40S": _f(
                    "1.40",
                    OFFERS + ": OVHcloud l40s-90, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "L4": _f(
                    "0.75",
                    OFFERS + ": OVHcloud l4-90, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
            }
        ),
    }
)

_OVH_MONTHLY = (
    "; OVHcloud Public Cloud monthly plan, GPU with power, cooling, space and hardware "
    "replacement included (https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-10-08)"
)

MANAGED_MONTHLY_PER_GPU: Mapping[str, Fact] = MappingProxyType(
    {
        "H100_PCIE": _f(
            Decimal(7770) / 4,
            OFFERS + ": h100-1520, 7,770 EUR/month for 4 GPUs" + _OVH_MONTHLY,
            "EUR",
        ),
        "A100_SXM": _f("1100", OFFERS + ": a100-180, A100 80GB" + _OVH_MONTHLY, "EUR"),
        "A100_PCIE": _f("1100", OFFERS + ": a100-180, A100 80GB" + _OVH_MONTHLY, "EUR"),
        "L40S": _f("1008", OFFERS + ": l40s-90" + _OVH_MONTHLY, "EUR"),
        "L4": _f("540", OFFERS + ": l4-90" + _OVH_MONTHLY, "EUR"),
        "RTX_PRO_6000": _f(
            "1497.30",
            OFFERS + ": Hetzner GEX131, RTX PRO 6000 Blackwell Max-Q, dedicated server with "
            "power, cooling, rack and uplink (https://www.hetzner.com, seen 2026-10-08)",
            "EUR",
        ),
        "RTX_4000_SFF_ADA": _f(
            "232.30",
            OFFERS + ": Hetzner GEX44-1, dedicated server with power, cooling, rack and uplink "
            "(https://docs.hetzner.com, price list effective 2026-06-15, seen 2026-08-31)",
            "EUR",
        ),
    }
)
