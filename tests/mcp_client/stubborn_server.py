"""A stdio server that never answers initialize and ignores SIGTERM, as does the ``sleep`` it
starts (an ignored signal stays ignored across exec): only SIGKILL to the group ends both."""

from __future__ import annotations

import signal
import subprocess
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen(["sleep", "3600"])
time.sleep(3600)
