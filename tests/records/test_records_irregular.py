"""Irregular moves in words, the game's history of them, and records of games the
arbiter let stand: they read back in Kaeshi, say what was kept, and WTHOR names the
game it cannot hold."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.events import Irregularity
from controller.irregularities import describe, instruction
from controller.position import Position
from controller.records import load_games, read_ggf_text, save_games, write_ggf
from controller.records.irregular import split_stood, stood_note
from controller.records.model import RecordError
from controller.service.core import GameCore, GameSettings
from controller.squares import Color, parse_square


class Table:
    """A tournament game driven through the service's pure core, as the journal does."""

    def __init__(self) -> None:
        self.core = GameCore(GameSettings(mode="tournament", black="Hasegawa",
                                          white="Tamaru", event="Club night"))
        self.t = 0.0
        self.see(Position.start().board_string())
        self.press(Color.WHITE)  # white starts black's clock

    def step(self, data: dict[str, object]) -> list[dict[str, object]]:
        self.t += 1.0
        return [e.to_dict() for e in self.core.apply(self.t, data)]

    def see(self, board: str) -> None:
        for _ in range(2):
            self.step({"obs": {"board": board}})

    def press(self, color: Color) -> list[dict[str, object]]:
        return self.step({"obs": {"press": color.value}})

    @property
    def position(self) -> Position:
        return self.core.arbiter.position

    def play(self, square: str, change: dict[str, str] | None = None) -> None:
        """The side to move plays ``square``; ``change`` sets squares differently
        (``{"e4": "O"}``: an over-flip, ``"x"``: a shifted black disc)."""
        mover = self.position.to_move
        cells = list(self.position.play(square).board_string())
        for sq, ch in (change or {}).items():
            cells[parse_square(sq)] = ch
        self.see("".join(cells))
        self.press(mover)


def played_game() -> Table:
    """Black f5, white d6, black c3; white passes with moves (not pointed out); black
    plays on; white over-flips (the arbiter lets the board stand); black leaves a disc
    shifted; play on."""
    table = Table()
    for square in ("f5", "d6", "c3"):
        table.play(square)
    table.press(Color.WHITE)  # white presses without moving: an illegal pass
    table.play(table.position.legal_squares()[0])  # black plays on: the pass stands
    pos = table.position
    square = pos.legal_squares()[0]
    after = pos.play(square)
    unturned = next(sq for sq in ("d4", "e4", "d5", "e5", "f5", "f4", "e6", "d6", "c5")
                    if after.board_string()[parse_square(sq)] == "X")
    table.play(square, {unturned: "O"})  # white turns a disc it should not
    table.step({"action": "accept"})  # the arbiter lets the board stand
    square = table.position.legal_squares()[0]
    table.play(square, {square: "x"})  # black's new disc sits off its square
    table.play(table.position.legal_squares()[0])  # white plays on
    return table


def test_history_follows_what_became_of_each_irregularity() -> None:
    table = played_game()
    statuses = [(e.n, e.player, e.kind, e.status) for e in table.core.history.entries]
    assert statuses == [
        (4, "white", "illegal_pass", "stood"),
        (6, "white", "over_flip", "accepted"),
        (7, "black", "shifted_disc", "stood"),
    ]


