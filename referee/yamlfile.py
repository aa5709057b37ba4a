"""Reading YAML files given by the user: safe, strict about keys written twice, clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

__all__ = ["read_yaml"]


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key written twice in one mapping (YAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool, type(None))):
                continue  # SafeLoader refuses unhashable keys itself
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{key!r} is written twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_yaml(path: Path, error: type[ValueError], what: str = "file") -> Any:
    """The YAML document in ``path``; anything wrong raises ``error`` naming the file.

    ``what`` names the file in the messages ("no such calibration file").
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as problem:
        raise error(f"{path}: cannot read the {what} ({problem})") from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as problem:
        mark = getattr(problem, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        detail = getattr(problem, "problem", None) or "not valid YAML"
        raise error(f"{path}: malformed YAML{where}: {detail}") from None
