"""Othello engines over NBoard and GTP: Kaeshi's own, or a strong one such as Edax or
Egaroucid, for home play, hints and reviews (docs/engine.md).

Nothing is imported here, so that the pure parts (``search``, ``protocol``, ``home``)
load without the child-process machinery of ``process`` and ``client``.
"""
