"""The rules never depend on vision or OpenCV, so they can be tested without them."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"cv2", "skimage", "vision", "calibration", "fixtures"}
RULE_MODULES = sorted(p for p in (ROOT / "referee").rglob("*.py") if "cli" not in p.relative_to(ROOT / "referee").parts)


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", RULE_MODULES, ids=[str(p.relative_to(ROOT)) for p in RULE_MODULES])
def test_rules_modules_import_no_vision(path: Path) -> None:
    assert not imported_roots(path) & FORBIDDEN
