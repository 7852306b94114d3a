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

Markers: ``entity(name)`` (ov_plugin / ov_compiled_model / ov_infer_request / op / model / perf),
``mandatory`` (default scope is optional), ``capability(NAME)`` and ``requires_property(NAME)``
(skip with a reason naming the device, what is missing and where that came from).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ovconform.host import expectations as _expectations
from ovconform.host.plugin_specs import DeviceUnderTest, PluginSpecError, resolve
from ovconform.reports import records as _records
from ovconform.reports.conformance import ConformanceReport

devices_key = pytest.StashKey[list[DeviceUnderTest]]()
declared_key = pytest.StashKey[dict[str, tuple[set[str], dict[str, str]]]]()

MARKERS = (
    "entity(name): the conformance entity a test belongs to (ov_plugin, ov_compiled_model, ov_infer_request, "
    "op, model, perf)",
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
        help="Expectation file: node-id patterns with a reason each; matching tests are expected to fail.",
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
        "--ovconform-test-timeout", type=float, default=300.0, metavar="SECONDS",
        help="Per-test timeout when testing a device (needs pytest-timeout); a test that exceeds it is "
             "recorded as hanged. 0 disables it.",
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
    except PluginSpecError as e:
        raise pytest.UsageError(str(e)) from None
    config.stash[devices_key] = devices
    config.stash[declared_key] = {}
    config.stash[_expectations.key] = _load_expectations(config, devices)
    _collect_installed_suites_by_default(config)
    _set_default_timeout(config)
    report = ConformanceReport(config, devices)
    config.pluginmanager.register(report, "ovconform-conformance-report")


def pytest_unconfigure(config: pytest.Config) -> None:
    report = config.pluginmanager.get_plugin("ovconform-conformance-report")
    if report is not None:
        config.pluginmanager.unregister(report)


def _load_expectations(config: pytest.Config, devices: list[DeviceUnderTest]) -> _expectations.Expectations:
    from ovconform.host.manager import get_plugin_manager

    entries: list[_expectations.Entry] = []
    try:
        for path in config.getoption("ovconform_expectations"):
            entries += _expectations.load_file(path)
        hook = get_plugin_manager().hook.ovconform_expectations
        for dut in devices:
            for lines in hook(device=dut.name):
                entries += _expectations.parse_lines(list(lines), f"hook:{dut.name}", dut.name)
    except _expectations.ExpectationError as e:
        raise pytest.UsageError(str(e)) from None
    return _expectations.Expectations(entries)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    expectations = config.stash.get(_expectations.key, None)
    if expectations is None:
        return
    expectations.mark(items)
    for entry in expectations.stale():
        config.issue_config_time_warning(pytest.PytestWarning(
            f"ovconform expectation {entry.pattern!r} ({entry.source}) matches no collected test: "
            "stale entries should be removed."), stacklevel=2)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    expectations = config.stash.get(_expectations.key, None)
    report = config.pluginmanager.get_plugin("ovconform-conformance-report")
    if expectations is None or report is None or hasattr(config, "workerinput"):
        return
    if not config.getoption("ovconform_update_expectations"):
        return
    statuses = {nodeid: r["status"] for nodeid, r in report.records.items()}
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
        import ovconform.suites

        config.args[:] = [str(Path(ovconform.suites.__file__).parent)]


def _set_default_timeout(config: pytest.Config) -> None:
    seconds = config.getoption("ovconform_test_timeout")
    if seconds and config.pluginmanager.hasplugin("timeout") and not getattr(config.option, "timeout", None):
        config.option.timeout = seconds


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
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if _devices(item.config):
        _records.attach(item, call, report)
    return report


# -- perf marker (issue #9) ---------------------------------------------------------------------------
# The `perf` suite is opt-in and serial: ovconform.bench.pytest_perf registers the `perf` marker,
# deselects perf tests unless the -m expression names perf, and refuses -m perf under xdist -n (the
# last two only when --plugin is given). Loaded as a sub-plugin through pytest_plugins.
pytest_plugins = [*globals().get("pytest_plugins", []), "ovconform.bench.pytest_perf"]
