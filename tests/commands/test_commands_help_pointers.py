"""Every pointer into the project's files in a ``kaeshi`` help text (``docs/…md``,
``docs/…md#heading``, ``README.md#heading``, ``deploy/…``) leads to a file that exists
and, with an anchor, to a heading of it; a bare "see the README" cannot be followed, so
it is refused too."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

from test_docs import ROOT, _anchors

from controller.cli import build_parser
from controller.commands import COMMANDS

POINTER = re.compile(r"(?<![\w/.-])((?:docs|deploy|hardware|calibration)/[\w./-]*[\w]"
                     r"|README\.md)(?:#([\w-]+))?")
#: "the README" and the like: a pointer without a path (or a heading) to check
VAGUE = re.compile(r"\bREADME\b(?!\.md#)")


def _texts(parser: argparse.ArgumentParser, name: str) -> Iterator[tuple[str, str]]:
    """(where, text) of every help text a parser and its subcommands show."""
    for text in (parser.description, parser.epilog, parser.usage):
        if text:
            yield name, text
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            yield f"{name} {'/'.join(action.option_strings) or action.dest}", action.help
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.help:
                    yield f"{name} {choice.dest}", choice.help
            for sub_name, sub in action.choices.items():
                yield from _texts(sub, f"{name} {sub_name}")


def _every_text() -> Iterator[tuple[str, str]]:
    """The help texts of every command: a command's arguments are registered only when
    it is the one asked for, so the parser is built once per command."""
    yield from _texts(build_parser(), "kaeshi")
    for name in COMMANDS:
        yield from _texts(build_parser([name]), "kaeshi")


def test_the_walk_sees_every_subcommand_and_its_pointers():
    seen = dict(_every_text())
    commands = {where.split()[1] for where in seen if len(where.split()) > 1}
    assert {"run", "demo", "hub", "watch", "arbitrate", "simulate", "calibrate"} <= commands
    pointers = [m for text in seen.values() for m in POINTER.finditer(text)]
    assert any(m.group(2) for m in pointers)  # anchors are among them, and are checked
    assert POINTER.search("(see docs/hub.md#the-hub).").groups() == ("docs/hub.md", "the-hub")


def test_every_pointer_in_every_help_text_resolves():
    broken = []
    for where, text in dict(_every_text()).items():
        if VAGUE.search(text):
            broken.append(f"{where}: names the README without a heading: {text!r}")
        for m in POINTER.finditer(text):
            path, anchor = m.group(1), m.group(2)
            dest = ROOT / path
            if not dest.exists():
                broken.append(f"{where}: {path} does not exist")
            elif anchor and (dest.suffix != ".md" or anchor not in _anchors(dest)):
                broken.append(f"{where}: {path} has no heading #{anchor}")
    assert not broken, "\n".join(broken)
