"""Whole-event export: real games through the hub's store, out as one GGF and as WTHOR."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from hub_web_support import Hall

from controller.hub.broadcast import GameInfo
from controller.hub.export import event_ggf, event_records, export_wthor, game_record, wthor_zip
from controller.records import load_games, read_ggf_text, read_wthor
from controller.records.model import GameRecord
from controller.squares import Color, square_name

EVENT = "Kaeshi Open 2026"


@pytest.fixture(scope="module")
def real_games(data_dir: Path) -> list[GameRecord]:
    """Six finished games of the 2001 WTHOR database (real players, real scores)."""
    games = load_games(data_dir / "games" / "wthor" / "WTH_2001.wtb")
    return [g for g in games[:40] if g.is_finished()][:6]


def play_into(hall: Hall, table: int, game: str, rec: GameRecord, t0: float,
              flag_at: int | None = None) -> None:
    """Send ``rec`` into the store as a table's arbiter would have reported it."""
    positions = rec.positions()
    t = t0
    for n, (mv, pos) in enumerate(zip(rec.moves, positions, strict=False), 1):
        if mv.square is None:
            hall.event(table, game, {"t": t, "event": "pass", "player": mv.player.value}, t)
        else:
            if pos.to_move is not mv.player:  # a pass the record leaves implicit
                hall.event(table, game, {"t": t, "event": "pass",
                                         "player": pos.to_move.value}, t)
            flips = pos.with_to_move(mv.player).flips(mv.square)
            hall.event(table, game, {"t": t, "event": "move", "player": mv.player.value,
                                     "square": mv.square,
                                     "flips": sorted(square_name(i) for i in range(64)
                                                     if flips >> i & 1)}, t)
        if n == flag_at:  # the arbiter reports a move's irregularities after the move
            hall.event(table, game, {"t": t, "event": "irregularity", "player": mv.player.value,
                                     "kind": "forgotten_flip", "squares": ["d4"]}, t)
        t += 1.0
    assert rec.result is not None
    b, w = rec.result
    hall.event(table, game, {"t": t, "event": "game_over", "black": b, "white": w,
                             "winner": "black" if b > w else "white" if w > b else "draw"}, t)


def the_event(real_games: list[GameRecord]) -> tuple[Hall, dict[tuple[int, str], GameInfo]]:
    """Two rounds of three tables; table 2 in round 1 had a forgotten flip on move 9."""
    hall = Hall()
    infos = {}
    for i, rec in enumerate(real_games):
        rnd, table = divmod(i, 3)
        game = f"r{rnd + 1}-t{table + 1}"
        play_into(hall, table + 1, game, rec, 1_700_000_000.0 + 10_000 * rnd + i,
                  flag_at=9 if (rnd, table) == (0, 1) else None)
        infos[(table + 1, game)] = GameInfo(rec.black, rec.white, rnd + 1)
    return hall, infos


def test_the_event_exports_as_one_ggf_file(real_games: list[GameRecord]) -> None:
    hall, infos = the_event(real_games)
    records = event_records(hall.store.games(), hall.store.events, infos, EVENT)
    back = read_ggf_text(event_ggf(records))
    assert len(back) == 6
    for got, want in zip(back, real_games, strict=True):
        assert got.transcript_moves() == want.transcript_moves()
        assert (got.black, got.white, got.result) == (want.black, want.white, want.result)
        assert got.event == EVENT
    assert [(g.extra["RND"], g.extra["TBL"]) for g in back] == [
        ("1", "1"), ("1", "2"), ("1", "3"), ("2", "1"), ("2", "2"), ("2", "3")]
    flagged = [(n, m.comment) for n, m in enumerate(back[1].moves, 1) if m.comment]
    (n, comment), = flagged
    assert n == 9 and comment.startswith("Irregular move (rule 5): ")
    assert comment.endswith("did not turn the disc on d4. It was not pointed out and stands.")
    assert back[1].date == "2023-11-14"


def test_the_event_exports_as_wthor_with_its_name_files(
    real_games: list[GameRecord], tmp_path: Path
) -> None:
    hall, infos = the_event(real_games)
    records = event_records(hall.store.games(), hall.store.events, infos, EVENT)
    out = export_wthor(records, tmp_path / "export")
    assert out.written == 6 and out.skipped == []
    assert out.players.is_file() and out.tournaments.is_file()
    back = read_wthor(out.games)
    for got, want in zip(back, real_games, strict=True):
        assert got.transcript_moves() == want.transcript_moves()
        assert (got.black, got.white, got.result) == (want.black, want.white, want.result)
        assert got.event == EVENT
    data, skipped = wthor_zip(records)
    assert skipped == []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert sorted(zf.namelist()) == ["WTHOR.JOU", "WTHOR.TRN", "event.wtb"]
        assert zf.read("event.wtb") == out.games.read_bytes()


