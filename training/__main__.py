"""`python -m training CONFIG.yaml [--out DIR] [--resume]` (the same as `v1919 train`);
`python -m training rllib CONFIG.yaml [--address A | --num-cpus N]` (the same as `v1919 train-rllib`)."""
import sys

from v1919_env.logs import show_logs_on_terminal

show_logs_on_terminal()
if sys.argv[1:2] == ["rllib"]:
    from training.rllib.cli import main

    sys.exit(main(sys.argv[2:]))
from .cli import main

sys.exit(main())
