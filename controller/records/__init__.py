"""Game records: one model, read and written in the formats Othello players use."""

from controller.records.model import GameRecord, Move, RecordError

__all__ = ["GameRecord", "Move", "RecordError"]
