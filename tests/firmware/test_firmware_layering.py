"""The firmware's modules include each other in one direction only.

The main loop (`app`) owns the dispatcher and registers the commands it serves, the
way Klipper's modules register their commands: a dispatcher that called back into the
main loop would tie every module to every other.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "firmware" / "src"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)


def include_graph() -> dict[str, set[str]]:
    """Module name -> the project modules its .c and .h include."""
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.glob("*.[ch]")):
        deps = graph.setdefault(path.stem, set())
        deps.update(name for name in INCLUDE.findall(path.read_text()) if name != path.stem)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_find_cycle_sees_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_firmware_has_no_include_cycle() -> None:
    graph = include_graph()
    assert {"app", "commands", "protocol", "calib"} <= set(graph)
    assert find_cycle(graph) is None


def test_the_dispatcher_does_not_call_up_into_the_main_loop() -> None:
    assert "app" not in include_graph()["commands"]
