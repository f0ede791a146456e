"""The tournament director's edge: roster and event files, the SQLite event store,
printable sheets, the WOF results text, event.json, and the random-event simulator.
The rules themselves stay in the pure core, ``controller.tournament``."""
