"""Hall-sensor calibration: measure every square, derive thresholds, store them."""
