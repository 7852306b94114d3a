"""Task executors (``ov::threading``): the interface, an immediate executor, a streams executor
(``streams`` worker threads, each with ``threads_per_stream - 1`` helper threads for
:meth:`StreamsExecutor.parallel_for`) and an executor manager that shares idle executors.

Threads start on first use and are daemon threads; an executor that is shut down or garbage
collected stops its threads after the tasks already queued.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ovconform.errors import OVConformError, ValidationError

__all__ = [
    "ExecutorManager", "ITaskExecutor", "ImmediateExecutor", "StreamsExecutor", "StreamsExecutorConfig",
    "Task", "get_executor_manager",
]

Task = Callable[[], None]
_log = logging.getLogger("ovconform.executors")
_local = threading.local()


class ITaskExecutor(ABC):
    """Runs tasks (``ov::threading::ITaskExecutor``)."""

    @abstractmethod
    def run(self, task: Task) -> None:
        """Schedule ``task``; it must not raise (exceptions are logged and dropped)."""

    def run_and_wait(self, tasks: Sequence[Task]) -> None:
        """Run ``tasks`` and block until all are done; re-raise the first exception."""
        errors: list[BaseException] = []
        done = threading.Semaphore(0)

        def wrap(task: Task) -> Task:
            def call() -> None:
                try:
                    task()
                except BaseException as e:  # noqa: BLE001 - handed back to the caller below
                    errors.append(e)
                finally:
                    done.release()
            return call

        for t in tasks:
            self.run(wrap(t))
        for _ in tasks:
            done.acquire()
        if errors:
            raise errors[0]


class ImmediateExecutor(ITaskExecutor):
    """Runs each task at once, on the calling thread."""

    def run(self, task: Task) -> None:
        _call(task)


def _call(task: Task) -> None:
    try:
        task()
    except BaseException:  # noqa: BLE001 - an executor never lets a task kill its thread
        _log.exception("a task raised inside an executor")


@dataclass(frozen=True)
class StreamsExecutorConfig:
    """Shape of a :class:`StreamsExecutor`.

    :param name: executor name (threads are named after it; the manager shares by it).
    :param streams: parallel streams (worker threads that take tasks).
    :param threads_per_stream: threads per stream (the worker plus helpers for parallel_for).
    """

    name: str
    streams: int = 1
    threads_per_stream: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValidationError(f"executor name {self.name!r} must be a non-empty string.")
        for field_name in ("streams", "threads_per_stream"):
            value = getattr(self, field_name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(f"executor {self.name!r}: {field_name}={value!r} must be an integer >= 1.")

    @property
    def threads(self) -> int:
        return self.streams * self.threads_per_stream


class _Stream:
    """One stream: a worker thread (taking from the shared queue) and its helper threads."""

    def __init__(self, owner: _Pool, stream_id: int) -> None:
        self.owner = owner
        self.stream_id = stream_id
        self.helpers: queue.SimpleQueue[Task | None] = queue.SimpleQueue()
        self.n_helpers = owner.config.threads_per_stream - 1


class _Pool:
    """The threads of a StreamsExecutor; shared with its finalizer (never references the executor)."""

    def __init__(self, config: StreamsExecutorConfig) -> None:
        self.config = config
        self.tasks: queue.SimpleQueue[Task | None] = queue.SimpleQueue()
        self.streams = [_Stream(self, i) for i in range(config.streams)]
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()
        self.stopped = False

    def start(self) -> None:
        with self.lock:
            if self.threads or self.stopped:
                return
            for s in self.streams:
                self._spawn(_stream_main, s, f"{self.config.name}_s{s.stream_id}")
                for h in range(s.n_helpers):
                    self._spawn(_helper_main, s, f"{self.config.name}_s{s.stream_id}_h{h + 1}")

    def _spawn(self, fn: Callable[[_Stream], None], stream: _Stream, name: str) -> None:
        t = threading.Thread(target=fn, args=(stream,), name=name, daemon=True)
        t.start()
        self.threads.append(t)

    def stop(self, wait: bool) -> None:
        with self.lock:
            if self.stopped:
                return
            self.stopped = True
            started = bool(self.threads)
        if started:
            for s in self.streams:
                self.tasks.put(None)
                for _ in range(s.n_helpers):
                    s.helpers.put(None)
        if wait:
            me = threading.current_thread()
            for t in self.threads:
                if t is not me:
                    t.join()


def _stream_main(stream: _Stream) -> None:
    _local.stream = stream
    tasks = stream.owner.tasks
    while (task := tasks.get()) is not None:
        _call(task)
        del task


def _helper_main(stream: _Stream) -> None:
    _local.stream = stream
    while (task := stream.helpers.get()) is not None:
        _call(task)
        del task


class StreamsExecutor(ITaskExecutor):
    """A pool of ``streams`` workers, each with ``threads_per_stream - 1`` helper threads.

    Tasks run on any free stream, in FIFO order. Inside a task, :meth:`parallel_for` spreads
    work over the current stream's threads.

    :param config: the executor's name, streams and threads per stream.
    """

    def __init__(self, config: StreamsExecutorConfig) -> None:
        self._config = config
        self._pool = _Pool(config)
        self._leases = 0
        self._orphan = False
        self._lease_lock = threading.Lock()
        weakref.finalize(self, self._pool.stop, False)

    @property
    def config(self) -> StreamsExecutorConfig:
        return self._config

    @property
    def name(self) -> str:
        return self._config.name

    @property
    def is_shut_down(self) -> bool:
        return self._pool.stopped

    def run(self, task: Task) -> None:
        if self._pool.stopped:
            raise OVConformError(f"executor {self.name!r} is shut down; it takes no more tasks.")
        self._pool.start()
        self._pool.tasks.put(task)

    def parallel_for(self, count: int, body: Callable[[int], None]) -> None:
        """Call ``body(i)`` for ``i`` in ``range(count)`` on the current stream's threads
        (serially when called from outside this executor); re-raise the first exception."""
        stream = getattr(_local, "stream", None)
        if stream is None or stream.owner is not self._pool or stream.n_helpers == 0 or count < 2:
            for i in range(count):
                body(i)
            return
        counter, lock = itertools.count(), threading.Lock()
        errors: list[BaseException] = []

        def work() -> None:
            while True:
                with lock:
                    i = next(counter)
                if i >= count or errors:
                    return
                try:
                    body(i)
                except BaseException as e:  # noqa: BLE001 - re-raised on the caller below
                    errors.append(e)

        helpers = min(stream.n_helpers, count - 1)
        finished = threading.Semaphore(0)

        def helper_work() -> None:
            work()
            finished.release()

        for _ in range(helpers):
            stream.helpers.put(helper_work)
        work()
        for _ in range(helpers):
            finished.acquire()
        if errors:
            raise errors[0]

    @staticmethod
    def get_stream_id() -> int:
        """The stream id of the calling thread, or -1 outside any streams executor."""
        stream = getattr(_local, "stream", None)
        return -1 if stream is None else stream.stream_id

    def shutdown(self, wait: bool = True) -> None:
        """Stop taking tasks; threads exit after the tasks already queued."""
        self._pool.stop(wait)

    # -- leases (used by ExecutorManager to tell idle executors) ------------------------------
    def acquire(self) -> None:
        with self._lease_lock:
            self._leases += 1

    def release(self) -> None:
        with self._lease_lock:
            self._leases = max(0, self._leases - 1)
            done = self._leases == 0 and self._orphan
        if done:
            self.shutdown(wait=False)

    @property
    def in_use(self) -> bool:
        with self._lease_lock:
            return self._leases > 0

    def _orphaned(self) -> None:
        with self._lease_lock:
            self._orphan = True
            idle = self._leases == 0
        if idle:
            self.shutdown(wait=False)

    def __repr__(self) -> str:
        c = self._config
        return f"<StreamsExecutor {c.name!r} streams={c.streams} threads_per_stream={c.threads_per_stream}>"


class ExecutorManager:
    """Shares executors: named ones by name, streams executors while idle (no lease held)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._named: dict[str, StreamsExecutor] = {}
        self._streams: list[StreamsExecutor] = []
        # Clears requested by finalizers. A finalizer may run inside the garbage collector on a
        # thread that already holds self._lock (or an executor's lease lock): it must take no lock,
        # so it only enqueues (SimpleQueue.put is reentrant) and the next manager call drains.
        self._deferred: queue.SimpleQueue[str] = queue.SimpleQueue()

    def clear_deferred(self, name: str) -> None:
        """Forget executors called ``name`` at the next manager call; safe inside finalizers."""
        self._deferred.put(name)

    def _drain(self) -> None:
        while True:
            try:
                name = self._deferred.get_nowait()
            except queue.Empty:
                return
            self.clear(name)

    def get_executor(self, name: str) -> StreamsExecutor:
        """The single-stream executor called ``name`` (created on first request, then shared)."""
        self._drain()
        with self._lock:
            ex = self._named.get(name)
            if ex is None or ex.is_shut_down:
                ex = self._named[name] = StreamsExecutor(StreamsExecutorConfig(name))
            return ex

    def get_idle_cpu_streams_executor(self, config: StreamsExecutorConfig) -> StreamsExecutor:
        """An executor with ``config`` that nobody holds a lease on, or a new one; the caller
        gets a lease and must :meth:`StreamsExecutor.release` it when done."""
        self._drain()
        with self._lock:
            for ex in self._streams:
                if ex.config == config and not ex.in_use and not ex.is_shut_down:
                    ex.acquire()
                    return ex
            ex = StreamsExecutor(config)
            ex.acquire()
            self._streams.append(ex)
            return ex

    def clear(self, name: str | None = None) -> None:
        """Forget executors called ``name`` (all when None); idle ones stop now, the others
        when their last lease is released."""
        with self._lock:
            named = [n for n in self._named if name is None or n == name]
            dropped = [self._named.pop(n) for n in named]
            keep = [ex for ex in self._streams if name is not None and ex.name != name]
            dropped += [ex for ex in self._streams if ex not in keep]
            self._streams = keep
        for ex in dropped:
            ex._orphaned()

    def executors_number(self) -> int:
        self._drain()
        with self._lock:
            return len(self._named) + len(self._streams)

    def names(self) -> list[str]:
        self._drain()
        with self._lock:
            return sorted({*self._named, *(ex.name for ex in self._streams)})


_MANAGER = ExecutorManager()


def get_executor_manager() -> ExecutorManager:
    """The process-wide executor manager (``ov::threading::executor_manager()``)."""
    return _MANAGER
