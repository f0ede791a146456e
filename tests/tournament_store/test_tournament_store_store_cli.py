"""``kaeshi tournament``: the event file, atomic commands, sheets and exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main

EVENT = ('name = "Test Open"\ndivision = "open"\ndate = "2021-07-18"\ncountry = "JPN"\n'
         "extend = true\n")  # ten players: the small-field variant


def write_roster(path: Path, n: int, extra: str = "") -> Path:
    lines = ["name,rank,club,seed,absent,federation_id"]
    lines += [f"Player {k},{k % 5 + 1}段,Club {k % 3},{'' if k else 1},,{9000 + k}"
              for k in range(n)]
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


@pytest.fixture
def event(tmp_path):
    (tmp_path / "event.toml").write_text(EVENT, encoding="utf-8")
    write_roster(tmp_path / "players.csv", 10, "Late,,,,yes\n")
    db = tmp_path / "t.sqlite"
    assert main(["tournament", "--db", str(db), "new", str(tmp_path / "event.toml"),
                 "--roster", str(tmp_path / "players.csv")]) == 0
    return db


def run(db: Path, *args: str) -> int:
    return main(["tournament", "--db", str(db), *args])


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("Player 3,,,,\n", "players.csv line 12: duplicate name 'Player 3' (first on line 5)"),
        ("Someone,,,1x,\n", "players.csv line 12: seed must be digits, not '1x'"),
        ("Other,,,,maybe\n", "players.csv line 12: absent must be empty, yes or no"),
    ],
)
def test_bad_roster_lines_are_named(tmp_path, capsys, extra, needle):
    (tmp_path / "event.toml").write_text(EVENT, encoding="utf-8")
    write_roster(tmp_path / "players.csv", 10, extra)
    db = tmp_path / "t.sqlite"
    assert main(["tournament", "--db", str(db), "new", str(tmp_path / "event.toml"),
                 "--roster", str(tmp_path / "players.csv")]) == 1
    assert needle in capsys.readouterr().err
    assert not db.exists()


def test_a_whole_event_on_the_command_line(event, tmp_path, capsys):
    assert run(event, "lottery", "--seeds", "12345", "678", "00001") == 0
    out = capsys.readouterr().out
    assert "   1  A  Player 0" in out  # the seeded player holds number 1, league A
    rounds = 0
    while True:
        before = event.read_bytes()
        code = run(event, "pair", "--out", str(tmp_path / "sheets"))
        err = capsys.readouterr()
        if code:
            assert "finished" in err.err
            assert event.read_bytes() == before
            break
        rounds += 1
        tables = [line.split(",")[0] for line in err.out.splitlines()[1:]
                  if line and line[0].isdigit()]
        for table in tables:
            assert run(event, "result", table, "black", "--discs", "40-24") == 0
    assert rounds >= 3
    assert run(event, "standings", "--out", str(tmp_path / "sheets")) == 0
    assert (tmp_path / "sheets" / "round-1.html").read_text().startswith("<!doctype html>")
    # the final is played: the standings are the final ranking, and the prizes sheet
    sheet = (tmp_path / "sheets" / "standings.csv").read_text()
    assert sheet.startswith("place,number,name,league,勝数,段級位,王座戦\n1,")
    assert "七段" in (tmp_path / "sheets" / "prizes.html").read_text()
    assert run(event, "export", str(tmp_path / "out")) == 0
    wof = (tmp_path / "out" / "results.wof.txt").read_text().splitlines()
    assert wof[:4] == ["%%Tournament: Test Open", "%%Country: JPN", "%%Date: 18/07/2021",
                       "%%Sender: "]
    assert any(line.endswith(" B") and "(40)>(24)" in line for line in wof)
    data = json.loads((tmp_path / "out" / "event.json").read_text())
    assert data["finished"] and data["final_ranking"][0]["place"] == 1
    late = next(p for p in data["players"] if p["name"] == "Late")
    assert late["absent"] and late["number"] is not None and late["group"] is None


def test_refused_commands_leave_the_file_unchanged(event, capsys):
    assert run(event, "lottery", "--seeds", "1", "2", "3") == 0
    assert run(event, "pair") == 0
    assert run(event, "result", "1", "white") == 0
    before = event.read_bytes()
    for args, needle in [
        (("result", "1", "black"), "table 1 already has the result white"),
        (("result", "42", "black"), "no game at table 42"),
        (("result", "2", "draw"), "table 2: a drawn board needs"),
        (("result", "2", "black", "--discs", "a-b"), "--discs must look like"),
        (("lottery", "--seeds", "1", "2", "3"), "already been drawn"),
        (("withdraw", "Nobody"), "no player named 'Nobody'"),
        (("pair",), "still lacks results at table(s) 2"),
    ]:
        capsys.readouterr()
        assert run(event, *args) == 1, args
        assert needle in capsys.readouterr().err
        assert event.read_bytes() == before
    assert run(event, "result", "1", "white") == 0  # the same result again is fine
    assert "already entered" in capsys.readouterr().out


def test_seed_that_is_not_digits_is_refused(event, capsys):
    assert run(event, "lottery", "--seeds", "12a", "2", "3") == 1
    assert "seed 1 must be digits" in capsys.readouterr().err


def test_simulate_writes_the_event_json_contract(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["tournament", "simulate", "--players", "40", "--division", "open",
                 "--seed", "3", "--out", str(out)]) == 0
    data = json.loads((out / "event.json").read_text())
    assert data["division"] == "open" and data["finished"]
    playing = [p for p in data["players"] if not p["absent"]]
    assert len(playing) == 40
    assert all(p["group"] in "ABCD" for p in playing)
    first = data["rounds"][0]
    assert first["games"] and first["standings"]
    assert set(first["standings"][0]["criteria"]) == {
        "wins", "2", "3", "4", "5", "6", "7", "8", "number"}
    assert len(data["final_ranking"]) == 40
    assert any(p["withdrawn_after_round"] is not None for p in data["players"])


def test_simulate_knockout_division(tmp_path):
    out = tmp_path / "sim"
    assert main(["tournament", "simulate", "--players", "24", "--division", "children",
                 "--seed", "5", "--out", str(out)]) == 0
    data = json.loads((out / "event.json").read_text())
    assert len(data["rounds"]) == 5 and data["settings"]["minutes"] == 15


def test_toss_then_a_drawn_board_goes_to_the_draw_win_holder(event, capsys):
    assert run(event, "lottery", "--seeds", "1", "2", "3") == 0
    capsys.readouterr()
    assert run(event, "pair") == 0
    sheet = capsys.readouterr().out.splitlines()
    table, _, _, black, white = sheet[1].split(",")[:5]
    assert run(event, "toss", table, "--black", white, "--draw-win", black) == 0
    assert run(event, "toss", table, "--black", "Stranger", "--draw-win", black) == 1
    assert "'Stranger' does not play there" in capsys.readouterr().err
    assert run(event, "result", table, "draw", "--discs", "32-32") == 0
    from controller.tournament_store import store

    _, t = store.load(event)
    game = t.current.table(int(table))
    assert (game.black, game.white, game.winner) == (white, black, black)
    assert game.colour_chooser == white


def test_a_field_beyond_the_rules_needs_the_organisers_word_and_is_named_everywhere(
        tmp_path, capsys):
    # 130 roster entries draw numbers 11–140, past the rules' 「非シード選手に11～138」
    write_roster(tmp_path / "players.csv", 130)
    base = EVENT.replace("extend = true\n", "")
    (tmp_path / "event.toml").write_text(base, encoding="utf-8")
    db = tmp_path / "t.sqlite"
    new = ["tournament", "--db", str(db), "new", str(tmp_path / "event.toml"),
           "--roster", str(tmp_path / "players.csv")]
    assert main(new) == 1
    assert "130 roster entries: the rules number players 11–138" in capsys.readouterr().err
    assert not db.exists()
    (tmp_path / "event.toml").write_text(base + "extend = 1\n", encoding="utf-8")
    assert main(new) == 1
    assert "extend must be true or false" in capsys.readouterr().err
    (tmp_path / "event.toml").write_text(base + "extend = true\n", encoding="utf-8")
    assert main(new) == 0
    named = "extension of the rules, confirmed by the organiser: 130 roster entries"
    assert named in capsys.readouterr().out
    assert run(db, "lottery", "--seeds", "1", "2", "3") == 0
    assert named in capsys.readouterr().out
    assert run(db, "pair") == 0
    assert f"note: {named}" in capsys.readouterr().out
    assert run(db, "standings") == 0
    assert named in capsys.readouterr().out
    assert run(db, "export", str(tmp_path / "out")) == 0
    out = tmp_path / "out"
    assert named in (out / "round-1.html").read_text()
    assert named in (out / "standings.html").read_text()
    assert f"% {named}" in (out / "results.wof.txt").read_text()
    data = json.loads((out / "event.json").read_text())
    assert data["extension"].startswith(named)
    assert data["rounds"][0]["notes"][0] == data["extension"]


def test_late_arrival_and_forfeit_on_the_command_line(event, tmp_path, capsys):
    assert run(event, "lottery", "--seeds", "1", "2", "3") == 0
    capsys.readouterr()
    assert run(event, "pair") == 0
    sheet = capsys.readouterr().out.splitlines()
    table, _, _, black, white = sheet[1].split(",")[:5]
    assert run(event, "late", table, white, "clock_running") == 0
    assert run(event, "late", table, white, "arrived", "--remaining", "12:30") == 0
    before = event.read_bytes()
    for args, needle in [
        (("late", table, white, "absent"), "already arrived; refusing absent"),
        (("late", table, white, "arrived", "--remaining", "12.30"), "must look like 12:30"),
        (("late", table, "Nobody", "absent"), "'Nobody' does not play there"),
        (("forfeit", table, "Nobody"), "'Nobody' does not play there"),
    ]:
        capsys.readouterr()
        assert run(event, *args) == 1, args
        assert needle in capsys.readouterr().err
        assert event.read_bytes() == before
    assert run(event, "late", table, white, "forfeit") == 0
    assert run(event, "forfeit", table, white) == 0
    assert run(event, "forfeit", table, white) == 0
    assert "same forfeit was already entered" in capsys.readouterr().out
    assert run(event, "export", str(tmp_path / "out")) == 0
    data = json.loads((tmp_path / "out" / "event.json").read_text())
    game = next(g for g in data["rounds"][0]["games"] if g["table"] == int(table))
    assert game["forfeit"] and game["winner"] == black
    assert game["late"] == {"player": white, "state": "forfeit", "remaining_ms": 750_000}
    csv_sheet = (tmp_path / "out" / "round-1.csv").read_text()
    assert f"(forfeit by {white}, not rated)" in csv_sheet
    wof = (tmp_path / "out" / "results.wof.txt").read_text()
    assert f"% {black} wins by {white}'s forfeit (not rated)" in wof
    ids = {p["name"]: p["federation_id"] for p in data["players"]}
    assert not any(line.startswith(f"{ids[black]} (") for line in wof.splitlines())
