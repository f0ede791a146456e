"""The service configuration: one TOML file, every option typed and bounded.

The options are declared once, in :data:`OPTIONS`; the loader, the example file
and the README table all come from that list, so an option cannot exist without
a type, bounds, a default and a line of documentation. A file with an unknown key
or a bad value stops start-up with a message that names the key and its line,
because a tournament hall is the wrong place to discover a typo mid-game.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError


class ConfigError(KaeshiError):
    """A configuration file that cannot be used; the message names file, line and key."""


@dataclass(frozen=True, slots=True)
class Option:
    """One option: ``section.key``, its Python type, its bounds and why it exists."""

    section: str
    key: str
    type: type
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    def describe_bounds(self) -> str:
        if self.choices:
            return " / ".join(f"`{c}`" for c in self.choices)
        if self.low is not None and self.high is not None:
            return f"{_fmt(self.low)} – {_fmt(self.high)}"
        if self.type is str:
            return "text"
        if self.type is bool:
            return "`true` / `false`"
        return ""


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


O = Option
OPTIONS: tuple[Option, ...] = (
    # -- the game --------------------------------------------------------------
    O("game", "mode", str, "tournament",
      "What the service shows: `home` (legal-move hints, flags on the LEDs at once), "
      "`tournament` (nothing on the board; flags only on the arbiter's web view), "
      "`record` (nothing live; irregularities only in the game record).",
      choices=("home", "tournament", "record")),
    O("game", "black", str, "", "Black player's name, written into the game record."),
    O("game", "white", str, "", "White player's name, written into the game record."),
    O("game", "event", str, "", "Tournament or event name for the record."),
    O("game", "place", str, "", "Where the game is played, for the record."),
    O("game", "draws_allowed", bool, True,
      "Whether a 32–32 game is a draw; when `false` the draw-win right decides it."),
    O("game", "draw_win_right", str, "none",
      "Who holds the draw-win right (引き分け勝ち) when draws are not allowed.",
      choices=("none", "black", "white")),
    # -- the clock -------------------------------------------------------------
    O("clock", "enabled", bool, True,
      "Run a game clock. Without one, a move is judged when the next one begins."),
    O("clock", "main", int, 1200, "Main time per player, in seconds (20 minutes by the "
      "championship rules).", low=10, high=36000),
    O("clock", "increment", int, 0, "Seconds added after each move (Fischer).",
      low=0, high=600),
    O("clock", "delay", int, 0, "Seconds each move may take before the clock starts "
      "running (simple delay).", low=0, high=600),
    O("clock", "resume", str, "pause",
      "What happens to the clocks when the service restarts after a crash or power cut: "
      "`pause` stops them at the last recorded instant until someone resumes (the "
      "arbiter decides, as the rules want for a clock fault); `continue` resumes at once "
      "without charging the outage; `charge` charges the outage to the side that was "
      "on move.", choices=("pause", "continue", "charge")),
    O("clock", "buttons", bool, False,
      "Read the clock buttons and drive the clock displays on the Raspberry Pi's GPIO "
      "pins (the clock hardware). Off: presses come from the source only."),
    # -- the clock's wiring on the Pi (BCM numbers, see hardware/clock.md) ----
    O("gpio", "black_button", int, 17, "GPIO of black's clock button (to ground).",
      low=0, high=27),
    O("gpio", "white_button", int, 27, "GPIO of white's clock button (to ground).",
      low=0, high=27),
    O("gpio", "pause_button", int, 22, "GPIO of the arbiter's pause button (to ground).",
      low=0, high=27),
    O("gpio", "black_clk", int, 5, "GPIO to CLK of black's TM1637 display.", low=0, high=27),
    O("gpio", "black_dio", int, 6, "GPIO to DIO of black's TM1637 display.", low=0, high=27),
    O("gpio", "white_clk", int, 13, "GPIO to CLK of white's TM1637 display.", low=0, high=27),
    O("gpio", "white_dio", int, 19, "GPIO to DIO of white's TM1637 display.", low=0, high=27),
    O("gpio", "buzzer", int, 26, "GPIO of the flag-fall buzzer; -1 for none.",
      low=-1, high=27),
    O("gpio", "debounce", float, 0.03,
      "Seconds a button line must be quiet before a press counts (contact bounce).",
      low=0.005, high=0.2),
    # -- where the board comes from -----------------------------------------
    O("source", "kind", str, "hall",
      "Where the board is read: `hall` (the sensor board over serial), `camera`, or "
      "`sim` (an observation log replayed in real time).",
      choices=("hall", "camera", "sim")),
    O("source", "device", str, "/dev/kaeshi-board",
      "Serial device of the sensor board (the udev rule gives it this stable name)."),
    O("source", "baud", int, 250000, "Serial speed of the sensor board (its firmware uses 250000).",
      low=9600, high=2000000),
    O("source", "camera", str, "0",
      "Camera to read: a device index such as `0`, `picamera` for the Raspberry Pi camera, "
      "or a video file (replayed once)."),
    O("source", "camera_setup", str, "",
      "Camera set-up file saved by `kaeshi calibrate camera` (board position, colours). "
      "Empty: estimated from the first frame, which must show the whole board."),
    O("source", "fps", int, 10, "Camera frames read per second.", low=1, high=60),
    O("source", "log", str, "",
      "`sim` only, and required there: the observation log (JSON Lines) to replay."),
    O("source", "speed", float, 1.0,
      "`sim` only: replay speed; 10 plays ten times faster, clocks included.",
      low=0.1, high=1000.0),
    O("source", "lost_after", float, 2.0,
      "Seconds without any reading after which the sensor counts as lost.",
      low=0.2, high=60.0),
    # -- journal and records --------------------------------------------------
    O("journal", "path", str, "/var/lib/kaeshi/journal.sqlite",
      "SQLite journal: every observation, press, event and clock state, synced before "
      "it is shown. The service resumes from it after a crash."),
    O("games", "folder", str, "/var/lib/kaeshi/games",
      "Folder where finished games are written (GGF, transcript, JSON)."),
    # -- outputs ----------------------------------------------------------------
    O("web", "enabled", bool, True, "Serve the live web page."),
    O("web", "host", str, "0.0.0.0", "Address the web page listens on."),
    O("web", "port", int, 8080, "Port of the web page; 0 picks a free port.",
      low=0, high=65535),
    O("web", "token", str, "",
      "Secret for the arbiter view. Empty: a random token is made at start-up and "
      "printed in the log."),
    O("leds", "driver", str, "none",
      "Where the LED overlay goes: `none`, `board` (the sensor board's LEDs), `ws2812` "
      "(a strip on the Pi), `web` (drawn on the web page only).",
      choices=("none", "board", "ws2812", "web")),
    O("leds", "show_legal", bool, False,
      "Show legal moves on the LEDs (home mode only; never in a tournament)."),
    O("display", "terminal", bool, False,
      "Draw the board, clocks and flags live in the terminal (the demo turns this on). "
      "It is the arbiter's view: keep it away from the players in a tournament."),
    O("log", "level", str, "info", "How much the service logs.",
      choices=("debug", "info", "warning", "error")),
)
del O

BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(o.section for o in OPTIONS))


class Config:
    """Validated options, read as ``config["clock.main"]`` or ``config.get("clock", "main")``."""

    def __init__(self, values: dict[str, Any], source: str = "defaults") -> None:
        self._values = values
        self.source = source

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def get(self, section: str, key: str) -> Any:
        return self._values[f"{section}.{key}"]

    def replace(self, **changes: Any) -> Config:
        """A copy with options changed, e.g. ``replace(**{"web.port": 0})``; checked too."""
        values = dict(self._values)
        for name, value in changes.items():
            option = BY_NAME.get(name)
            if option is None:
                raise ConfigError(f"unknown option {name!r}")
            values[name] = _check(option, value, name)
        return Config(values, self.source)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, value in self._values.items():
            section, key = name.split(".", 1)
            out.setdefault(section, {})[key] = value
        return out


def defaults() -> Config:
    return Config({o.name: o.default for o in OPTIONS})


def load_config(path: str | Path) -> Config:
    """Read and check a configuration file; every fault names the file, line and key."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: configuration file not found") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text ({exc.reason})") from None
    return parse_config(text, str(p))


