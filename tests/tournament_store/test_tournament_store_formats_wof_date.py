"""The WOF rating file's ``%%Date:`` line: the event's day, read strictly from
event.toml, given to a simulated event, and no file at all without a real day."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli import main
from controller.tournament.event import Tournament
from controller.tournament.model import Player, TournamentError
from controller.tournament_store import formats
from controller.tournament_store.roster import EventConfig, check_date, parse_event


def _header(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[:4]


@pytest.mark.parametrize(("extra", "shown"), [([], "18/07/2021"),
                                              (["--date", "2022-03-05"], "05/03/2022")])
def test_a_simulated_event_without_the_hall_has_its_day_in_the_wof_file(tmp_path, extra, shown):
    assert main(["tournament", "simulate", "--players", "20", "--extend",
                 "--out", str(tmp_path), *extra]) == 0
    assert _header(tmp_path / "results.wof.txt")[2] == f"%%Date: {shown}"


def test_a_simulation_with_a_day_not_in_the_calendar_writes_nothing(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["tournament", "simulate", "--players", "20", "--extend",
                 "--out", str(out), "--date", "2021-02-30"]) == 1
    assert "--date: date '2021-02-30' is not a day of the calendar" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(("line", "why"), [
    ('date = "18/07/2021"', "YYYY-MM-DD (2021-07-18), not '18/07/2021'"),
    ('date = "2021-7-18"', "YYYY-MM-DD"),
    ('date = "2021-13-01"', "not a day of the calendar"),
    ('date = "2021-02-29"', "not a day of the calendar"),
    ("date = 20210718", "YYYY-MM-DD (2021-07-18), not 20210718"),
    ("date = 2021-07-18T10:00:00", "not a time of day"),
    ('date = "２０２１-07-18"', "YYYY-MM-DD"),
])
def test_event_toml_refuses_a_date_that_is_not_a_day(line, why):
    with pytest.raises(TournamentError, match="event.toml: date") as exc:
        parse_event(f'name = "T"\n{line}\n', "event.toml")
    assert why in str(exc.value)


@pytest.mark.parametrize(("line", "date"), [("date = 2021-07-18", "2021-07-18"),
                                            ('date = "2024-02-29"', "2024-02-29"), ("", "")])
def test_event_toml_takes_a_toml_date_a_string_of_one_or_none(line, date):
    assert parse_event(f'name = "T"\n{line}\n', "event.toml").date == date


@given(st.text(max_size=12))
def test_the_wof_file_is_written_only_with_a_day_it_can_name(date):
    """Whatever the stored date, the WOF file carries it as DD/MM/YYYY or is refused."""
    t = Tournament([Player(f"P{k}") for k in range(8)], "open", "T", True)
    t.draw_lottery(["1", "2", "3"])
    try:
        text = formats.wof_results(t, EventConfig("T", "open", date, extend=True))
    except TournamentError as exc:
        assert str(exc).startswith("results.wof.txt: ")
        with pytest.raises(TournamentError):
            check_date(date, "x", needed=True)
        return
    y, m, d = check_date(date, "x", needed=True).split("-")
    assert text.splitlines()[2] == f"%%Date: {d}/{m}/{y}"


def test_an_event_without_a_date_exports_its_sheets_but_no_wof_file(tmp_path, capsys):
    (tmp_path / "e.toml").write_text('name = "T"\nextend = true\n', encoding="utf-8")
    (tmp_path / "r.csv").write_text("name\n" + "".join(f"P{k}\n" for k in range(8)),
                                    encoding="utf-8")
    db = str(tmp_path / "t.sqlite")
    run = lambda *a: main(["tournament", "--db", db, *a])  # noqa: E731
    assert run("new", str(tmp_path / "e.toml"), "--roster", str(tmp_path / "r.csv")) == 0
    assert run("lottery", "--seeds", "1", "2", "3") == 0
    assert run("pair") == 0
    out = tmp_path / "out"
    capsys.readouterr()
    assert run("export", str(out)) == 1
    err = capsys.readouterr().err
    assert "results.wof.txt: the event has no date" in err
    assert "export --date YYYY-MM-DD" in err
    assert (out / "event.json").exists() and (out / "round-1.html").exists()
    assert not (out / "results.wof.txt").exists()
    assert run("export", str(out), "--date", "2021-31-07") == 1
    assert "--date: date '2021-31-07' is not a day of the calendar" in capsys.readouterr().err
    assert not (out / "results.wof.txt").exists()
    assert run("export", str(out), "--date", "2021-07-18") == 0
    assert _header(out / "results.wof.txt")[2] == "%%Date: 18/07/2021"
