"""Camera vision: finding the board in an image, reading its squares, and rendering
synthetic camera images with exact ground truth to test both against."""
