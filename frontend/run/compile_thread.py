"""The compile thread of tiered execution: one daemon thread running queued jobs in order."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable


class CompileWarning(UserWarning):
    """A background compile failed: the program keeps running on the eager tier."""


class Worker:
    """One daemon thread running the queued jobs in order (started on the first job)."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Callable[[], None]] = queue.Queue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def submit(self, job: Callable[[], None]) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="tsjit-compile", daemon=True)
                self.thread.start()
        self.queue.put(job)

    def _loop(self) -> None:
        while True:
            job = self.queue.get()
            with contextlib.suppress(BaseException):  # a job reports its own errors
                job()


WORKER = Worker()
