"""Read the protocol table and refuse it unless it agrees with itself.

Every generated file trusts the table blindly and both ends of the link are built from it, so a
stated length that its fields do not add up to, a reused id or CRC parameters that miss their
own check value must stop the generator here rather than reach the firmware and the host at once.
"""

from __future__ import annotations

import struct
import tomllib
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parent / "messages.toml"

TYPE_SIZE = {"u8": 1, "u16": 2, "u32": 4, "bytes": 1}
TYPE_STRUCT = {"u8": "B", "u16": "H", "u32": "I"}


class TableError(ValueError):
    """The protocol table contradicts itself."""


def load_table(path: Path = TABLE) -> dict[str, Any]:
    with path.open("rb") as fh:
        table = tomllib.load(fh)
    check_table(table)
    return table


def field_size(field: dict[str, Any]) -> int:
    return TYPE_SIZE[field["type"]] * int(field.get("count", 1))


def struct_format(fields: list[dict[str, Any]]) -> str:
    parts = []
    for field in fields:
        count = int(field.get("count", 1))
        if field["type"] == "bytes":
            parts.append(f"{count}s")
        else:
            code = TYPE_STRUCT[field["type"]]
            parts.append(f"{count}{code}" if count > 1 else code)
    return "<" + "".join(parts)


def check_table(table: dict[str, Any]) -> None:
    """Refuse a table whose stated lengths disagree with its fields."""
    proto = table["protocol"]
    record = table["calibration"]
    record_len = sum(field_size(f) for f in record["fields"])
    if record_len != record["record_len"]:
        raise TableError(f"calibration fields add up to {record_len}, not {record['record_len']}")
    seen: set[int] = set()
    for msg in table["message"]:
        name = msg["name"]
        if msg["type"] in seen:
            raise TableError(f"{name}: duplicate type 0x{msg['type']:02X}")
        seen.add(msg["type"])
        for field in msg["fields"]:
            if field["type"] not in TYPE_SIZE:
                raise TableError(f"{name}.{field['name']}: unknown type {field['type']!r}")
        fixed = sum(field_size(f) for f in msg["fields"])
        if struct.calcsize(struct_format(msg["fields"])) != fixed:
            raise TableError(f"{name}: struct layout does not match the field sizes")
        if msg["length"] == "variable":
            per = record["record_len"]
            most = record["max_records_per_write"]
            if msg["min_length"] != fixed + per or msg["max_length"] != fixed + per * most:
                raise TableError(f"{name}: min/max length disagree with its records")
            if msg["max_length"] > proto["max_payload"]:
                raise TableError(f"{name}: longer than max_payload")
        elif fixed != msg["length"]:
            raise TableError(f"{name}: fields add up to {fixed}, table says {msg['length']}")
        elif fixed > proto["max_payload"]:
            raise TableError(f"{name}: longer than max_payload")
        if (msg["direction"] == "host_to_device") != bool(msg["type"] & 0x80):
            raise TableError(f"{name}: host commands have bit 7 set, device messages do not")


def crc16(data: bytes, poly: int, init: int, xorout: int) -> int:
    crc = init
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ poly) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc ^ xorout


def check_crc(table: dict[str, Any]) -> None:
    """Refuse CRC parameters that miss their own check value: both ends would agree, wrongly."""
    crc_cfg = table["crc"]
    if crc16(b"123456789", crc_cfg["poly"], crc_cfg["init"], crc_cfg["xorout"]) != crc_cfg["check"]:
        raise TableError("CRC parameters do not reproduce the stated check value")
