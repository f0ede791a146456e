"""Rosters as organisers have them: Shift_JIS from Excel, names typed two ways,
ranks and birth years checked, formula-like names kept as text in the CSV sheets,
federation IDs for the rating file."""

from __future__ import annotations

import csv
import io
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.tournament.event import Tournament
from controller.tournament_store import formats
from controller.tournament_store.roster import (
    decode_roster,
    fold_name,
    parse_roster,
)

HEADER = "name,rank,club,seed,absent,born\n"


def test_a_shift_jis_roster_from_excel_is_read():
    text = HEADER + "山田 太郎,三段,東京,,,1970\n鈴木 花子,2級,大阪,,,1985-04-01\n"
    players = parse_roster(decode_roster(text.encode("cp932"), "p.csv"), "p.csv")
    assert [(p.name, p.rank, p.club) for p in players] == [
        ("山田 太郎", "三段", "東京"), ("鈴木 花子", "2級", "大阪")]
    bom = decode_roster(b"\xef\xbb\xbf" + text.encode("utf-8"), "p.csv")
    assert bom == text


def test_bytes_neither_encoding_reads_are_refused_naming_the_line():
    data = (HEADER + "Ann,,,,,\n").encode() + b"Bob \x80\xff,,,,,\n"
    with pytest.raises(Exception, match=r"p.csv line 3: byte 0x80 is neither UTF-8 nor "
                                        r"Shift_JIS; save the file as \"CSV UTF-8\""):
        decode_roster(data, "p.csv")


@pytest.mark.parametrize(("a", "b"), [("山田　太郎", "山田 太郎"), ("Ann", "Ａｎｎ"),
                                      ("Ann  Lee", " Ann Lee"), ("ann", "ANN"),
                                      ("ｶﾞｸ", "ガク")])
def test_names_typed_two_ways_are_one_name(a, b):
    with pytest.raises(Exception, match=r"line 3: duplicate name .* \(first on line 2"):
        parse_roster(f"{HEADER}{a},,,,,\n{b},,,,,\n", "p.csv")


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")), min_size=1,
               max_size=12).filter(lambda s: fold_name(s) != ""))
def test_folding_is_stable_and_spaces_never_tell_names_apart(name):
    folded = fold_name(name)
    assert fold_name(folded) == folded
    assert fold_name("　" + name.replace(" ", "　　") + " ") == fold_name(
        unicodedata.normalize("NFKC", name))


@pytest.mark.parametrize(("cell", "needle"), [
    ("rank=九十段", "the rank '九十段' is not one of 1–9段 or 1–20級"),
    ("rank=90段", "the rank '90段' is not"),
    ("rank=3 dan", None),
    ("rank=初段", None),
    ("rank=３段", None),
    ("born=2030-13-45", "born must be a year (1975) or a date"),
    ("born=1850", "born '1850' is before 1900"),
    ("born=2022", "born '2022' is after the event's date 2021-07-18"),
    ("born=1970-02-30", "born must be a year"),
])
def test_ranks_and_birth_years_are_checked(cell, needle):
    column, value = cell.split("=")
    row = {"rank": "", "born": ""} | {column: value}
    text = f"{HEADER}Ann,{row['rank']},,,,{row['born']}\n"
    if needle is None:
        assert parse_roster(text, "p.csv", "2021-07-18")[0].name == "Ann"
    else:
        with pytest.raises(Exception, match="p.csv line 2: " + needle.replace("(", r"\(")
                           .replace(")", r"\)")):
            parse_roster(text, "p.csv", "2021-07-18")


def test_formula_like_names_stay_text_in_every_csv_sheet():
    names = ["=cmd|calc", "+1", "-2", "@SUM(A1)", "Ann", "Bob", "Cy", "Di"]
    roster = parse_roster(HEADER + "".join(f"{n},,,,,\n" for n in names), "p.csv")
    t = Tournament(roster, "open", "x", extend=True)
    t.draw_lottery(["1", "2", "3"])
    rnd = t.pair_next_round()
    for sheet in (formats.pairing_sheet(t, rnd, "csv"), formats.standings_sheet(t, "csv")):
        cells = [c for row in csv.reader(io.StringIO(sheet)) for c in row]
        assert not any(c[:1] in "=+-@" for c in cells if c)
        assert "'=cmd|calc" in cells and "'@SUM(A1)" in cells


def test_the_rating_file_uses_federation_ids_and_warns_without_them(tmp_path, capsys):
    (tmp_path / "e.toml").write_text('name = "T"\ndate = "2021-07-18"\nextend = true\n',
                                      encoding="utf-8")
    lines = ["name,rank,federation_id,romanised,country"]
    lines += [f"選手{k},{k % 3 + 1}段,{'' if k == 0 else 3000 + k},Player {k},jpn"
              for k in range(8)]
    (tmp_path / "r.csv").write_bytes(("\n".join(lines) + "\n").encode("cp932"))
    db = str(tmp_path / "t.sqlite")
    run = lambda *a: main(["tournament", "--db", db, *a])  # noqa: E731
    assert run("new", str(tmp_path / "e.toml"), "--roster", str(tmp_path / "r.csv")) == 0
    assert run("lottery", "--seeds", "1", "2", "3") == 0
    assert run("pair") == 0
    for table in range(1, 5):
        assert run("result", str(table), "black", "--discs", "40-24") == 0
    capsys.readouterr()
    assert run("export", str(tmp_path / "out")) == 0
    assert "warning: results.wof.txt: no federation ID for 1 player(s) (選手0)" in \
        capsys.readouterr().err
    wof = (tmp_path / "out" / "results.wof.txt").read_text().splitlines()
    assert "% 3001 選手1 / Player 1 (JPN) #" in "\n".join(wof)
    rated = [line for line in wof if not line.startswith("%")]
    assert len(rated) == 3 and all(line.split()[0].startswith("300") for line in rated)
    assert any(line.startswith("% no federation ID: ") and "選手0" in line for line in wof)
    assert any("draw-win right" in line for line in wof[:8])
    assert wof[2] == "%%Date: 18/07/2021"


JAPANESE = st.characters(min_codepoint=0x3041, max_codepoint=0x30F6) | st.sampled_from(
    "山田太郎鈴木花子佐藤一二三東京大阪　")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(JAPANESE, min_size=1, max_size=6), min_size=1, max_size=6),
       st.sampled_from(["utf-8", "utf-8-sig", "cp932"]))
def test_a_roster_reads_back_the_same_in_either_encoding(names, encoding):
    text = HEADER + "".join(f"{n},,,,,\n" for n in names)
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return  # a character CP932 has no code for: Excel could not have saved it
    assert decode_roster(data, "p.csv") == text
