"""The service configuration: one TOML file, every option typed and bounded.

The options are declared once, in :data:`OPTIONS`; the loader, the example file
and the README table all come from that list, so an option cannot exist without
a type, bounds, a default and a line of documentation. A file with an unknown key
or a bad value stops start-up with a message that names the key and its line,
because a tournament hall is the wrong place to discover a typo mid-game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.boardsize import SIZES, STANDARD
from controller.clockhw.displays import CLOCK_DISPLAYS
from controller.clockhw.displays import documentation as display_documentation
from controller.leds.drivers import LED_DRIVERS
from controller.leds.drivers import documentation as led_documentation
from controller.leds.strip import STRIP_ORDERS
from controller.tomlconfig import (
    KeyLines,
    Option,
    Schema,
    TomlConfigError,
    check_secret,
    read_text,
)


class ConfigError(TomlConfigError):
    """A configuration file that cannot be used; the message names file, line and key."""


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
    O("game", "size", int, STANDARD,
      "Board size: 8 for Othello, 6 for the beginners' 6×6 board, 10 for Grand Othello. "
      "The sensor board plays a 6×6 game on its middle 6×6 squares (the edge squares "
      "must stay empty). The camera reads every size: its set-up file "
      "(`source.camera_setup`) must have been made on a board of this size "
      "(`kaeshi calibrate camera --size N`).", choices=SIZES),
    O("game", "handicap", int, 0,
      "Handicap start: black begins with 1-4 corner discs (a1, h8, h1, a8 in that "
      "order) and white moves first; 0 for the standard start.", low=0, high=4),
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
      "without charging the outage; `charge` charges the outage, measured on the boot "
      "clock, to the side that was on move (across a reboot it cannot be measured: the "
      "clock is paused and the arbiter told).", choices=("pause", "continue", "charge")),
    O("clock", "buttons", bool, False,
      "Read the clock buttons and drive the clock displays on the Raspberry Pi's GPIO "
      "pins (the clock hardware). Off: presses come from the source only."),
    O("clock", "display", str, "tm1637",
      f"The clock hardware's displays: {display_documentation()}.",
      choices=tuple(CLOCK_DISPLAYS)),
    # -- the clock's wiring on the Pi (BCM numbers, see hardware/clock.md) ----
    O("gpio", "black_button", int, 17, "GPIO of black's clock button (to ground).",
      low=0, high=27),
    O("gpio", "white_button", int, 27, "GPIO of white's clock button (to ground).",
      low=0, high=27),
    O("gpio", "pause_button", int, 22, "GPIO of the arbiter's pause button (to ground).",
      low=0, high=27),
    O("gpio", "black_clk", int, 5, "GPIO to the clock line (CLK or SCL) of black's "
      "display.", low=0, high=27),
    O("gpio", "black_dio", int, 6, "GPIO to the data line (DIO or SDA) of black's "
      "display.", low=0, high=27),
    O("gpio", "white_clk", int, 13, "GPIO to the clock line (CLK or SCL) of white's "
      "display.", low=0, high=27),
    O("gpio", "white_dio", int, 19, "GPIO to the data line (DIO or SDA) of white's "
      "display.", low=0, high=27),
    O("gpio", "buzzer", int, 26, "GPIO of the flag-fall buzzer; -1 for none.",
      low=-1, high=27),
    O("gpio", "debounce", float, 0.03,
      "Seconds a button line must be quiet before a press counts (contact bounce).",
      low=0.005, high=0.2),
    # -- where the board comes from -----------------------------------------
    O("source", "kind", str, "hall",
      "Where the board is read: `hall` (the sensor board over serial), `camera`, "
      "`browser` (a phone's camera page and a tablet's clock page: docs/phone.md), or "
      "`sim` (an observation log replayed in real time).",
      choices=("hall", "camera", "browser", "sim")),
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
    O("source", "fps", int, 10, "Camera frames read per second (`browser`: asked of the "
      "phone).", low=1, high=60),
    O("source", "width", int, 640, "`browser` only: width of the frames asked of the phone, "
      "in pixels (a camera set-up file's own size wins).", low=160, high=1920),
    O("source", "height", int, 480, "`browser` only: height of the frames asked of the phone.",
      low=120, high=1080),
    O("source", "network", float, 0.4,
      "`browser` only: the longest, in seconds, a frame or press may take over the network; "
      "every input waits this long past its own time, so the arbiter takes them in the order "
      "they happened.", low=0.05, high=5.0),
    O("source", "sync_allowance", float, 0.1,
      "`browser` only: the clock sync's uncertainty, in seconds, the press wait and the "
      "inputs' wait allow for; a sync worse than this is said on the pages and in the log.",
      low=0.0, high=1.0),
    O("source", "hold_max", float, 10.0,
      "`browser` only: the longest, in seconds, a press waits for the camera's frames of its "
      "instant while the camera is gone; then the clock goes on without them.",
      low=1.0, high=120.0),
    O("source", "press_wait_max", float, 0.5,
      "`camera` and `browser`: the most, in seconds, a clock press waits for the frames taken "
      "after it before its move is judged (it waits 3-4 frames: see docs/camera.md).",
      low=0.0, high=2.0),
    O("source", "log", str, "",
      "`sim` only, and required there: the observation log (JSON Lines) to replay, or "
      "a folder of them (`*.jsonl`, one game each, played in name order)."),
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
    O("web", "https", str, "auto",
      "Serve HTTPS (phones give a page their camera only over HTTPS): `auto` (on for "
      "`source.kind = \"browser\"`), `on`, `off`.", choices=("auto", "on", "off")),
    O("web", "certificate", str, "",
      "Folder of the HTTPS certificate and key; made on first start if absent. Empty: "
      "`tls` beside the journal."),
    O("web", "token", str, "",
      "Secret for the arbiter view. Empty: a random token is made at start-up and "
      "shown on the terminal that started the service (never in a log)."),
    O("web", "session_hours", float, 24.0, "Hours an arbiter's login lasts; logging out, "
      "a new token or a restart ends every session at once.", 0.01, 8760.0),
    O("leds", "driver", str, "none",
      f"Where the LED overlay goes: {led_documentation()}.", choices=tuple(LED_DRIVERS)),
    O("leds", "order", str, "rows",
      "How a WS2812 strip runs through the squares (hardware/clock.md): "
      + "; ".join(f"`{name}`: {text}" for name, text in STRIP_ORDERS.items()) + ".",
      choices=tuple(STRIP_ORDERS)),
    O("leds", "show_legal", bool, False,
      "Show legal moves on the LEDs (home mode only; never in a tournament)."),
    O("display", "terminal", bool, False,
      "Draw the board, clocks and flags live in the terminal (the demo turns this on). "
      "It is the arbiter's view: keep it away from the players in a tournament."),
    O("log", "level", str, "info", "How much the service logs.",
      choices=("debug", "info", "warning", "error")),
    # -- the engine (home mode only; docs/engine.md) -----------------------------
    O("engine", "plays", str, "none",
      "The colour an engine plays in `home` mode, the player taking the other; `none`: "
      "no engine opponent (hints and reviews still use the engine). Never used in "
      "`tournament` or `record` mode.", choices=("none", "black", "white")),
    O("engine", "command", str, "",
      "The engine's command line, e.g. `/opt/edax/lEdax-x64-modern -nboard` or "
      "`/opt/egaroucid/Egaroucid_for_Console.out -gtp -level 15`. Empty: Kaeshi's own "
      "small engine."),
    O("engine", "protocol", str, "nboard",
      "How the engine talks: `nboard` (Edax, NTest; moves and scores) or `gtp` "
      "(Egaroucid; moves only, so no scores, heat map or review).",
      choices=("nboard", "gtp")),
    O("engine", "level", int, 4,
      "The engine's level (NBoard `set depth`). Kaeshi's own engine: 1 beginner, "
      "2 novice, 3 club, 4 advanced, 5 strong (docs/engine.md); above 5 that depth, "
      "at most 20. Another NBoard engine takes it as its search depth. For a GTP "
      "engine give its level on the command line.",
      low=1, high=60),
    O("engine", "time", float, 5.0,
      "Seconds the engine may think per move, and per position for hints and "
      "reviews; less when the game's clock is short (the engine is told the clocks). "
      "An answer later than that again (at least 1 s, at most 5 s more) counts as a "
      "hung engine: it is stopped and started once more, then left alone; the game "
      "goes on without it. A hint still being searched then is answered with what the "
      "engine has said so far.", low=0.1, high=600.0),
    # -- the tournament hall (README: "Running a tournament hall") --------------
    O("hub", "enabled", bool, False,
      "Publish this table to the hall's MQTT broker and take the hub's orders. Play "
      "never depends on it: without a broker the table plays and records as always."),
    O("hub", "host", str, "", "The hall broker's address."),
    O("hub", "port", int, 1883, "The hall broker's port (8883 is usual with TLS).",
      low=1, high=65535),
    O("hub", "table", int, 0, "This table's number in the hall (1 and up; required).",
      low=0, high=9999),
    O("hub", "event", str, "",
      "The event's slug, as in the hub's hub.toml (lower-case letters, digits, - and _)."),
    O("hub", "username", str, "", "Broker user name; empty: the table number."),
    O("hub", "password", str, "", "Broker password (better: password_file)."),
    O("hub", "password_file", str, "",
      "File whose first line is the broker password; it wins over password."),
    O("hub", "wait_for_pairing", bool, False,
      "A replay (source.kind = \"sim\") plays each log of its folder only once the hub "
      "sends this table its next game, as a hall's tables wait for the director's "
      "pairings: `kaeshi hub simulate` playing a whole event."),
    O("hub", "tls", bool, False, "Connect to the broker with TLS."),
    O("hub", "ca_file", str, "",
      "CA certificate that signed the broker's certificate (TLS); empty: the system's."),
)
del O

SCHEMA = Schema(OPTIONS, ConfigError)
BY_NAME: dict[str, Option] = SCHEMA.by_name
SECTIONS: tuple[str, ...] = SCHEMA.sections


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
            values[name] = SCHEMA.check(name, value)
        return Config(values, self.source)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, value in self._values.items():
            section, key = name.split(".", 1)
            out.setdefault(section, {})[key] = value
        return out


def defaults() -> Config:
    return Config(SCHEMA.defaults())


def load_config(path: str | Path) -> Config:
    """Read and check a configuration file; every fault names the file, line and key."""
    text, source = read_text(path, ConfigError)
    return parse_config(text, source)


def parse_config(text: str, source: str = "<config>") -> Config:
    parsed = SCHEMA.parse(text, source)
    _check_gpio_lines(parsed.values, source, parsed.lines, parsed.given.get("gpio", {}))
    check_secret(parsed, "web.token", source, ConfigError)
    _check_board_size(parsed.values, source, parsed.lines, parsed.given.get("game", {}))
    _check_engine_command(parsed.values["engine.command"], source, parsed.lines)
    return Config(parsed.values, source)


def _check_board_size(values: dict[str, Any], source: str, lines: KeyLines,
                      given: dict[str, Any]) -> None:
    """What a board of another size cannot do: a handicap (its corners are named for
    8x8), a sensor board smaller than the game. (A camera set-up made on another
    board is refused when the service opens, which reads it.)"""
    size = values["game.size"]
    if size == STANDARD:
        return
    if values["game.handicap"]:
        at = "handicap" if "handicap" in given else "size"
        raise ConfigError(f"{source}{lines.where('game', at)}: game.handicap needs the "
                          f"{STANDARD}x{STANDARD} board; game.size is {size}")
    kind = values["source.kind"]
    if kind == "hall" and size > STANDARD:
        raise ConfigError(f"{source}{lines.where('game', 'size')}: the sensor board has "
                          f"{STANDARD}x{STANDARD} squares, too few for game.size {size}")


def _check_engine_command(command: str, source: str, lines: KeyLines) -> None:
    """The engine's command line must split into words (a quote left open would not)."""
    import shlex

    try:
        shlex.split(command)
    except ValueError as exc:
        raise ConfigError(f"{source}{lines.where('engine', 'command')}: engine.command "
                          f"cannot be split into words ({exc})") from None


def _check_gpio_lines(
    values: dict[str, Any], source: str, lines: KeyLines, given: dict[str, Any]
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


def example_toml() -> str:
    """An example file listing every option at its default, with its documentation."""
    return SCHEMA.example([
        "Kaeshi service configuration. Every option is shown at its default.",
        "Run with: kaeshi run --config /etc/kaeshi/kaeshi.toml",
    ])


def markdown_table() -> str:
    """The README table of options: name, type, bounds, default, meaning."""
    return SCHEMA.markdown_table()
