"""Reading the squares on a fitted grid: colour, glare, discs off their centres, and the
learned square model's second opinion."""
