"""The symbol segmentation's public names and the one-way imports of its modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import vision.symbols

VISION = Path(vision.symbols.__file__).resolve().parent


def _vision_imports(module: str) -> set[str]:
    tree = ast.parse((VISION / f"{module}.py").read_text())
    return {node.module.removeprefix("vision.") for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vision.")}


@pytest.mark.parametrize("name", ["Blob", "Segmentation", "find_blobs", "UNCLEAR_PIECE", "SHAPELESS", "STRAY", "HIDDEN"])
def test_public_names_are_importable_from_symbols(name):
    assert name in vision.symbols.__all__
    assert getattr(vision.symbols, name) is not None


@pytest.mark.parametrize("module, below", [
    ("blobs", {"symbols", "washed"}),
    ("washed", {"symbols"}),
], ids=["blobs imports neither", "washed does not import symbols"])
def test_lower_modules_never_import_the_segmentation(module, below):
    assert not _vision_imports(module) & below
