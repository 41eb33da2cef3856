"""Shared paths of the pytest suite: the repository root, its example scenes and the release CLI
(scripts/test-python.sh builds it before running the suite)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples() -> pathlib.Path:
    return EXAMPLES


@pytest.fixture
def cli() -> pathlib.Path:
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / "signorini"
    assert path.exists(), f"{path} missing: run `cargo build --release -p signorini-cli` first"
    return path
