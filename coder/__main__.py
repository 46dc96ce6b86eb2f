import sys

from coder.cli import main

sys.exit(main())
