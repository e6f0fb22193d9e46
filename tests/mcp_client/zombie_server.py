"""A stdio server that leaves a zombie in its process group: its child exits at once and is
never reaped. The server writes the child's pid to the file its argument names, then exits
when its stdin ends, as a server should."""

from __future__ import annotations

import os
import sys

child = os.fork()
if child == 0:
    os._exit(0)
with open(sys.argv[1] + ".part", "w") as file:
    file.write(str(child))
os.rename(sys.argv[1] + ".part", sys.argv[1])  # whole when it appears
sys.stdin.buffer.read()
