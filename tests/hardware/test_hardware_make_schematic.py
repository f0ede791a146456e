"""The reference hardware files: generated schematic, bill of materials, pin tables."""

from __future__ import annotations

import csv
import importlib.util
import re
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"


def schematic_module():
    spec = importlib.util.spec_from_file_location("make_schematic", HARDWARE / "make_schematic.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_schematic_is_up_to_date():
    svg = (HARDWARE / "schematic.svg").read_text(encoding="utf-8")
    assert svg == schematic_module().draw(), (
        "hardware/schematic.svg is stale: run python hardware/make_schematic.py"
    )


def test_schematic_is_well_formed_svg_naming_every_square():
    root = ET.parse(HARDWARE / "schematic.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    squares = {f"{c}{r}" for c in "abcdefgh" for r in range(1, 9)}
    assert squares <= texts
    for label in ("A0  SIG0", "D22  S0", "D10  LED_DIN", "5V  +5V"):
        assert label in texts


def test_mux_mapping_is_row_major_from_a1():
    mod = schematic_module()
    assert mod.square_of(0, 0) == "a1"
    assert mod.square_of(0, 8) == "a2"
    assert mod.square_of(1, 0) == "a3"
    assert mod.square_of(3, 15) == "h8"
    assert [mod.led_index(i) for i in range(64)] == list(range(64))


def test_readme_pin_table_matches_the_generator():
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (A\d|D\d+|5V|GND) \| [^|]+ \| ([^|]+?) \|", readme, re.M))
    for pin, net, _ in schematic_module().MEGA_PINS:
        if pin == "USB":
            continue
        assert rows.get(pin) == net, f"README pin table disagrees on {pin}"


def test_bill_of_materials_adds_up():
    with open(HARDWARE / "bom.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {"qty", "part", "example part number", "unit_usd", "total_usd"} <= set(rows[0])
    parts = " ".join(r["part"] for r in rows)
    for needed in ("Mega 2560", "multiplexer", "Hall", "LED", "magnet", "5 V"):
        assert needed in parts
    for r in rows:
        assert abs(int(r["qty"]) * float(r["unit_usd"]) - float(r["total_usd"])) < 0.01, r
    counts = {r["ref"]: int(r["qty"]) for r in rows}
    assert counts["H1-H64"] == 64 and counts["D1-D64"] == 64 and counts["U2-U5"] == 4


# Arduino Mega 2560 digital pin of each AVR port bit the firmware may name.
MEGA_DIGITAL = {
    "PA0": "D22",
    "PA1": "D23",
    "PA2": "D24",
    "PA3": "D25",
    "PB4": "D10",
    "PB5": "D11",
    "PB6": "D12",
    "PB7": "D13",
    "PH3": "D6",
    "PH4": "D7",
    "PE4": "D2",
    "PE5": "D3",
    "PG5": "D4",
    "PE3": "D5",
}


def test_pins_agree_with_the_firmware():
    board_h = (ROOT / "firmware" / "avr" / "board.h").read_text(encoding="utf-8")
    defines = dict(re.findall(r"#define (\w+) (\w+)", board_h))
    pins = {net: pin for pin, net, _ in schematic_module().MEGA_PINS}
    led = "P" + defines["LED_PORT"][-1] + defines["LED_BIT"][-1]
    assert MEGA_DIGITAL[led] == pins["LED_DIN"]
    port = defines["MUX_SELECT_PORT"][-1]
    mask = int(defines["MUX_SELECT_MASK"], 16)
    select = [MEGA_DIGITAL[f"P{port}{bit}"] for bit in range(8) if mask >> bit & 1]
    assert select == [pins[f"S{b}"] for b in range(4)]
