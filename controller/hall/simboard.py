"""Drive the sensor-board simulator: the real firmware, built for the host, on a pseudo-terminal.

The simulator (firmware/build/kaeshi-boardsim) speaks the board's protocol on a pty and
models the physical board behind it: discs on squares, each Hall sensor's offset, noise and
magnet swing, the USB cable and the watchdog. A SimBoard starts it, hands out the port a
host driver opens like the real board's, and plays the part of the hands on the board.

    with SimBoard() as sim:
        link = open_the_driver_on(sim.port)
        sim.set_board(START)
        sim.flip("d4")
        sim.unplug(); sim.replug()      # sim.port is the same path before and after

`port` is a symlink to the current pty. unplug() removes it and closes the pty (the host's
reads fail, as when a USB cable is pulled and /dev/ttyACM0 vanishes); replug() makes a new
pty behind the same link and boots the firmware afresh.

SimBoard(avr=True) runs the compiled ATmega2560 image in simavr instead
(firmware/build/kaeshi-avrsim), with the same port behaviour and board commands.
"""

from __future__ import annotations

import fcntl
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

from controller.errors import KaeshiError
from controller.hall.messages import SQUARES
from controller.squares import parse_square, square_name

FIRMWARE_DIR = Path(__file__).resolve().parent.parent.parent / "firmware"
BINARY = FIRMWARE_DIR / "build" / "kaeshi-boardsim"
AVR_RUNNER = FIRMWARE_DIR / "build" / "kaeshi-avrsim"
AVR_ELF = FIRMWARE_DIR / "build" / "avr" / "kaeshi.elf"
REPLY_TIMEOUT = 5.0
DISC_CHARS = "-XOxo?"
#: One main-loop pass (one mux channel) of the ATmega2560 image, measured in simavr by
#: benchmarks/bench_firmware.py: 16 passes make one 64-sensor scan of 2.9 ms.
STEP_US = 183

_built: set[str] = set()
_build_guard = threading.Lock()


class SimBoardError(KaeshiError):
    """The simulator could not be built or started, or refused a command."""


