"""``python -m rummyrl.web``: the web app (``rummyrl-web``)."""

import sys

from .server import main

sys.exit(main())
