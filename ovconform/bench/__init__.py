"""Benchmark runner and perf-counter reports (``ovconform bench``, the ``-m perf`` suite)."""
