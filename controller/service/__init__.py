"""The service: one program from a sensor to the arbiter, clock, journal, LEDs and web page.

``config`` (typed TOML options), ``states`` (the explicit service states),
``journal`` (SQLite, for crash resume), ``core`` (the pure game: arbiter + clock),
``sources`` (sensor board, camera, replayed log), ``app`` (the wiring),
``facade`` (what the web page sees and may do), ``display`` (the terminal view),
``games`` (the finished-games folder) and ``demo`` (the demo's game and players).
"""
