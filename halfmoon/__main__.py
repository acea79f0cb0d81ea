import signal
import sys

# Ctrl-C blocked while the command line loads (a KeyboardInterrupt amid these imports would
# be a traceback): main() takes a Ctrl-C from then on, one that came meanwhile too.
if hasattr(signal, "pthread_sigmask"):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

from .cli import main  # noqa: E402

sys.exit(main())