def parse_config(text: str, source: str = "<config>") -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    values = {o.name: o.default for o in OPTIONS}
    lines = _KeyLines(text)
    for section, table in data.items():
        if section not in SECTIONS:
            where = lines.where(section, None)
            raise ConfigError(
                f"{source}{where}: unknown section [{section}] "
                f"(known: {', '.join(SECTIONS)})"
            )
        if not isinstance(table, dict):
            raise ConfigError(
                f"{source}{lines.where(section, None)}: {section!r} must be a "
                f"[{section}] table"
            )
        for key, value in table.items():
            name = f"{section}.{key}"
            option = BY_NAME.get(name)
            where = lines.where(section, key)
            if option is None:
                known = ", ".join(o.key for o in OPTIONS if o.section == section)
                raise ConfigError(
                    f"{source}{where}: unknown key {name!r} (known in [{section}]: {known})"
                )
            try:
                values[name] = _check(option, value, name)
            except ConfigError as exc:
                raise ConfigError(f"{source}{where}: {exc}") from None
    _check_gpio_lines(values, source, lines, data.get("gpio", {}))
    return Config(values, source)


def _check_gpio_lines(
    values: dict[str, Any], source: str, lines: _KeyLines, given: dict[str, Any]
) -> None:
    """Two clock parts on one GPIO line would fight each other: name both keys."""
    seen: dict[int, Option] = {}
    for o in OPTIONS:
        if o.section != "gpio" or o.key == "debounce" or values[o.name] < 0:
            continue
        pin = values[o.name]
        if pin in seen:
            other = seen[pin]
            at = o.key if o.key in given else other.key
            raise ConfigError(
                f"{source}{lines.where('gpio', at)}: {o.name} and {other.name} "
                f"both use GPIO {pin}"
            )
        seen[pin] = o


