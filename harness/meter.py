"""What the servers of a loopback PaaS cost in CPU while a load runs (bench/scaleout.py)."""

from __future__ import annotations

import threading
from typing import Any, Self


class CpuMeter:
    """The CPU seconds each kind of process of a Stack (router.py) used while it ran: sampled every
    second from a thread (a process killed mid-run keeps what it had used at its last
    sample), so what the servers cost can be set beside what they served."""

    def __init__(self, stack: Any) -> None:
        self.stack = stack
        self.used: dict[int, tuple[str, float]] = {}
        self._base: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        import psutil

        for role, pids in self.stack.roles().items():
            for pid in pids:
                try:
                    t = psutil.Process(pid).cpu_times()
                except psutil.NoSuchProcess:
                    continue
                cpu = t.user + t.system
                self._base.setdefault(pid, cpu)
                self.used[pid] = (role, cpu - self._base[pid])

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self._sample()

    def __enter__(self) -> Self:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._sample()

    def by_role(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for role, cpu in self.used.values():
            out[role] = out.get(role, 0.0) + cpu
        return out
