"""The service is composed of parts it owns, each typed against a protocol of what it
needs of the service: the service must provide all of it (nothing else checks the
types of these protocols at run time)."""

from __future__ import annotations

import typing

import pytest

from controller.engine.seat import SeatedTable
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.facade import TableFacade, ViewedTable
from controller.service.intake import FedTable, Intake
from controller.service.lifecycle import GameLifecycle, PlayedTable
from controller.service.outputs import Outputs, ShownTable
from controller.service.recovery import JournalKeeper, KeptTable
from controller.service.replay_logs import ReplayLogs
from controller.service.timing import FlagTimer, TimedTable
from controller.table_link.table import LinkedTable

PROTOCOLS = [ShownTable, TimedTable, FedTable, KeptTable, PlayedTable, ViewedTable, LinkedTable,
             SeatedTable]


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


@pytest.mark.parametrize("proto", PROTOCOLS, ids=lambda p: p.__name__)
def test_the_service_provides_what_each_part_needs(proto: type) -> None:
    service = Service(defaults())
    members = protocol_members(proto)
    assert members  # the protocol names something
    assert sorted(n for n in members if not hasattr(service, n)) == []


def test_the_service_owns_one_object_per_part() -> None:
    service = Service(defaults())
    parts = {"logs": ReplayLogs, "outputs": Outputs, "facade": TableFacade,
             "flags": FlagTimer, "keeper": JournalKeeper, "lifecycle": GameLifecycle,
             "intake": Intake}
    assert {name: type(getattr(service, name)) for name in parts} == parts
    assert not [k for k in type(service).__mro__[1:] if k is not object]  # no mixins