def _check(option: Option, value: Any, name: str) -> Any:
    t = option.type
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if t is int and isinstance(value, bool) or not isinstance(value, t):
        raise ConfigError(
            f"{name} must be {_TYPE_NAMES[t]}, not {type(value).__name__} {value!r}"
        )
    if option.choices and value not in option.choices:
        raise ConfigError(
            f"{name} must be one of {', '.join(option.choices)}; got {value!r}"
        )
    if option.low is not None and value < option.low:
        raise ConfigError(f"{name} must be at least {_fmt(option.low)}; got {value!r}")
    if option.high is not None and value > option.high:
        raise ConfigError(f"{name} must be at most {_fmt(option.high)}; got {value!r}")
    return value


_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_\-\"']+)\s*\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')\s*(?:\.\s*([A-Za-z0-9_\-]+))?\s*=")


class _KeyLines:
    """Line numbers of tables and keys, so messages can point into the file.

    ``tomllib`` gives no positions for values it parsed, so the plain line
    structure the options use (``[section]`` then ``key = value``, or a dotted
    ``section.key = value`` at the top) is scanned separately.
    """

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, str | None], int] = {}
        section = ""
        for lineno, line in enumerate(text.splitlines(), 1):
            header = _HEADER.match(line)
            if header:
                section = header.group(1).strip("\"'")
                self.keys.setdefault((section, None), lineno)
                continue
            key = _KEY.match(line)
            if key:
                first, second = key.group(1).strip("\"'"), key.group(2)
                if second is not None and not section:
                    self.keys.setdefault((first, second), lineno)
                    self.keys.setdefault((first, None), lineno)
                elif second is None:
                    if section:
                        self.keys.setdefault((section, first), lineno)
                    else:
                        self.keys.setdefault((first, None), lineno)

    def where(self, section: str, key: str | None) -> str:
        lineno = self.keys.get((section, key)) or self.keys.get((section, None))
        return f" line {lineno}" if lineno else ""


def example_toml() -> str:
    """An example file listing every option at its default, with its documentation."""
    out = [
        "# Kaeshi service configuration. Every option is shown at its default.",
        "# Run with: kaeshi run --config /etc/kaeshi/kaeshi.toml",
    ]
    for section in SECTIONS:
        out.append("")
        out.append(f"[{section}]")
        for o in (o for o in OPTIONS if o.section == section):
            for chunk in _wrap(o.doc, 86):
                out.append(f"# {chunk}")
            bounds = o.describe_bounds()
            if o.choices or o.low is not None:
                out.append(f"# ({_TYPE_NAMES[o.type]}; {bounds.replace('`', '')})")
            out.append(f"{o.key} = {_toml_value(o.default)}")
    return "\n".join(out) + "\n"


def markdown_table() -> str:
    """The README table of options: name, type, bounds, default, meaning."""
    rows = ["| option | type | allowed | default | meaning |", "| --- | --- | --- | --- | --- |"]
    for o in OPTIONS:
        default = _toml_value(o.default)
        rows.append(
            f"| `{o.name}` | {o.type.__name__} | {o.describe_bounds()} | `{default}` | {o.doc} |"
        )
    return "\n".join(rows) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return lines
