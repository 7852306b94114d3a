"""ovconform's pytest plugin (loaded through the ``pytest11`` entry point).

Without ``--plugin`` it only adds its options and markers: nothing else in a run changes.
With ``--plugin X`` (repeatable) it resolves X to devices, parametrizes every test that uses the
device fixtures over them, collects the installed suites (``ovconform.suites``) when no test
paths are given, attaches one result record to each test report, and — on the controller — writes
``<report-dir>/<DEVICE>/conformance.json`` and prints a summary.

Fixtures for suites (the documented contract):

- ``ov_device_name``: the device under test (``"REFERENCE"``), one parametrization per device.
- ``ov_core``: a fresh :class:`ovconform.Core` (discovery off) with only that device registered.
- ``ov_plugin``: the device's plugin object, from ``ov_core``.
- ``ov_plugin_spec``: the ``--plugin`` value the device came from (to re-create it in a subprocess).
- ``ov_capabilities`` / ``ov_supported_properties``: what the device declares.
- ``record_ov_fact(name, value)``: add a JSON-able fact to this test's record.

Markers: ``entity(name)`` (ov_plugin / ov_compiled_model / ov_infer_request / op / model / graph / perf),
``mandatory`` (default scope is optional), ``capability(NAME)`` and ``requires_property(NAME)``
(skip with a reason naming the device, what is missing and where that came from).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from ovconform.errors import ExpectationError, PluginValidationError
from ovconform.host import expectations as _expectations
from ovconform.host.plugin_specs import DeviceUnderTest, PluginSpecError, resolve
from ovconform.reports import collection as _collection
from ovconform.reports import records as _records
from ovconform.reports import shard as _shard
from ovconform.reports.session import ConformanceReport
from ovconform.reports.watchdog import ExitGuard, Watchdog, grace

devices_key = pytest.StashKey[list[DeviceUnderTest]]()
declared_key = pytest.StashKey[dict[str, tuple[set[str], dict[str, str]]]]()

MARKERS = (
    "entity(name): the conformance entity a test belongs to (ov_plugin, ov_compiled_model, ov_infer_request, "
    "op, model, graph, perf)",
    "mandatory: the test is in the mandatory scope (a conformant device passes it)",
    "capability(name): skip unless the device lists NAME in OPTIMIZATION_CAPABILITIES",
    "requires_property(name): skip unless the device lists NAME in SUPPORTED_PROPERTIES",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ovconform")
    group.addoption(
        "--plugin", action="append", default=[], dest="ovconform_plugins", metavar="X",
        help="Run the conformance suites against device plugin X (entry-point or device name, "
             "module:attr, path to a .py file, or openvino:DEVICE). Repeatable.",
    )
    group.addoption(
        "--ovconform-report-dir", default="reports", metavar="DIR",
        help="Folder for the reports; each device gets DIR/<DEVICE>/conformance.json (default: reports).",
    )
    group.addoption(
        "--ovconform-expectations", action="append", default=[], metavar="FILE",
        help="Expectation file (a path, or the name of a file bundled with the suites, e.g. openvino-CPU): "
             "test-id patterns with a reason each; matching tests are expected to fail. Repeatable.",
    )
    group.addoption(
        "--ovconform-update-expectations", action="store_true", default=False,
        help="Prune expectation entries whose tests now pass, but only when no unexpected failure occurred.",
    )
    group.addoption(
        "--ovconform-examples", type=int, default=None, dest="ovconform_examples", metavar="N",
        help="Generated cases per op type and version in the op conformance suite (default 10; "
             "the environment variable OVCONFORM_EXAMPLES works too).",
    )
    group.addoption(
        "--ovconform-depth", default=None, choices=("quick", "standard", "exhaustive"), dest="ovconform_depth",
        help="How deep the op conformance suite goes: quick (the generated cases only), standard (the default: "
             "also vector remainders, large shapes, hard values, every element type the spec allows, dynamic "
             "shapes) or exhaustive (nightly). The environment variable OVCONFORM_DEPTH works too.",
    )
    group.addoption(
        "--ovconform-shard", default=None, dest="ovconform_shard", metavar="I/N",
        help="Run only shard I of N (1 <= I <= N): the device tests split deterministically by test id, for "
             "machines or CI jobs; 'ovconform report merge' of the N reports equals the unsharded run's.",
    )
    group.addoption(
        "--ovconform-models", default=None, choices=("quick", "full"), dest="ovconform_models",
        help="Which real architectures the model suite runs (ovconform models lists them): quick (the default: "
             "the small decoder and the smaller CNNs) or full (every architecture at its real size; nightly).",
    )
    group.addoption(
        "--ovconform-model", action="append", default=[], dest="ovconform_model", metavar="PATH",
        help="Also run this model file through the model suite (device vs REFERENCE, first diverging op, "
             "repro): IR v11 .xml, or .onnx/.pb/.tflite/.pdmodel through OpenVINO's frontends. Repeatable.",
    )
    group.addoption(
        "--ovconform-model-inputs", action="append", default=[], dest="ovconform_model_inputs", metavar="FILE",
        help="Inputs for the --ovconform-model of the same position: .npy (one Parameter) or .npz (keyed by "
             "Parameter name, or s<step>__<name> for several steps). Default: drawn from the declared shapes.",
    )
    group.addoption(
        "--ovconform-test-timeout", type=float, default=300.0, metavar="SECONDS",
        help="Per-test timeout when testing a device (through pytest-timeout when it is loaded, else ovconform's "
             "own limit); a test that exceeds it is recorded as hanged. 0 disables it.",
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-timeout reads its settings
def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    specs = config.getoption("ovconform_plugins")
    if not specs:
        return
    try:
        devices = resolve(specs)
    except (PluginSpecError, PluginValidationError) as e:  # e.g. a device name that is not allowed
        raise pytest.UsageError(str(e)) from None
    # a bad depth or case count is a usage error now, not a collection error of the op suite later
    # (imported here: without --plugin the plugin loads nothing of the op machinery)
    from ovconform.opcases.depth import depth_from_config, examples_from_config

    depth_from_config(config)
    examples_from_config(config)
    if config.getoption("ovconform_model", None) or config.getoption("ovconform_model_inputs", None):
        from ovconform.models.own_model import own_models_from_config

        own_models_from_config(config)  # a bad file is a usage error now, not a failed test later
    if config.getoption("ovconform_shard", None) is not None:
        config.stash[_shard.shard_key] = _shard.parse_shard(config.getoption("ovconform_shard"))
    _settle_report_dir(config)
    config.stash[devices_key] = devices
    config.stash[declared_key] = {}
    config.stash[_expectations.key] = _load_expectations(config, devices)
    _collect_installed_suites_by_default(config)
    _set_default_timeout(config)
    report = ConformanceReport(config, devices)
    config.pluginmanager.register(report, "ovconform-conformance-report")


def _settle_report_dir(config: pytest.Config) -> None:
    """``--ovconform-report-dir`` made absolute against the folder pytest was started in (a device
    that changes the working folder must not move the reports or reproducers), and a usage error
    now, not a traceback when the run ends, if it cannot be a folder."""
    from pathlib import Path

    given = config.getoption("ovconform_report_dir")
    path = Path(config.invocation_params.dir) / Path(given).expanduser()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise pytest.UsageError(f"--ovconform-report-dir={given!r}: {existing} is a file, not a folder; "
                                "give a folder (it is created if missing).")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise pytest.UsageError(f"--ovconform-report-dir={given!r}: {existing} is not writable.")
    config.option.ovconform_report_dir = str(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    report = config.pluginmanager.get_plugin("ovconform-conformance-report")
    if report is not None:
        config.pluginmanager.unregister(report)


def _load_expectations(config: pytest.Config, devices: list[DeviceUnderTest]) -> _expectations.Expectations:
    from ovconform.host.manager import get_plugin_manager

    entries: list[_expectations.Entry] = []
    bundled = _collection.suites_root() / "expectations"
    try:
        for value in config.getoption("ovconform_expectations"):
            entries += _expectations.load(value, config.invocation_params.dir, bundled)
        hook = get_plugin_manager().hook.ovconform_expectations
        for dut in devices:
            for lines in hook(device=dut.name):
                entries += _expectations.parse_lines(list(lines), f"hook:{dut.name}", dut.name)
    except ExpectationError as e:
        raise pytest.UsageError(str(e)) from None
    expectations = _expectations.Expectations(entries)
    if expectations.conditional:  # entries conditioned on the device's properties: ask each device once
        for dut in devices:
            expectations.evaluate(dut.name, _property_reader(dut, config))
    return expectations


def _property_reader(dut: DeviceUnderTest, config: pytest.Config) -> Callable[[str], Any]:
    """``get_property`` of a new instance of the device (made once, on the first read); a device
    that cannot be made raises its error on every read, so its conditions are unknown. The name
    ``ovconform-depth`` is the run's ``--ovconform-depth`` (for entries of cases only a depth runs),
    ``ovconform-models`` its ``--ovconform-models`` tier (for architectures only the full tier runs)."""
    made: list[Any] = []

    def read(name: str) -> Any:
        if name == _expectations.DEPTH_CLAUSE:
            from ovconform.opcases.depth import depth_from_config

            return depth_from_config(config).name.lower()
        if name == _expectations.MODELS_CLAUSE:
            return config.getoption("ovconform_models", None) or "quick"
        if not made:
            made.append(dut.create())
        return made[0].get_property(name)
    return read


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of ``--ovconform-shard``, and mark the tests an expectation entry names as
    expected to fail (on the collecting process)."""
    shard = config.stash.get(_shard.shard_key, None)
    if shard is not None:
        kept, removed = _shard.split(items, shard, _stable_id_or_none)
        config.stash[_shard.removed_key] = {item.nodeid for item in removed}
        if removed:
            config.hook.pytest_deselected(items=removed)
            items[:] = kept
    expectations = config.stash.get(_expectations.key, None)
    if expectations is None or not expectations.entries:
        return
    for item in items:
        meta = _collection.meta_of(item)
        entry = None if meta is None else expectations.find(meta["test_id"], meta["device"])
        if entry is not None:
            item.add_marker(expectations.xfail(entry))


