"""`python -m coder.action`: the Action's step (see coder/action/step.py)."""

import sys

from coder.action.step import main

sys.exit(main())
