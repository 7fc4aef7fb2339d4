"""The engine's version is a digest of its code and data: any change to either moves it."""

from __future__ import annotations

from pathlib import Path

from engine.version import ENGINE_VERSION, _digest


def _tree(root: Path) -> None:
    (root / "sizing").mkdir()
    (root / "sizing" / "constants.py").write_text("MFU = 0.40\n")
    (root / "data").mkdir()
    (root / "data" / "models.json").write_text("{}")


def test_a_changed_figure_or_data_file_moves_the_version(tmp_path):
    _tree(tmp_path)
    before = _digest(tmp_path)

    (tmp_path / "sizing" / "constants.py").write_text("MFU = 0.41\n")
    after_code = _digest(tmp_path)
    (tmp_path / "data" / "models.json").write_text('{"new": 1}')
    after_data = _digest(tmp_path)

    assert len({before, after_code, after_data}) == 3


def test_compiled_files_and_other_files_do_not_move_it(tmp_path):
    _tree(tmp_path)
    before = _digest(tmp_path)

    (tmp_path / "sizing" / "__pycache__").mkdir()
    (tmp_path / "sizing" / "__pycache__" / "constants.cpython-311.pyc").write_bytes(b"\x00")
    (tmp_path / "notes.txt").write_text("scratch")

    assert _digest(tmp_path) == before


def test_the_running_engine_has_a_version():
    assert len(ENGINE_VERSION) == 16
    assert _digest(Path(__file__).resolve().parents[2] / "engine") == ENGINE_VERSION