def _stable_id_or_none(item: pytest.Item) -> str | None:
    meta = _collection.meta_of(item)
    return None if meta is None else meta["test_id"]


def _suite_modules() -> list[str]:
    root = _collection.suites_root()
    return [p.relative_to(root).as_posix() for p in root.rglob("test_*.py")]


def _observed(config: pytest.Config) -> tuple[_expectations.Expectations | None, ConformanceReport | None]:
    """The run's expectations, matched against the collection the controller knows, and the report."""
    expectations = config.stash.get(_expectations.key, None)
    report = config.pluginmanager.get_plugin("ovconform-conformance-report")
    if expectations is None or report is None or hasattr(config, "workerinput") or not report.active:
        return None, report
    if report.collection is not None and not expectations.observed:
        expectations.observe(report.collection.known(), _suite_modules())
    return expectations, report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Name, at the end of the run, every expectation entry that matches no collected test."""
    expectations, _ = _observed(config)
    if expectations is not None:
        for line in expectations.warnings():
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if not config.getoption("ovconform_update_expectations", False):
        return
    expectations, report = _observed(config)
    if expectations is None or report is None:
        return
    statuses = {r["nodeid"]: r["status"] for r in report.records.values()}
    unexpected = sorted(n for n, s in statuses.items() if s in ("failed", "error", "crashed", "hanged"))
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if unexpected:
        if tr:
            tr.write_line(f"ovconform: expectations not updated: {len(unexpected)} test(s) failed unexpectedly, "
                          f"e.g. {unexpected[0]}")
        return
    for path, lines in expectations.prune(statuses).items():
        if tr:
            tr.write_line(f"ovconform: removed {len(lines)} fixed entr{'y' if len(lines) == 1 else 'ies'} from {path}")


def _collect_installed_suites_by_default(config: pytest.Config) -> None:
    """No test paths on the command line: run the installed suites, from any folder."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args[:] = [str(_collection.suites_root())]


