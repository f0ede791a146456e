"""The service is composed of parts that each own their data: a part is handed the
parts below it, asks for what is above it through a protocol of a handful of members,
and never sets another part's fields (nothing else checks these at run time)."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from controller.engine.seat import SeatedTable
from controller.service.app import Service
from controller.service.choice import SourceChoice
from controller.service.config import defaults
from controller.service.facade import TableFacade
from controller.service.gametime import GameTime
from controller.service.intake import Intake, Run
from controller.service.lifecycle import GameLifecycle
from controller.service.nextgame import NextGames
from controller.service.outputs import Buttons, ClockFace, Outputs
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayClock, ReplayLogs
from controller.service.table import Stepper, Table
from controller.service.timing import FlagTimer, Inputs
from controller.table_link.table import Clocks, LinkedGame, LinkedTable
from controller.table_link.table import NextGames as Orders

SERVICE = Path(__file__).resolve().parents[2] / "controller" / "service"
#: How many members a protocol between the parts may name.
HANDFUL = 6


def protocol_members(proto: type) -> set[str]:
    """The attributes and methods a protocol names (its own and inherited)."""
    names: set[str] = set()
    for klass in proto.__mro__:
        if klass in (typing.Protocol, typing.Generic, object):
            continue
        names |= set(getattr(klass, "__annotations__", {}))
        names |= {n for n, v in vars(klass).items()
                  if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    return names


def test_protocol_members_names_attributes_methods_and_properties() -> None:
    class Needs(typing.Protocol):
        core: int

        @property
        def scale(self) -> float: ...
        def now(self) -> float: ...

    assert protocol_members(Needs) == {"core", "scale", "now"}


def _implementors(service: Service) -> list[tuple[type, object]]:
    """Each protocol a part is typed against, with the object the service hands it."""
    return [
        (Stepper, service), (Run, service), (LinkedTable, service),
        (Inputs, service.intake), (Buttons, service.intake), (ClockFace, service.flags),
        (LinkedGame, service.table), (Clocks, service.time), (Orders, service.next_games),
        (SeatedTable, service.table),
    ]


@pytest.mark.parametrize("index", range(10))
def test_each_protocol_is_a_handful_and_its_implementor_provides_it(index: int) -> None:
    service = Service(defaults())
    proto, given = _implementors(service)[index]
    members = protocol_members(proto)
    assert 0 < len(members) <= HANDFUL, (proto.__name__, sorted(members))
    assert sorted(n for n in members if not hasattr(given, n)) == []


def test_the_service_owns_one_object_per_part() -> None:
    service = Service(defaults())
    parts = {"time": GameTime, "table": Table, "logs": ReplayLogs, "replay": ReplayClock,
             "outputs": Outputs, "keeper": JournalKeeper, "flags": FlagTimer,
             "choice": SourceChoice, "lifecycle": GameLifecycle, "next_games": NextGames,
             "intake": Intake, "facade": TableFacade}
    assert {name: type(getattr(service, name)) for name in parts} == parts
    assert not [k for k in type(service).__mro__[1:] if k is not object]  # no mixins


def _foreign_writes(source: str) -> list[str]:
    """Assignments to a field of an object a part holds (``self.x.y = ...``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Attribute)
                        and isinstance(t.value.value, ast.Name) and t.value.value.id == "self"):
                    found.append(f"line {t.lineno}: self.{t.value.attr}.{t.attr}")
    return found


def test_the_foreign_write_finder_finds_one() -> None:
    assert _foreign_writes("class A:\n    def f(self):\n        self.table.core = 1\n"
                           "        self.own = 2\n        self.a.b, x = 1, 2\n") == [
        "line 3: self.table.core", "line 5: self.a.b"]


#: The pure core's game (``core.py``) sets its own arbiter's and clock's settings on a
#: toss; it is no part of the service's flow.
PARTS = sorted(p.name for p in SERVICE.glob("*.py") if p.name != "core.py")


@pytest.mark.parametrize("module", PARTS)
def test_no_part_sets_another_parts_fields(module: str) -> None:
    assert _foreign_writes((SERVICE / module).read_text(encoding="utf-8")) == []
