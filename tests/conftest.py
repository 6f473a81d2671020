"""Shared test setup: a private compile cache per test session, compiled calls everywhere."""

from __future__ import annotations

import os
import tempfile

# Before any tsjit import: compiled code goes to a fresh cache, so tests never trust old entries.
os.environ.setdefault("TSJIT_CACHE_DIR", tempfile.mkdtemp(prefix="tsjit-test-cache-"))
# Every call runs compiled code (compiled first when needed), as the tests check the compiler;
# tests of tiered execution ask for `compile="background"` themselves.
os.environ["TSJIT_COMPILE"] = "now"
