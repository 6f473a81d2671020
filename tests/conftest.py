"""Shared test setup: a private compile cache per test session."""

from __future__ import annotations

import os
import tempfile

# Before any tsjit import: compiled code goes to a fresh cache, so tests never trust old entries.
os.environ.setdefault("TSJIT_CACHE_DIR", tempfile.mkdtemp(prefix="tsjit-test-cache-"))