def _set_default_timeout(config: pytest.Config) -> None:
    """``--ovconform-test-timeout``: pytest-timeout's limit when it is loaded (unless its own
    ``--timeout`` is set), else ovconform's own (:class:`TestLimit`)."""
    seconds = config.getoption("ovconform_test_timeout")
    # a device's thread left running must not keep the process alive after the reports are written
    config.pluginmanager.register(ExitGuard(grace(float(seconds or 300))), "ovconform-exit-guard")
    if not seconds:
        return
    # the last resort for a test blocked where the signal-based limits cannot reach (native code)
    config.pluginmanager.register(Watchdog(config, float(seconds)), "ovconform-watchdog")
    if config.pluginmanager.hasplugin("timeout"):
        if not getattr(config.option, "timeout", None):
            config.option.timeout = seconds
    elif hasattr(signal, "setitimer"):
        config.pluginmanager.register(TestLimit(float(seconds)), "ovconform-test-limit")


class TestLimit:
    """ovconform's own per-test time limit, when pytest-timeout is not loaded.

    Each test (setup, call and teardown together; a ``timeout(seconds)`` marker overrides the
    limit) gets a deadline; while one of its phases runs, a ``SIGALRM`` timer is set for the time
    left, and when it fires, the test's main thread raises ``Failed`` (a ``BaseException``, so a
    device's ``except Exception`` cannot swallow it) with a message the record turns into
    ``hanged`` (:data:`ovconform.reports.records.TIMEOUT_MARK`). Like pytest-timeout's signal
    method, this stops a test blocked in Python code — a sleep, a lock, a wait on another thread —
    but not one blocked in C code that never returns to the interpreter. Only in the main thread
    (where pytest and xdist workers run tests) and where ``signal.setitimer`` exists (not Windows).
    """

    __test__ = False  # not a test class

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._limit = seconds
        self._deadline: float | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        mark = item.get_closest_marker("timeout")
        seconds = (mark.args[0] if mark.args else mark.kwargs.get("timeout")) if mark is not None else None
        self._limit = self.seconds if seconds is None else float(seconds)
        self._deadline = time.monotonic() + self._limit if self._limit > 0 else None
        try:
            return (yield)
        finally:
            self._deadline = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        return (yield from self._limited())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        return (yield from self._limited())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        return (yield from self._limited())

    def _limited(self) -> Iterator[None]:
        if self._deadline is None or threading.current_thread() is not threading.main_thread():
            return (yield)
        previous = signal.signal(signal.SIGALRM, self._fire)
        signal.setitimer(signal.ITIMER_REAL, max(self._deadline - time.monotonic(), 0.001))
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def _fire(self, signum: int, frame: Any) -> None:
        raise pytest.fail.Exception(f"Timeout (>{self._limit:.1f}s) {_records.TIMEOUT_MARK}: the test did not "
                                    "finish in time (hanged)")


