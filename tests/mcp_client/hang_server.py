"""A stdio server that never answers initialize, nor reads its stdin."""

from __future__ import annotations

import time

time.sleep(3600)
