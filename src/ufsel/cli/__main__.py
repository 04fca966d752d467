"""``python -m ufsel.cli``."""

import sys

from . import main

sys.exit(main())