def _devices(config: pytest.Config) -> list[DeviceUnderTest]:
    return config.stash.get(devices_key, [])


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "ov_device_name" in metafunc.fixturenames:
        devices = _devices(metafunc.config)
        metafunc.parametrize("ov_device_name", [d.name for d in devices], ids=[d.name for d in devices],
                             scope="session")


def _device(config: pytest.Config, name: str) -> DeviceUnderTest:
    return next(d for d in _devices(config) if d.name == name)


@pytest.fixture
def ov_core(request: pytest.FixtureRequest, ov_device_name: str) -> Iterator[Any]:
    from ovconform import Core

    dut = _device(request.config, ov_device_name)
    core = Core(discover=False)
    core.register_plugin(dut.entry.factory, dut.name)
    yield core


@pytest.fixture
def ov_plugin(ov_core: Any, ov_device_name: str) -> Any:
    return ov_core.get_plugin(ov_device_name)


@pytest.fixture
def ov_plugin_spec(request: pytest.FixtureRequest, ov_device_name: str) -> str:
    return _device(request.config, ov_device_name).spec


def _declared(config: pytest.Config, name: str) -> tuple[set[str], dict[str, str]]:
    """(capabilities, supported properties) the device declares; read once per run."""
    cache = config.stash[declared_key]
    if name not in cache:
        plugin = _device(config, name).create()
        supported = dict(plugin.get_property("SUPPORTED_PROPERTIES"))
        caps: set[str] = set()
        if "OPTIMIZATION_CAPABILITIES" in supported:
            caps = {str(c) for c in plugin.get_property("OPTIMIZATION_CAPABILITIES")}
        cache[name] = (caps, {str(k): str(v) for k, v in supported.items()})
    return cache[name]


@pytest.fixture
def ov_capabilities(request: pytest.FixtureRequest, ov_device_name: str) -> set[str]:
    return set(_declared(request.config, ov_device_name)[0])


@pytest.fixture
def ov_supported_properties(request: pytest.FixtureRequest, ov_device_name: str) -> dict[str, str]:
    return dict(_declared(request.config, ov_device_name)[1])


@pytest.fixture
def record_ov_fact(request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    """Add a JSON-able fact (name, value) to this test's conformance record."""

    def record(name: str, value: Any) -> None:
        request.node.stash.setdefault(_records.facts_key, {})[name] = value

    return record


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Turn capability / property markers into skips that say what is missing and where from."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "ov_device_name" not in callspec.params:
        return
    name = callspec.params["ov_device_name"]
    caps, supported = _declared(item.config, name)
    for mark in item.iter_markers("capability"):
        if mark.args[0] not in caps:
            pytest.skip(f"{name}: capability {mark.args[0]!r} not in OPTIMIZATION_CAPABILITIES "
                        f"({sorted(caps) or 'not declared'})")
    for mark in item.iter_markers("requires_property"):
        if mark.args[0] not in supported:
            pytest.skip(f"{name}: property {mark.args[0]!r} not in SUPPORTED_PROPERTIES")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if _devices(item.config):
        _records.attach(item, call, report)
    return report


# -- perf marker (issue #9) ---------------------------------------------------------------------------
# The `perf` suite is opt-in and serial: ovconform.bench.pytest_perf registers the `perf` marker,
# deselects perf tests unless the -m expression names perf, and refuses -m perf under xdist -n (the
# last two only when --plugin is given). Loaded as a sub-plugin through pytest_plugins.
# The graph fuzz (issue #23) is opt-in the same way (-m graphfuzz): ovconform.graphs.pytest_graphfuzz.
pytest_plugins = [*globals().get("pytest_plugins", []), "ovconform.bench.pytest_perf",
                  "ovconform.graphs.pytest_graphfuzz"]
