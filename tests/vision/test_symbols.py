"""The symbol segmentation's public names, the one-way imports of its modules, and its helpers."""

from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.symbols
from vision.symbols import _COVER_APART, _cover_apart
from vision.whitebalance import balance_card

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


@pytest.mark.parametrize(("piece_bgr", "line", "apart"), [
    ((20, 200, 230), False, True),
    ((40, 150, 40), False, True),
    ((110, 40, 30), True, False),
], ids=["yellow beside a navy back", "green beside a navy back", "the back's own navy rim"])
def test_a_piece_of_another_hue_than_the_cover_beside_it_is_told_apart(piece_bgr, line, apart):
    # A symbol standing out from under a navy card back is of another hue than the back;
    # the back's own rim, cut off its body by the light frame line printed inside its edge,
    # is of the back's hue, only lighter or darker.
    image = np.full((116, 80, 3), (238, 243, 246), np.uint8)
    cv2.rectangle(image, (0, 0), (30, 115), (110, 40, 30), -1)
    cv2.circle(image, (34, 58), 8, piece_bgr, -1)
    if line:
        cv2.line(image, (27, 0), (27, 115), (200, 205, 210), 2)
    card = balance_card(image)
    low = cv2.threshold(card.ink, 40, 255, cv2.THRESH_BINARY)[1]
    piece = np.zeros(low.shape, np.uint8)
    cv2.circle(piece, (34, 58), 8, 255, -1)
    piece[:, :29] = 0
    outline = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0][0]
    assert (_cover_apart(card, low, outline) >= _COVER_APART) == apart
