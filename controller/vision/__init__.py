"""Camera vision: finding the board in an image (``finding``), reading its squares
(``reading``), calibrating on the start position (``calibrating``) and watching a game
(``watching``); the camera set-up, the calibration file and the pipeline that ties
them together sit at the top."""
