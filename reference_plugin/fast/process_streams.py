"""Streams in worker processes (``REFERENCE_PROCESS_STREAMS``): inferences that run in parallel.

Threads cannot run REFERENCE's kernels in parallel: every numpy call gives up and takes back the
GIL, and a run makes hundreds of short calls, so two threads running the cnn anchor gain little
over one, while two processes nearly double it. With this property on, a compiled model starts
NUM_STREAMS worker processes (``python -m reference_plugin.fast.process_streams``), each with its
own :class:`~reference_plugin.compiled_model.Program` built from the compiled model's IR and BLAS
pinned to cores // streams threads. A run borrows an idle worker, sends it the inputs and the
variable state and takes back the outputs, the variable writes and, when profiling, the timings.

Everything else stays in the parent: requests, callbacks, busy and cancel (a run cancelled while
a worker computes it is dropped when it comes back). Messages are length-prefixed frames on the
worker's stdin/stdout: a JSON header and the raw bytes of plain numeric arrays, never pickle. A
worker that dies fails its run with an InferError naming its exit code and is replaced on the
next run. Workers start with the compiled model (a fresh interpreter each)
and end with it.
"""

from __future__ import annotations

import json
import os
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ovconform.errors import InferError
from ovconform.ir import Type, as_type

__all__ = ["StreamWorkers", "decode", "encode"]

_KINDS = "biuf"  # bool, signed, unsigned, float: the dtypes a Program takes and gives
#: Workers run at a lower priority, so the parent's short steps (stage hand-offs, callbacks) get
#: a core at once instead of waiting for a worker's time slice.
NICENESS = 5


def encode(header: dict[str, Any], arrays: Sequence[np.ndarray]) -> bytes:
    """``header`` (JSON) with the arrays' dtypes and shapes, then their bytes."""
    arrays = [np.asarray(a, order="C") for a in arrays]  # (ascontiguousarray would make 0-d arrays 1-d)
    for a in arrays:
        if a.dtype.kind not in _KINDS:
            raise InferError(f"a stream worker cannot carry an array of dtype {a.dtype}; numeric dtypes only.")
    meta = json.dumps({**header, "arrays": [[a.dtype.str, list(a.shape)] for a in arrays]}).encode("utf-8")
    return b"".join([struct.pack("<I", len(meta)), meta, *(a.tobytes() for a in arrays)])


def decode(message: bytes) -> tuple[dict[str, Any], list[np.ndarray]]:
    """The header and (writable) arrays of :func:`encode`'s message.

    :raises ValueError: for a message that does not have that form.
    """
    (size,) = struct.unpack_from("<I", message)
    header = json.loads(message[4:4 + size].decode("utf-8"))
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), list):
        raise ValueError("a stream message header must be a JSON object with 'arrays'")
    arrays, offset = [], 4 + size
    for dtype_str, shape in header.pop("arrays"):
        dtype = np.dtype(str(dtype_str))
        if dtype.kind not in _KINDS or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise ValueError(f"bad array entry {dtype_str!r} {shape!r}")
        count = int(np.prod(shape, dtype=np.int64))
        if offset + count * dtype.itemsize > len(message):
            raise ValueError("a stream message is shorter than its header says")
        arrays.append(np.frombuffer(message, dtype, count, offset).reshape(shape).copy())
        offset += count * dtype.itemsize
    if offset != len(message):
        raise ValueError("a stream message is longer than its header says")
    return header, arrays


def _send(stream: Any, data: bytes) -> None:
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream: Any) -> bytes:
    """One frame; EOFError when the other side has gone."""
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the stream ended")
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the stream ended inside a frame")
    return data


# -- the worker side (``python -m reference_plugin.fast.process_streams BLAS_THREADS``) -----------
def _serve(inbox: Any, outbox: Any, blas_threads: int) -> None:
    """A worker's life: build the Program from the IR it is sent, then run requests until EOF."""
    import ovconform
    from reference_plugin.compiled_model import Program
    from reference_plugin.fast.blas import set_blas_threads

    try:
        header, (xml, weights) = decode(_receive(inbox))
    except EOFError:
        return
    program = Program(ovconform.read_model(xml.tobytes(), weights.tobytes()), as_type(header["precision"]))
    set_blas_threads(blas_threads)
    while True:
        try:
            message = _receive(inbox)
        except EOFError:
            return
        header, arrays = decode(message)
        n_inputs, names = header["inputs"], header["state"]
        timings: list[Any] | None = [None] * len(program.steps) if header["timed"] else None
        try:
            outputs, writes = program.run(arrays[:n_inputs], dict(zip(names, arrays[n_inputs:], strict=True)),
                                          timings=timings, threads=blas_threads)
            reply = encode({"timings": timings, "writes": list(writes)}, [*outputs, *writes.values()])
        except Exception as e:  # noqa: BLE001 - sent back, raised in the parent
            reply = encode({"error": str(e) if isinstance(e, InferError) else f"{type(e).__name__}: {e}"}, [])
        _send(outbox, reply)


