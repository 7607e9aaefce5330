"""``python -m rummyrl.web``: the web app (``rummyrl-web``)."""

import sys

from . import main

sys.exit(main())
