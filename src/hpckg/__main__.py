"""`python -m hpckg`: the same as the `hpckg` command."""

import sys

from hpckg.cli import main

sys.exit(main())
