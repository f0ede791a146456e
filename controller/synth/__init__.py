"""Synthetic pictures of a board: test and demo equipment, not part of the reader.

The renderer (:mod:`controller.synth.picture` and the parts it draws with) photographs
a position with exact ground truth, so that the camera reader in
:mod:`controller.vision` can be measured and the demo can play a game through a
simulated camera (:mod:`controller.synth.replay`, :mod:`controller.synth.gamevideo`).
It lives apart from the reader so that nothing the reader does can lean on how these
pictures happen to be drawn: no reading module imports from here, only the
measurement harness (:mod:`controller.measure.evaluation` and its siblings) that
draws the scenes it scores the reader on.
"""