def test_a_game_wthor_cannot_hold_is_named_and_kept_in_ggf(tmp_path: Path) -> None:
    hall = Hall()
    # after an arbiter's ruling the table went on from a position no move list reaches
    for n, ev in enumerate([("black", "f5"), ("white", "a1"), ("black", "h8")], 1):
        hall.event(7, "g", {"t": n, "event": "move", "player": ev[0], "square": ev[1],
                            "flips": []}, 1000.0 + n)
    infos = {(7, "g"): GameInfo("Ann", "Bob", 3)}
    records = event_records(hall.store.games(), hall.store.events, infos, EVENT)
    out = export_wthor(records, tmp_path)
    assert out.written == 0
    assert len(out.skipped) == 1 and out.skipped[0].startswith("table 7, Ann vs Bob: move 2")
    assert "a1" in event_ggf(records)


def test_a_game_record_keeps_a_time_loss_and_a_late_flag() -> None:
    hall = Hall()
    hall.event(1, "g", {"t": 1, "event": "move", "player": "black", "square": "f5",
                        "flips": ["e5"]}, 10.0)
    hall.event(1, "g", {"t": 2, "event": "irregularity", "player": "black",
                        "kind": "shifted_disc", "squares": ["e5", "f5"]}, 11.0)
    hall.event(1, "g", {"t": 3, "event": "game_over", "black": 4, "white": 1,
                        "winner": "black", "reason": "time", "loser": "white"}, 12.0)
    rec = game_record(hall.store.events(1, "g"), GameInfo("Ann", "Bob", None), EVENT, 1)
    assert rec.moves[0].comment == (
        "Irregular move (rule 5): Black left the discs on e5 and f5 off their squares. "
        "It was not pointed out and stands.")
    assert (rec.result, rec.result_note) == ((4, 1), "time")
    assert "RND" not in rec.extra


def test_a_32_32_board_the_draw_win_right_decided_keeps_its_holder() -> None:
    hall = Hall()
    hall.event(1, "g", {"t": 1, "event": "move", "player": "black", "square": "f5",
                        "flips": ["e5"]}, 10.0)
    hall.event(1, "g", {"t": 2, "event": "game_over", "black": 32, "white": 32,
                        "winner": "white", "decided_by": "draw_win_right"}, 11.0)
    rec = game_record(hall.store.events(1, "g"), GameInfo("Ann", "Bob", 2), EVENT, 1)
    assert rec.draw_win_right is Color.WHITE
    assert "DW[W]" in event_ggf([rec])


def test_a_pass_that_stood_reads_back_and_wthor_names_the_game(tmp_path: Path) -> None:
    """Each stored event carries the table's official board after its step: the event's
    GGF keeps the board play went on from, verifies, and WTHOR names what it leaves out."""
    from controller.hall_protocol.protocol import EventMessage
    from controller.position import Position
    from controller.records.verify import verify_files

    hall = Hall()
    seq = 0

    def send(event: dict[str, object], pos: Position) -> None:
        nonlocal seq
        seq += 1
        hall.store.add_event(EventMessage(4, "g", seq, {"t": float(seq), **event}, None,
                                          pos.board_string(), pos.to_move.value),
                             2_000_000_000.0 + seq)

    pos = Position.start()
    for square in ("f5", "d6", "c3"):
        mover = pos.to_move
        pos = pos.play(square)
        send({"event": "move", "player": mover.value, "square": square, "flips": []}, pos)
    legal = pos.legal_squares()  # white passes with moves: nobody points it out
    pos = pos.with_to_move(pos.to_move.opponent)
    send({"event": "pass", "player": "white"}, pos)
    send({"event": "irregularity", "player": "white", "kind": "illegal_pass",
          "squares": legal}, pos)
    square = pos.legal_squares()[0]
    pos = pos.play(square)
    send({"event": "move", "player": "black", "square": square, "flips": []}, pos)
    infos = {(4, "g"): GameInfo("Ann", "Bob", 2)}
    records = event_records(hall.store.games(), hall.store.events, infos, EVENT)
    (rec,) = records
    assert rec.stood() == [4]
    assert rec.moves[3].comment.endswith("It was not pointed out and stands.")
    (tmp_path / "event.ggf").write_text(event_ggf(records), encoding="utf-8")
    report = verify_files([tmp_path / "event.ggf"])
    assert report.ok and report.stood == 1, report.problems
    out = export_wthor(records, tmp_path / "wthor")
    assert out.written == 0
    (why,) = out.skipped
    assert why.startswith("table 4, Ann vs Bob") and "WTHOR cannot hold it" in why
