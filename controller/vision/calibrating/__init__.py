"""Calibration's search: the grid on which the start position reads, and which way
round the board lies."""
