"""``python -m controller.synth``: render a picture or a game video (see
:func:`controller.synth.picture.main`)."""

import sys

from controller.synth.picture import main

sys.exit(main())
