"""Corrupt files give a RecordError naming what is wrong — never any other exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.records import RecordError, read_ggf_text
from controller.records.files import scan_file
from controller.records.ggf import scan_ggf_text
from controller.records.jsonform import dumps, scan_json_text
from controller.records.transcript import scan_transcripts
from controller.records.wthor import scan_wthor_bytes

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def wtb_bytes(data_dir: Path) -> bytes:
    return (data_dir / "games" / "wthor" / "WTH_1977.wtb").read_bytes()


@pytest.fixture(scope="module")
def ggf_text(data_dir: Path) -> str:
    return (data_dir / "games" / "ggf" / "ntest_TestGames.ggf").read_text()


def only_record_errors(read, *args) -> None:  # noqa: ANN001
    """Run a reader; a RecordError must name the source, anything else fails the test."""
    try:
        scan = read(*args)
    except RecordError as exc:
        assert str(exc).startswith("fuzz"), exc
        return
    for entry in scan.games:
        assert (entry.game is None) != (entry.error is None)
        if entry.error is not None:
            assert str(entry.error).startswith("fuzz: game "), entry.error


@st.composite
def mutated(draw: st.DrawFn, original: bytes) -> bytes:
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["set", "delete", "insert"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "set" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete" and data:
            del data[at]
        else:
            data.insert(at, draw(st.integers(0, 255)))
    return bytes(data)


# ------------------------------------------------------------------- WTHOR
@FUZZ
@given(st.binary(max_size=400))
def test_wthor_random_bytes(data):
    only_record_errors(scan_wthor_bytes, data, "fuzz", ["a"], ["b"])


@FUZZ
@given(st.data())
def test_wthor_truncated_real_file(wtb_bytes, data):
    cut = data.draw(st.integers(0, len(wtb_bytes)))
    only_record_errors(scan_wthor_bytes, wtb_bytes[:cut], "fuzz", None, None)


@FUZZ
@given(st.data())
def test_wthor_mutated_real_file(wtb_bytes, data):
    only_record_errors(scan_wthor_bytes, data.draw(mutated(wtb_bytes)), "fuzz", ["x"] * 5, [])


# --------------------------------------------------------------------- GGF
@FUZZ
@given(st.text(max_size=300))
def test_ggf_random_text(text):
    only_record_errors(scan_ggf_text, text, "fuzz")


@FUZZ
@given(st.text(alphabet="(;)[]\\/BWOPA*-+:.0123456789 abcdefgh\n", max_size=300))
def test_ggf_random_text_from_its_own_alphabet(text):
    only_record_errors(scan_ggf_text, "(;" + text, "fuzz")


@FUZZ
@given(st.data())
def test_ggf_truncated_real_file(ggf_text, data):
    cut = data.draw(st.integers(0, len(ggf_text)))
    only_record_errors(scan_ggf_text, ggf_text[:cut], "fuzz")


@FUZZ
@given(st.data())
def test_ggf_mutated_real_file(ggf_text, data):
    raw = data.draw(mutated(ggf_text.encode()))
    only_record_errors(scan_ggf_text, raw.decode("latin-1"), "fuzz")


# ------------------------------------------------------- JSON, transcripts
@pytest.fixture(scope="module")
def json_text(ggf_text: str) -> str:
    return dumps(read_ggf_text(ggf_text)[:2])


@FUZZ
@given(st.data())
def test_json_mutated(json_text, data):
    raw = data.draw(mutated(json_text.encode()))
    only_record_errors(scan_json_text, raw.decode("latin-1"), "fuzz")


@FUZZ
@given(st.text(max_size=200))
def test_transcript_random_text(text):
    only_record_errors(scan_transcripts, text, "fuzz")


@FUZZ
@given(st.binary(max_size=300), st.sampled_from([".wtb", ".ggf", ".txt", ".json"]))
def test_any_file_through_the_loader(tmp_path_factory, data, ext):
    path = tmp_path_factory.mktemp("fuzz") / f"fuzz{ext}"
    path.write_bytes(data)
    try:
        scan_file(path)
    except RecordError as exc:
        assert str(path) in str(exc)
