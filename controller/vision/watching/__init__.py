"""Watching a game: frame after frame on a fixed grid, settling squares, and moving the
grid only when the camera moved."""
