"""The tournament director: lottery, leagues, pairings and standings of the
championship rules (大会方式 of the 第41期オセロ名人戦), as a pure core.

Nothing here reads a file or a clock; the command line (``kaeshi tournament``,
storage in ``controller.tournament_store``) and the hall hub both drive the same
object.  The API, in the order an event uses it::

    from controller.tournament import Player, Tournament

    t = Tournament(roster, "open", name="…")      # roster: list[Player]; division
                                                   # "open" | "women" | "children";
                                                   # extend=True: the organiser runs an
                                                   # open roster past number 138, named
                                                   # in t.extension (refused without)
    t.draw_lottery(["12345", "67890", "13579"])   # the three drawn seed ballots
    t.numbers[name] -> int                         # lottery numbers (absent too)
    t.groups[name] -> "A".."D"                     # league (open) or knock-out group

    rnd = t.pair_next_round()                      # -> Round
    rnd.number, rnd.notes                          # notes: rules relaxed, byes given
    for g in rnd.games:                            # Game
        g.table        # 1, 2, … ; None for a bye (g.second is None, already won)
        g.stage        # league | placement | knockout | semi | final | third
        g.first, g.second, g.black, g.white        # colours first/second until the
        g.toss_by      # 伏せ石 is recorded; toss_by places the disc (None: the elder)

    t.game_settings(table) -> GameSettings         # round, table, stage, black, white,
                                                   # minutes (20/15), draws (False),
                                                   # toss_by, draw_win, colour_chooser
    t.record_toss(table, black=name, draw_win=name)   # result of the 伏せ石
    t.record_result(table, "black" | "white" | "draw", discs=(b, w) | None,
                    reason="normal" | "time" | "both_flags" | "foul") -> bool
        # False when the same result was already in; a different second result,
        # an unknown table, a draw without a draw-win holder or a result that
        # cannot be true (verdict.py) raise TournamentError
    t.report_late(table, name, state, remaining_ms=None)   # rules 11–12, see
                                                   # controller.scorecard.LATE_STATES
    t.record_forfeit(table, loser)                 # 不戦敗: counted, not rated
    t.withdraw(name)                               # from the next round on
    t.standings()            # provisional ranking: list[OpenStanding] (wins,
                             # criteria 2–8, number) or list[KnockoutStanding]
    t.standings_after(r)     # the ranking as it stood after round r
    t.finished, t.final_ranking() -> list[str], award_list(t) -> list[Award]
    leaderboard(t)           # what every output shows: provisional, then final
    waiting_for(t) -> str    # what the event waits for ("" once finished)
    corrections.correct(t, {"what": …, "by": …, "why": …, …})   # the arbiter's

Every refused call raises :class:`TournamentError` (a ``KaeshiError``) naming the
table, player or line, and leaves the object unchanged.

Persistence lives at the edge, ``controller.tournament_store.store``:
``load(path) -> (EventConfig, Tournament)`` replays an event file, and
``commit(path, t, kind, payload)`` applies one action (``"lottery" {"seeds"}``,
``"pair" {}``, ``"toss" {"table", "black", "draw_win"}``, ``"result" {"table",
"outcome", "discs"}``, ``"withdraw" {"name"}``, ``"late" {"table", "player",
"state", "remaining_ms"}``, ``"forfeit" {"table", "loser"}``, ``"correct" {"what",
"by", "why", …}``) and stores it in one transaction only if the core accepted it and
nobody wrote the file since it was read (``pair=True``: with the next round's pairing
when it completes the round); ``apply(t, kind, payload)`` does the same without a
file.  A hub that commits its calls can restart at any point; while it runs it
holds the file's writer lock (``writer``).
"""

from controller.tournament.awards import Award, award_list
from controller.tournament.event import Tournament
from controller.tournament.game import Game, GameSettings, Round
from controller.tournament.model import (
    SETTINGS,
    DivisionSettings,
    Entrant,
    Player,
    TournamentError,
    settings_for,
)
from controller.tournament.pairing import PoolPairing, pair_pool
from controller.tournament.ranking import KnockoutStanding, OpenStanding

__all__ = [
    "SETTINGS",
    "Award",
    "DivisionSettings",
    "Entrant",
    "Game",
    "GameSettings",
    "KnockoutStanding",
    "OpenStanding",
    "Player",
    "PoolPairing",
    "Round",
    "Tournament",
    "TournamentError",
    "award_list",
    "pair_pool",
    "settings_for",
]
