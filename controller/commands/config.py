"""``kaeshi config``: a table's configuration, written out or checked before the service starts.

``example`` prints every option at its default with its meaning (the text of
``deploy/kaeshi.example.toml``, from the same option table), so a Pi with only the
package installed can start its ``kaeshi.toml`` from it. ``check`` reads a file with
the service's own reader and says what differs from the defaults: a typo or an
out-of-bounds value is found at the desk, not when the players sit down.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: Options whose values ``check`` never prints: a listing pasted into a chat must not
#: carry the table's page token or the broker's password.
SECRETS = frozenset({"web.token", "hub.password"})


def register(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    example = actions.add_parser("example", help="print every option at its default, "
                                 "with its meaning")
    example.add_argument("--output", metavar="FILE",
                         help="write it to FILE (refused if FILE exists) instead of "
                         "printing it")
    example.set_defaults(func=run_example)
    check = actions.add_parser("check", help="read a configuration as the service would "
                               "and list what differs from the defaults")
    check.add_argument("file", metavar="FILE")
    check.set_defaults(func=run_check)


def run_example(args: argparse.Namespace) -> int:
    from controller.errors import KaeshiError
    from controller.service.config import example_toml

    text = example_toml()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with Path(args.output).open("x", encoding="utf-8") as out:
            out.write(text)
    except FileExistsError:
        raise KaeshiError(f"{args.output} exists: not overwritten (remove it, or choose "
                          "another name)") from None
    print(f"wrote {args.output}")
    return 0


def changed_options(path: str) -> list[tuple[str, str]]:
    """The options ``path`` sets to something other than the default, as the service
    reads them (secrets shown only as set), in the option table's order."""
    from controller.service.config import OPTIONS, load_config
    from controller.tomlconfig import toml_value

    config = load_config(path)
    out = []
    for option in OPTIONS:
        value = config[option.name]
        if value == option.default:
            continue
        shown = "(set)" if option.name in SECRETS else toml_value(value)
        out.append((option.name, shown))
    return out


def run_check(args: argparse.Namespace) -> int:
    changed = changed_options(args.file)
    print(f"{args.file}: ok, read as the service reads it")
    if not changed:
        print("every option at its default")
    for name, value in changed:
        print(f"  {name} = {value}")
    return 0
