"""Finding the board: its outline from the felt, the lattice, the edges and the discs,
and the 8x8 grid fitted on it."""
