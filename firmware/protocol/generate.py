#!/usr/bin/env python3
"""Generate the C header, the Python module and the Markdown table of the sensor-board protocol.

One data file (messages.toml) defines the link; both sides are generated from it so the
firmware and the host can never disagree about an id, a length or a layout.

    python firmware/protocol/generate.py           write the generated files
    python firmware/protocol/generate.py --check   exit 1 if any generated file is stale

Reading and checking the table lives in protocol_table.py and turning it into text in
protocol_render.py; this file only decides where each text goes and whether it is stale, and
re-exports their names so callers that load this file keep finding them here.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any

# This file is run as a script and loaded by path from the tests, never as part of a package,
# so its sibling modules are importable only with this folder on the path.
sys.path.append(str(Path(__file__).resolve().parent))

from protocol_render import GENERATED_NOTE, render_c, render_markdown, render_python
from protocol_table import (
    TABLE,
    TYPE_SIZE,
    TYPE_STRUCT,
    TableError,
    check_crc,
    check_table,
    crc16,
    field_size,
    load_table,
    struct_format,
)

__all__ = [
    "C_HEADER",
    "GENERATED_NOTE",
    "HERE",
    "MARKDOWN",
    "PY_MODULE",
    "ROOT",
    "TABLE",
    "TYPE_SIZE",
    "TYPE_STRUCT",
    "TableError",
    "check_table",
    "crc16",
    "field_size",
    "load_table",
    "main",
    "outputs",
    "render_c",
    "render_markdown",
    "render_python",
    "struct_format",
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
C_HEADER = ROOT / "firmware" / "src" / "protocol_gen.h"
PY_MODULE = ROOT / "controller" / "hall" / "messages.py"
MARKDOWN = HERE / "protocol.md"


def outputs(table: dict[str, Any]) -> dict[Path, str]:
    check_crc(table)
    return {
        C_HEADER: render_c(table),
        PY_MODULE: render_python(table),
        MARKDOWN: render_markdown(table),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = parser.parse_args(argv)
    try:
        files = outputs(load_table())
    except (TableError, KeyError, tomllib.TOMLDecodeError) as exc:
        print(f"generate: {TABLE.name}: {exc}", file=sys.stderr)
        return 1
    stale = []
    for path, text in files.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(path.relative_to(ROOT))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("stale generated files: " + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
