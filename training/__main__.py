"""`python -m training CONFIG.yaml [--out DIR] [--resume]` (the same as `v1919 train`)."""
import sys

from .cli import main

sys.exit(main())