def make_firmware(target: str) -> subprocess.CompletedProcess[str]:
    """Run `make <target>` in firmware/, holding a file lock so parallel test workers never
    build the same files at once."""
    if not (FIRMWARE_DIR / "Makefile").exists():
        raise SimBoardError(f"firmware sources not found at {FIRMWARE_DIR}")
    (FIRMWARE_DIR / "build").mkdir(exist_ok=True)
    with open(FIRMWARE_DIR / "build" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return subprocess.run(
            ["make", "-C", str(FIRMWARE_DIR), "--no-print-directory", target],
            capture_output=True,
            text=True,
        )


def build_simulator(target: str = "sim") -> Path:
    """Build a simulator with make (once per process) and return its path.

    target "sim" is the firmware built for the host; "avrsim" is the simavr runner of the
    real ATmega2560 image (needs gcc-avr, avr-libc and libsimavr-dev). KAESHI_BOARDSIM
    names a prebuilt host simulator instead.
    """
    override = os.environ.get("KAESHI_BOARDSIM")
    if override and target == "sim":
        return Path(override)
    binary = BINARY if target == "sim" else AVR_RUNNER
    with _build_guard:
        if target in _built and binary.exists():
            return binary
        if shutil.which("make") is None or shutil.which("cc") is None:
            if binary.exists():
                return binary
            raise SimBoardError("building the board simulator needs make and a C compiler")
        result = make_firmware(target)
        if result.returncode != 0:
            output = (result.stdout + result.stderr)[-2000:]
            raise SimBoardError(f"building the board simulator ({target}) failed:\n{output}")
        _built.add(target)
        return binary


def _square_index(square: str | int) -> int:
    return square if isinstance(square, int) else parse_square(square)


class SimBoard:
    """A running simulator process and the physical board it models."""

    def __init__(
        self,
        *,
        seed: int = 1,
        board_id: int | None = 0x4B530001,
        eeprom_path: str | os.PathLike[str] | None = None,
        eeprom_write_us: int = 3300,
        step_us: int = STEP_US,
        avr: bool = False,
    ) -> None:
        """Configure, without starting.

        eeprom_path keeps the EEPROM (board id, calibration) in a file across runs;
        eeprom_write_us is the time per EEPROM byte (3.3 ms on the ATmega2560: a full
        calibration commit takes ~2 s; pass 0 for an instant one); step_us paces the scan
        (one mux channel per step, STEP_US = 183 us as measured on the ATmega2560 image).

        avr=True runs the real ATmega2560 image in simavr instead of the host build: the
        same protocol and physical-board commands, plus decoded LED output and WS2812B
        pulse timings (ws2812_timing()); it has no state() (the firmware's memory is not
        exposed), no EEPROM file and no eeprom_fail().
        """
        self._seed = seed
        self._board_id = board_id
        self._eeprom_path = eeprom_path
        self._eeprom_write_us = eeprom_write_us
        self._step_us = step_us
        self._avr = avr
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.Lock()
        self._pump_thread: threading.Thread | None = None
        self.port = ""

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> SimBoard:
        if self._proc is not None:
            return self
        binary = build_simulator("avrsim" if self._avr else "sim")
        self._tmp = tempfile.TemporaryDirectory(prefix="kaeshi-sim-")
        link = Path(self._tmp.name) / "ttyKAESHI0"
        args = [str(binary), "--link", str(link), "--seed", str(self._seed)]
        if self._avr:
            args += ["--elf", str(AVR_ELF)]
        else:
            args += ["--eeprom-write-us", str(self._eeprom_write_us)]
            args += ["--step-us", str(self._step_us)]
            if self._eeprom_path is not None:
                args += ["--eeprom", os.fspath(self._eeprom_path)]
        if self._board_id is not None:
            args += ["--board-id", str(self._board_id)]
        self._proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()
        first = ""
        try:
            for _ in range(20):  # simavr may log a few lines before the runner is ready
                first = self._next_line()
                if first.startswith("ready "):
                    break
        except SimBoardError:
            pass
        if not first.startswith("ready "):
            proc = self._proc
            proc.kill()
            proc.wait()
            err = proc.stderr.read() if proc.stderr else ""
            self.stop()
            raise SimBoardError(f"simulator did not start: {err.strip() or first}")
        self.port = first.split(" ", 1)[1]
        return self

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.stdin:
                    proc.stdin.write("quit\n")
                    proc.stdin.flush()
                    proc.stdin.close()
                proc.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            if self._pump_thread is not None:
                self._pump_thread.join(timeout=2)  # it ends at the output's end of file
                self._pump_thread = None
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> SimBoard:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _pump(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        try:
            for line in proc.stdout:
                self._lines.put(line.rstrip("\n"))
        except (OSError, ValueError):
            pass  # the stream was closed under us: the simulator is gone either way
        self._lines.put(None)

    def _next_line(self) -> str:
        try:
            line = self._lines.get(timeout=REPLY_TIMEOUT)
        except queue.Empty:
            raise SimBoardError("simulator did not answer within 5 s") from None
        if line is None:
            raise SimBoardError("simulator exited")
        return line

    def command(self, line: str) -> str:
        """Send one control line; return the text after "ok", raise on "err"."""
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None:
                raise SimBoardError("simulator is not running (call start())")
            try:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
            except OSError as exc:
                raise SimBoardError(f"simulator is gone: {exc}") from exc
            reply = self._next_line()
        if reply.startswith("err"):
            raise SimBoardError(f"simulator refused '{line}': {reply[4:]}")
        return reply[3:] if reply.startswith("ok ") else ""

    # ------------------------------------------------------------------ the physical board

    def set_board(self, board: str) -> None:
        """Lay out the whole board: 64 characters of -XOxo? (a1..h8).

        x/o are shifted discs (half the magnet's effect); ? is a sensor that reads 0, as an
        open sensor does, which the firmware reports as unknown.
        """
        if len(board) != SQUARES or any(c not in DISC_CHARS for c in board):
            raise SimBoardError(f"board must be {SQUARES} characters of {DISC_CHARS}, "
                                f"got {board!r}")
        self.command(f"board {board}")

    def set_square(self, square: str | int, char: str) -> None:
        self.command(f"square {square_name(_square_index(square))} {char}")

    def place(self, square: str | int, color: str) -> None:
        """Put a centred disc down, color 'black'/'white' (or X/O)."""
        self.command(f"place {square_name(_square_index(square))} {color}")

    def flip(self, square: str | int) -> None:
        self.command(f"flip {square_name(_square_index(square))}")

    def lift(self, square: str | int) -> None:
        self.command(f"lift {square_name(_square_index(square))}")

    def shift(self, square: str | int) -> None:
        """Push a disc off the centre of its square."""
        self.command(f"shift {square_name(_square_index(square))}")

    def center(self, square: str | int) -> None:
        self.command(f"center {square_name(_square_index(square))}")

    def board(self) -> str:
        """The physical board as laid out (not what the firmware reports)."""
        return self.command("get board")

    # ------------------------------------------------------------------ sensors

    def set_sensor(
        self, square: str | int, offset: float, noise: float, swing: float | None = None
    ) -> None:
        """One sensor: empty reading 512 + offset, Gaussian noise (counts, standard
        deviation), and the magnet's swing in counts (default 300)."""
        cmd = f"sensor {square_name(_square_index(square))} {offset} {noise}"
        self.command(cmd + (f" {swing}" if swing is not None else ""))

    def spread(self, seed: int, offset_sd: float, noise: float, swing_sd: float = 0.0) -> None:
        """Give every sensor a random baseline offset and swing, as real parts vary."""
        self.command(f"spread {seed} {offset_sd} {noise} {swing_sd}")

    def sensor(self, square: str | int) -> tuple[float, float, float]:
        """(offset, noise, swing) of one sensor."""
        off, noise, swing = self.command(f"get sensor {square_name(_square_index(square))}").split()
        return float(off), float(noise), float(swing)

    def force(self, square: str | int, value: int | None) -> None:
        """Make a sensor read `value` whatever lies on it (None: back to the model)."""
        arg = "off" if value is None else str(value)
        self.command(f"force {square_name(_square_index(square))} {arg}")

    # ------------------------------------------------------------------ cable, power, EEPROM

    def unplug(self) -> None:
        """Pull the cable: the port disappears and the host's reads fail."""
        self.command("unplug")

    def replug(self) -> None:
        """Plug back in: the port reappears at the same path; the firmware boots afresh."""
        self.command("replug")

    def watchdog_reset(self) -> None:
        """Restart the firmware as its watchdog would (flag WATCHDOG_RESET set)."""
        self.command("watchdog")

    def power_cycle(self) -> None:
        """Restart the firmware as at power-on (no watchdog flag); the port stays."""
        self.command("power")

    def eeprom_fail(self, failing: bool = True) -> None:
        """Make EEPROM writes silently not take, so a commit fails its read-back."""
        self.command(f"eeprom_fail {int(failing)}")

    def eeprom(self, addr: int, length: int) -> bytes:
        return bytes.fromhex(self.command(f"get eeprom {addr} {length}"))

    # ------------------------------------------------------------------ what the firmware shows

    def state(self) -> tuple[str, int]:
        """The firmware's debounced board (a board string) and its flag byte."""
        board, flags = self.command("get state").split()
        return board, int(flags)

    def leds(self) -> list[tuple[int, int, int]]:
        """(r, g, b) of each square's LED as the strip shows it now."""
        hexes = self.command("get leds").split()[0]
        return [tuple(bytes.fromhex(hexes[i : i + 6])) for i in range(0, 384, 6)]  # type: ignore[misc]

    def led_shows(self) -> int:
        """How many times the firmware has written the strip."""
        return int(self.command("get leds").split()[1])

    def ws2812_timing(self) -> dict[str, tuple[int, int]]:
        """AVR simulator only: the (min, max) CPU cycles of the LED data line's 0-bit high
        pulses (t0h), 1-bit high pulses (t1h) and bit periods within one LED (period)."""
        out = {}
        for item in self.command("get ws2812").split():
            key, span = item.split("=")
            lo, hi = span.split("..")
            out[key] = (int(lo), int(hi))
        return out

    def wait_state(self, board: str, timeout: float = 2.0) -> str:
        """Wait until the firmware reports `board`; return what it reports at the end."""
        deadline = time.monotonic() + timeout
        while True:
            seen, _ = self.state()
            if seen == board or time.monotonic() >= deadline:
                return seen
            time.sleep(0.01)
