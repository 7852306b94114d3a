"""Benchmark runner and perf-counter reports (``ovconform bench``, the ``-m perf`` suite).

Modules: :mod:`~ovconform.bench.models` (zoo, perf anchors, IR files by name),
:mod:`~ovconform.bench.inputs` (fixed or seeded random input sets), :mod:`~ovconform.bench.runner`
(benchmark_app's flow: compile, first inference, sync/async loop, counters),
:mod:`~ovconform.bench.stats` (percentiles, throughput), :mod:`~ovconform.bench.steps` (a step
sequence on one request: a decoder's prefill and decode steps), :mod:`~ovconform.bench.counters`
(report types, original-op mapping, consistency checks), :mod:`~ovconform.bench.flops` (FLOPs and
MACs per op), :mod:`~ovconform.bench.report` (benchmark_app's CSV/JSON files, the perf document),
:mod:`~ovconform.bench.compare` (device ratios), :mod:`~ovconform.bench.blas` (BLAS threads),
:mod:`~ovconform.bench.progress`, :mod:`~ovconform.bench.cli` and the pytest gate
:mod:`~ovconform.bench.pytest_perf`.
"""