def _main() -> None:
    os.nice(NICENESS)
    outbox = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything else printed goes to stderr, never into the replies
    _serve(sys.stdin.buffer, outbox, int(sys.argv[1]))


# -- the parent side ------------------------------------------------------------------------------
class _Worker:
    def __init__(self, ir: bytes, blas_threads: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "reference_plugin.fast.process_streams", str(blas_threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _send(self.process.stdin, ir)

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        try:
            self.process.wait(2.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(2.0)


class StreamWorkers:
    """``count`` worker processes running one compiled model's IR (its streams).

    :param xml: the compiled model's IR.
    :param weights: its weights.
    :param precision: the inference precision the Programs use.
    :param count: the number of workers (NUM_STREAMS).
    :param blas_threads: BLAS threads per worker.
    :param start: start the workers now (else each starts when a request first needs it).
    """

    def __init__(self, xml: bytes, weights: bytes, precision: Type, count: int, blas_threads: int, *,
                 start: bool = True) -> None:
        self._ir = encode({"precision": str(precision)},
                          [np.frombuffer(xml, np.uint8), np.frombuffer(weights, np.uint8)])
        self._blas = blas_threads
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all: list[_Worker] = []
        self._slots = threading.BoundedSemaphore(count)
        self._lock = threading.Lock()
        self._closed = False
        for _ in range(count if start else 0):  # start now: each builds its Program meanwhile
            worker = _Worker(self._ir, self._blas)
            self._all.append(worker)
            self._idle.put(worker)

    def _borrow(self) -> _Worker:
        self._slots.acquire()
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        try:
            worker = _Worker(self._ir, self._blas)
        except BaseException:
            self._slots.release()
            raise
        with self._lock:
            self._all.append(worker)
        return worker

    def _give_back(self, worker: _Worker, healthy: bool) -> None:
        if healthy and not self._closed:
            self._idle.put(worker)
        else:
            with self._lock:
                if worker in self._all:
                    self._all.remove(worker)
            worker.close()
        self._slots.release()

    def run(self, inputs: Sequence[np.ndarray], state: dict[str, np.ndarray], *,
            timings: list[Any] | None = None,
            check: Callable[[], None] | None = None) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
        """What :meth:`Program.run` returns, computed by an idle worker (waiting for one when all
        are busy)."""
        if self._closed:
            raise InferError("the compiled model's stream workers are shut down.")
        if check is not None:
            check()
        names = list(state)
        message = encode({"inputs": len(inputs), "state": names, "timed": timings is not None},
                         [*inputs, *(state[n] for n in names)])
        worker = self._borrow()
        try:
            _send(worker.process.stdin, message)
        except OSError as e:
            self._give_back(worker, False)
            raise self._died(worker, e) from None
        return self._finish(worker, timings, check)

    def _finish(self, worker: _Worker, timings: list[Any] | None,
                check: Callable[[], None] | None) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
        healthy = False
        try:
            reply = _receive(worker.process.stdout)
            healthy = True
        except (EOFError, OSError) as e:
            raise self._died(worker, e) from None
        finally:
            self._give_back(worker, healthy)
        header, arrays = decode(reply)
        if "error" in header:
            raise InferError(str(header["error"]))
        if check is not None:
            check()  # cancelled while the worker ran: the result is dropped
        if timings is not None and header.get("timings"):
            timings[:] = [None if t is None else (float(t[0]), float(t[1])) for t in header["timings"]]
        written = header["writes"]
        outputs = arrays[:len(arrays) - len(written)]
        return outputs, dict(zip(written, arrays[len(outputs):], strict=True))

    @staticmethod
    def _died(worker: _Worker, error: BaseException) -> InferError:
        try:
            code = worker.process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        return InferError(f"the REFERENCE stream worker process (pid {worker.process.pid}) ended during the run "
                          f"(exit code {code}): {type(error).__name__}")

    def close(self) -> None:
        """End every worker (idempotent)."""
        self._closed = True
        with self._lock:
            workers, self._all = list(self._all), []
        for worker in workers:
            worker.close()

    @property
    def started(self) -> int:
        with self._lock:
            return len(self._all)


if __name__ == "__main__":
    _main()