def test_a_let_stand_game_round_trips_through_ggf_json_and_verify(tmp_path: Path) -> None:
    rec = played_game().core.record()
    assert rec.stood() == [4, 6]  # a shifted disc changes no disc: nothing to keep
    assert rec.comments[0] == "Judged by Kaeshi in tournament mode."
    assert rec.moves[3].comment.startswith(
        "Irregular move (rule 5): White passed with a legal move at")
    assert rec.moves[3].comment.endswith("It was not pointed out and stands.")
    assert "The arbiter accepted the board as it stood." in rec.moves[5].comment
    assert "off its square. It was not pointed out and stands." in rec.moves[6].comment
    text = write_ggf(rec)
    assert "mode[" not in text and "W[PA/" in text
    (back,) = read_ggf_text(text)
    assert [(m.player, m.square, m.comment) for m in back.moves] == [
        (m.player, m.square, m.comment) for m in rec.moves]
    assert [m.stands for m in back.moves] == [m.stands for m in rec.moves]
    assert back.final_position() == rec.final_position()
    for name in ("game.ggf", "game.json"):
        save_games([rec], tmp_path / name)
        assert load_games(tmp_path / name)[0].final_position() == rec.final_position()
        run = subprocess.run([sys.executable, "-m", "controller.cli", "record", "verify",
                              str(tmp_path / name)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert "illegal: 0" in run.stdout and "irregular but kept: 1" in run.stdout
        assert "game 1: move 4 (white pass): the board as it stood was kept" in run.stderr
        assert "move 6 (white " in run.stderr and "accepted the board" in run.stderr


def test_wthor_names_the_game_it_cannot_hold(tmp_path: Path) -> None:
    rec = played_game().core.record()
    rec.date = "2026-11-28"
    save_games([rec], tmp_path / "game.ggf")
    run = subprocess.run([sys.executable, "-m", "controller.cli", "record", "convert",
                          str(tmp_path / "game.ggf"), str(tmp_path / "out.wtb")],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert ("game 1 (Hasegawa vs Tamaru, 2026-11-28): WTHOR cannot hold it: after move "
            "4, 6 play went on from a board the rules do not give") in run.stderr
    assert not (tmp_path / "out.wtb").exists()
    with pytest.raises(RecordError, match="transcript cannot hold it"):
        save_games([rec], tmp_path / "game.txt")


def test_every_kind_has_words_and_an_instruction_under_rule_5() -> None:
    for kind in Irregularity:
        text = describe(kind, "white", ["e4", "f5"])
        squares = "e4 or f5" if kind == "illegal_pass" else "e4 and f5"  # one of / both
        assert text.startswith("White ") and squares in text
        what = instruction(kind, "white", ["e4", "f5"])
        pointed = "that White can play e4 or f5" if kind == "illegal_pass" else "e4 and f5"
        assert what.startswith(f"Black may point out {pointed}: press Black's clock")
        assert "then White must" in what and what.endswith("the board stands as it is.")
    assert instruction("forgotten_flip", "black", ["e5"]) == (
        "White may point out e5: press White's clock to hand the turn back; then Black must "
        "turn the disc on e5 to black, then press Black's clock. If White plays on instead, "
        "the board stands as it is.")


def test_the_stood_board_sentence_reads_back() -> None:
    board = "8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- O"
    comment = "Irregular move (rule 5): something.\n" + stood_note(board)
    assert split_stood(comment) == ("Irregular move (rule 5): something.", board)
    assert split_stood("no board here") == ("no board here", None)


def test_arbitrate_speaks_in_words_and_its_records_verify(tmp_path: Path,
                                                          data_dir: Path) -> None:
    """Independent scenarios from real games, with irregularities nobody put right:
    the record ``kaeshi arbitrate`` writes reads back and verifies, whatever stood."""
    dev = data_dir / "arbiter-dev"
    log = dev / "0001.obs.jsonl"  # white passes with legal moves at move 20
    run = subprocess.run([sys.executable, "-m", "controller.cli", "arbitrate", "--clock",
                          "--mode", "tournament", "--format", "text", str(log),
                          "--record", str(tmp_path / "g.ggf")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "move 20  White passes" in run.stdout
    assert "IRREGULAR White passed with a legal move at d1, e1" in run.stdout
    assert "Black may point out that White can play d1, e1" in run.stdout
    assert "then White must play d1, e1, e2" in run.stdout and '"event"' not in run.stdout
    verify = subprocess.run([sys.executable, "-m", "controller.cli", "record", "verify",
                             str(tmp_path / "g.ggf")], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    assert "move 20 (white pass): the board as it stood was kept" in verify.stderr
    # and so on for a run of scenarios, judged in this process
    from types import SimpleNamespace

    from controller.commands import arbitrate
    from controller.records.verify import verify_files

    for obs in sorted(dev.glob("*.obs.jsonl"))[:12]:
        out = tmp_path / f"{obs.name}.ggf"
        meta = json.loads(obs.with_name(obs.name.replace(".obs.jsonl", ".meta.json"))
                          .read_text(encoding="utf-8"))
        args = SimpleNamespace(log=str(obs), mode="tournament", record=str(out),
                               handicap=None, board=None, to_move="X", no_draws=False,
                               draw_win_right=None, clock=True if meta["clock"] else None,
                               settled=False, format="json", fps=None, stable=2, size=8)
        with open(tmp_path / "events.jsonl", "w") as sink:
            real, sys.stdout = sys.stdout, sink
            try:
                assert arbitrate.run(args) == 0  # type: ignore[arg-type]
            finally:
                sys.stdout = real
        report = verify_files([out])
        assert report.ok, (obs.name, report.problems)


def test_the_games_folder_lists_a_let_stand_game_and_says_what_it_cannot_be(
        tmp_path: Path) -> None:
    from controller.service.games import write_game_files

    rec = played_game().core.record()
    written = write_game_files(rec, "20261128-101500", tmp_path)
    assert sorted(p.suffix for p in written) == [".ggf", ".json"]  # no transcript
    run = subprocess.run([sys.executable, "-m", "controller.cli", "games", "list",
                          "--folder", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "(board kept as it stood after move 4, 6: GGF/json only)" in run.stdout
    wtb = subprocess.run([sys.executable, "-m", "controller.cli", "games", "export",
                          "20261128-101500", "wtb", "--out", str(tmp_path / "x.wtb"),
                          "--folder", str(tmp_path)], capture_output=True, text=True)
    assert wtb.returncode == 1 and "WTHOR cannot hold it" in wtb.stderr
    assert "KID[" not in (tmp_path / "20261128-101500.ggf").read_text(encoding="utf-8")


def _white_forgets_a_flip(table: Table):
    """Black's f5, then white's first legal move with one disc left unturned; the board
    white's move should have made."""
    table.play("f5")
    pos = table.position
    square = pos.legal_squares()[0]
    after = pos.play(square)
    flipped = next(sq for sq in ("d4", "e4", "d5", "e5", "f4", "e6", "d6")
                   if after.board_string()[parse_square(sq)] == "O"
                   and pos.board_string()[parse_square(sq)] == "X")
    table.play(square, {flipped: "X"})  # white forgets to turn a disc
    return after


@pytest.mark.parametrize("pointed_out", [False, True])
def test_the_record_says_whether_a_fault_was_pointed_out_or_put_right_unprompted(
        pointed_out: bool) -> None:
    table = Table()
    after = _white_forgets_a_flip(table)
    if pointed_out:
        table.press(Color.BLACK)  # black hands the turn back and points it out
    table.see(after.board_string())  # the disc is turned
    if pointed_out:
        table.press(Color.WHITE)
    table.play(table.position.legal_squares()[0])  # black plays on
    (entry,) = table.core.history.entries
    assert entry.status == "corrected" and entry.pointed_out is pointed_out
    said = entry.comment()
    assert ("pointed out and put right" in said) is pointed_out
    assert ("without being pointed out" in said) is not pointed_out
    assert "\n" not in said


def test_a_correction_from_an_older_journal_is_only_said_to_be_put_right() -> None:
    from controller.records.irregular import History

    history = History()
    history.take([{"t": 1.0, "event": "irregularity", "player": "white",
                   "kind": "forgotten_flip", "squares": ["e5"]},
                  {"t": 2.0, "event": "corrected", "kind": "forgotten_flip",
                   "squares": ["e5"]}], 2, 2.0)
    (entry,) = history.entries
    assert entry.pointed_out is None
    assert entry.comment().endswith("It was put right.")


def test_a_records_irregularities_are_counted_in_words_or_as_the_arbiter_noted_them() -> None:
    from controller.records.irregular import count_in_comments

    rec = played_game().core.record()
    history = played_game().core.history
    assert count_in_comments(m.comment for m in rec.moves) == history.count() == 3
    assert count_in_comments(["forgotten_flip e5; over_flip d4", "resync", ""]) == 2


def test_a_pointed_out_fault_is_never_said_to_be_still_open_to_point_out() -> None:
    """Between the point-out and the fix, the history's words agree with the flow's
    instruction: pointed out, to be put right (not "it may still be pointed out")."""
    table = Table()
    _white_forgets_a_flip(table)
    (entry,) = table.core.history.entries
    before = entry.to_json()
    assert before["status_text"] == "open: it may still be pointed out"
    table.press(Color.BLACK)  # black points it out
    (entry,) = table.core.history.entries
    said = entry.to_json()
    assert entry.status == "open" and entry.pointed_out is True
    assert "may still be pointed out" not in said["status_text"]
    assert said["status_text"].startswith("pointed out")
    assert said["instruction"].startswith("Pointed out: White must turn")
    assert "may still be pointed out" not in entry.outcome()
