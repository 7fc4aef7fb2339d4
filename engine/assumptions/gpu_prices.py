"""Per-GPU-model defaults as records, each with its source: cloud prices per GPU-hour (global and
per region). Managed-hosting fees are not defaults: the provider's price model computes them
(``engine.tco.hosting``) and the market band comes from dated offers (``engine.tco.market``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType

from .facts import EPOCH, OFFERS, Fact, f

# Per GPU model. Keys are canonical model keys from ``gpu_model_key``.

CLOUD_ON_DEMAND: Mapping[str, Fact] = MappingProxyType(
    {
        "H100_SXM": f(
            "3.99",
            OFFERS + ": RunPod Secure Cloud H100 SXM, on demand "
            "(https://www.runpod.io/pricing, seen 2026-11-09); Lambda 8x H100 SXM same price "
            "(https://lambda.ai/instances, 2026-09-20)",
            "USD",
        ),
        "H100_PCIE": f(
            "3.29",
            OFFERS + ": Lambda 1x H100 PCIe, on demand (https://lambda.ai/instances, "
            "seen 2026-09-20)",
            "USD",
        ),
        "H100_NVL": f(
            "6.98",
            EPOCH + ": Microsoft Azure NCads H100 v5, East US, on demand "
            "(https://web.archive.org/web/20250317154123/https://azure.microsoft.com/en-us/"
            "pricing/details/virtual-machines/, 2025-03-17)",
            "USD",
        ),
        "H200": f(
            "5.40",
            OFFERS + ": Nebius H200 on demand from 1 Oct 2026 (https://nebius.com/prices, "
            "seen 2026-09-26)",
            "USD",
        ),
        "B200": f(
            "8.50",
            OFFERS + ": Nebius B200 on demand from 1 Oct 2026 (https://nebius.com/prices, "
            "seen 2026-09-26)",
            "USD",
        ),
        "A100_SXM": f(
            "2.79",
            OFFERS + ": Lambda 8x A100 SXM 80GB, on demand (https://lambda.ai/instances, "
            "seen 2026-09-20)",
            "USD",
        ),
        "A100_PCIE": f(
            "1.79",
            OFFERS + ": RunPod Secure Cloud A100 80GB PCIe, on demand "
            "(https://www.runpod.io/pricing, seen 2026-11-09)",
            "USD",
        ),
        "L40S": f(
            "1.55",
            OFFERS + ": Nebius L40S, on demand (https://nebius.com/prices, seen 2026-09-26)",
            "USD",
        ),
        "L4": f(
            "0.49",
            OFFERS + ": RunPod Secure Cloud L4, on demand (https://www.runpod.io/pricing, "
            "seen 2026-10-08)",
            "USD",
        ),
        "RTX_6000_ADA": f(
            "0.616",
            OFFERS + ": Vast.ai marketplace, RTX 6000 Ada, median of 6 verified on-demand "
            "offers (lowest 0.539 USD; host-set prices, no uptime commitment) "
            "(https://console.vast.ai/, seen 2026-10-08)",
            "USD",
        ),
        "MI300X": f(
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
                "H100_SXM": f(
                    Decimal("25.3308") / 8,
                    OFFERS + ": Scaleway H100-SXM-8-80G, Paris, 25.3308 EUR/h for 8 GPUs "
                    "(https://www.scaleway.com/en/pricing/gpu/, seen 2026-09-26)",
                    "EUR",
                ),
                "H100_PCIE": f(
                    "2.80",
                    OFFERS + ": OVHcloud h100-380, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "H200": f(
                    Decimal("42.0") / 8,
                    OFFERS + ": OVHcloud h200-1920, Paris, 42.00 EUR/h for 8 GPUs "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "L40S": f(
                    "1.40",
                    OFFERS + ": OVHcloud l40s-90, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "L4": f(
                    "0.75",
                    OFFERS + ": OVHcloud l4-90, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
            }
        ),
    }
)
