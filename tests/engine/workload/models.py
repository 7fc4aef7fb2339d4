"""Registry entries the engine tests read: ``registered`` fails the test at once when an id is
not in the registry (``get_model`` answers None), so the test reads the entry's fields directly."""

from engine.workload.registry import ModelEntry, get_model


def registered(model_id: str) -> ModelEntry:
    entry = get_model(model_id)
    assert entry is not None, f"{model_id} is not in the registry"
    return entry
