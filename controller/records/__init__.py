"""Game records: one model, read and written in the formats Othello players use.

``load_games(path)`` / ``save_games(games, path)`` pick the format by extension:
``.wtb`` (WTHOR), ``.ggf`` (GGF), ``.txt`` (transcripts), ``.json`` (lossless).
"""

from controller.records.files import load_games, save_games, scan_file
from controller.records.ggf import read_ggf, read_ggf_text, write_ggf, write_ggf_games
from controller.records.jsonform import dumps as games_to_json
from controller.records.jsonform import loads as games_from_json
from controller.records.model import GameRecord, Move, RecordError
from controller.records.transcript import parse_transcript, transcript
from controller.records.wthor import read_wthor, write_wthor

__all__ = [
    "GameRecord",
    "Move",
    "RecordError",
    "games_from_json",
    "games_to_json",
    "load_games",
    "parse_transcript",
    "read_ggf",
    "read_ggf_text",
    "save_games",
    "scan_file",
    "transcript",
    "read_wthor",
    "write_ggf",
    "write_ggf_games",
    "write_wthor",
]
