"""``ovconform.bench.steps``: a step sequence timed on one request (what ``ovconform bench`` times a
decoder with, and ``benchmarks/architectures.py`` every architecture): the order of resets, inputs,
inferences and the ``after`` hook, warm-up runs left out, and the decoder summary."""

from __future__ import annotations

import pytest

from ovconform.bench.steps import decode_summary, time_steps
from ovconform.errors import ValidationError


class _Request:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def reset_state(self) -> None:
        self.log.append("reset")

    def infer(self) -> None:
        self.log.append("infer")


@pytest.mark.parametrize("reset", [True, False])
def test_each_run_sets_each_steps_inputs_before_its_timed_inference(reset: bool) -> None:
    log: list[str] = []
    runs = time_steps(_Request(log), lambda i: log.append(f"set {i}"), 2, 2, warmup=1, reset=reset,
                      after=lambda i: log.append(f"after {i}"))
    one = ["set 0", "infer", "set 1", "infer"]
    timed = ["set 0", "infer", "after 0", "set 1", "infer", "after 1"]
    first = ["reset"] if reset else []
    assert log == [*first, *one, *first, *timed, *first, *timed]  # the warm-up run has no after()
    assert len(runs) == 2 and all(len(r) == 2 and min(r) >= 0 for r in runs)


@pytest.mark.parametrize(("steps", "rounds", "warmup", "bad"), [(0, 1, 0, "steps"), (1, 0, 0, "rounds"),
                                                                (1, 1, -1, "warmup"), (True, 1, 0, "steps")])
def test_counts_are_checked(steps: int, rounds: int, warmup: int, bad: str) -> None:
    with pytest.raises(ValidationError, match=rf"^{bad} must be an integer >= \d, not "):
        time_steps(_Request([]), lambda i: None, steps, rounds, warmup=warmup)


def test_decode_summary_takes_the_prefill_and_the_decode_steps_apart() -> None:
    doc = decode_summary([[10.0, 1.0, 2.0], [12.0, 3.0, 1.5], [11.0, 2.0, 2.5]])
    assert doc == {"rounds": 3, "steps": 2, "prefill_ms": 11.0, "prefill_ms_all": [10.0, 12.0, 11.0],
                   "step_ms": [2.0, 2.0], "decode_median_ms": 2.0, "decode_tokens_per_s": 500.0}
    for runs in ([], [[1.0]], [[1.0, 2.0], [1.0]]):
        with pytest.raises(ValidationError, match="lengths"):
            decode_summary(runs)
