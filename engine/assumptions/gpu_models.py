"""GPU model names: the canonical key a GPU name or SKU maps to in the price tables."""

from __future__ import annotations

import re

from .gpu_prices import CLOUD_ON_DEMAND, CLOUD_ON_DEMAND_BY_REGION

# --------------------------------------------------------------------------------------------
# GPU model names
# --------------------------------------------------------------------------------------------

_MODEL_PATTERNS: tuple[tuple[str, str | None], ...] = (
    ("gb200", None),  # Grace Blackwell superchip: not a B200 board, no default
    ("gb300", None),
    ("b200", "B200"),
    ("h200", "H200"),
    ("mi300x", "MI300X"),
    ("l40s", "L40S"),
    ("l40", None),
    ("l4", "L4"),
    ("rtxpro6000", "RTX_PRO_6000"),
    ("rtx6000ada", "RTX_6000_ADA"),
    ("rtx4000sff", "RTX_4000_SFF_ADA"),
)


# How a model key reads to a customer (the keys are internal).
MODEL_NAMES = {
    "H100_SXM": "H100 SXM",
    "H100_PCIE": "H100 PCIe",
    "H100_NVL": "H100 NVL",
    "H200": "H200",
    "B200": "B200",
    "A100_SXM": "A100 SXM",
    "A100_PCIE": "A100 PCIe",
    "MI300X": "Instinct MI300X",
    "L40S": "L40S",
    "L4": "L4",
    "RTX_PRO_6000": "RTX PRO 6000",
    "RTX_6000_ADA": "RTX 6000 Ada",
    "RTX_4000_SFF_ADA": "RTX 4000 SFF Ada",
}


def gpu_model_name(key: str) -> str:
    """The readable name of a model key ("H100_PCIE" -> "H100 PCIe")."""
    return MODEL_NAMES.get(key, key.replace("_", " "))


def gpu_model_key(name: str | None) -> str | None:
    """Canonical key for a GPU name or SKU ("NVIDIA H100 SXM5 80GB" -> "H100_SXM").

    ``None`` when the model is unknown to the price tables (or ``name`` is empty).
    """
    if not name:
        return None
    squashed = re.sub(r"[^a-z0-9]", "", name.lower())
    if "h100" in squashed:
        if "nvl" in squashed:
            return "H100_NVL"
        return "H100_PCIE" if "pcie" in squashed else "H100_SXM"
    if "a100" in squashed:
        return "A100_PCIE" if "pcie" in squashed else "A100_SXM"
    for needle, key in _MODEL_PATTERNS:
        if needle in squashed:
            return key
    return None


def known_gpu_models() -> tuple[str, ...]:
    """Model keys with at least one per-model default, sorted."""
    keys = set(CLOUD_ON_DEMAND)
    for table in CLOUD_ON_DEMAND_BY_REGION.values():
        keys |= set(table)
    return tuple(sorted(keys))
