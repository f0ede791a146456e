"""The service: one program from a sensor to the arbiter, clock, journal, LEDs and web page.

``config`` (typed TOML options), ``states`` (the explicit service states),
``journal`` (SQLite, for crash resume), ``core`` (the pure game: arbiter + clock),
``sources`` (sensor board, camera, replayed log), ``app`` (the service, which owns one
object per part: ``intake``, ``lifecycle``, ``recovery``, ``timing``, ``outputs``,
``replay_logs``, ``facade``), ``display`` (the terminal view), ``games`` (the
finished-games folder) and ``demo`` (the demo's game and players).
"""
