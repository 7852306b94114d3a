"""Does worker start-up stay out of ``ovconform bench``'s latencies? (issue #25's acceptance: on cnn,
with REFERENCE's streams in worker processes, the largest latency < 10x the median.)

Runs cnn on REFERENCE (REFERENCE_PROCESS_STREAMS, 2 streams, 2 requests, async, -niter 100) in a
fresh process each time, alternately with the warm-up of every request (what ``ovconform bench``
does, as benchmark_app does) and without it (the runner's warm-up replaced by nothing: how it ran
before), and writes ``benchmarks/results/warmup_latency.{json,md}``.

    python benchmarks/warmup_latency.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

_ONE = """
import json, sys
from ovconform import Core
from ovconform.bench import runner
from ovconform.bench.models import resolve_model
from ovconform.bench.runner import BenchConfig, run_benchmark
if sys.argv[1] == "off":
    runner._warm_up = lambda requests, history: 0.0
config = BenchConfig(niter=100, api="async", nireq=2, nstreams=2, hint="none",
                     properties={"REFERENCE_PROCESS_STREAMS": True})
r = run_benchmark(Core(), "REFERENCE", resolve_model("cnn"), config)
s = r.stats
print(json.dumps({"max_ms": s.max_ms, "median_ms": s.median_ms, "first_inference_ms": r.first_inference_ms,
                  "warmup_ms": r.warmup_ms, "count": s.count}))
"""


def _run(mode: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _ONE, mode], capture_output=True, text=True, check=True, timeout=600)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    for i in range(args.repeats):
        for mode in ("on", "off"):  # alternately, each in its own process
            r = _run(mode)
            rows.append({"run": i, "warm_up": mode, **r, "max_over_median": r["max_ms"] / r["median_ms"]})
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "warmup_latency.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = ["# Worker start-up and bench latencies (cnn, REFERENCE_PROCESS_STREAMS, 2 requests, -niter 100)", "",
             "Made by `python benchmarks/warmup_latency.py`.", "",
             "| run | warm-up | median ms | max ms | max / median | first inference ms | warm-up ms |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['run']} | {r['warm_up']} | {r['median_ms']:.2f} | {r['max_ms']:.2f} | {r['max_over_median']:.1f} "
              f"| {r['first_inference_ms']:.1f} | {r['warmup_ms']:.1f} |" for r in rows]
    (RESULTS / "warmup_latency.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
