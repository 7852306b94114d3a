"""The ``ovconform`` command line: ``ovconform devices``, ``ovconform ops``, ``ovconform models``,
``ovconform report ...``, ``ovconform --version``."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _cmd_devices(args: argparse.Namespace) -> int:
    from tabulate import tabulate

    from ovconform.errors import OVConformError
    from ovconform.registry import discover_devices

    registry = discover_devices()
    rows = []
    for entry in registry:
        try:
            plugin = registry.create(entry.name)
            caps = ", ".join(str(c) for c in _get(plugin, "OPTIMIZATION_CAPABILITIES", []))
            full = str(_get(plugin, "FULL_DEVICE_NAME", ""))
            version = str(plugin.get_version().build_number)
        except OVConformError as e:
            caps, full, version = "", f"<error: {e}>", ""
        rows.append([entry.name, entry.source, entry.distribution, version, full, caps])
    if not rows:
        print("no devices found (install a package with an 'ovconform' entry point)")
        return 0
    print(tabulate(rows, headers=["device", "plugin", "distribution", "version", "full name", "capabilities"]))
    return 0


def _get(plugin: Any, name: str, default: Any) -> Any:
    supported = plugin.get_property("SUPPORTED_PROPERTIES")
    return plugin.get_property(name) if name in supported else default


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ovconform", description=__doc__)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("devices", help="list the discovered device plugins with versions and capabilities")
    from ovconform.reports.cli import add_report_parser

    add_report_parser(sub)
    from ovconform.opcases import coverage as ops_table

    ops_table.add_parser(sub)
    from ovconform.bench.cli import add_bench_parser

    add_bench_parser(sub)
    from ovconform.models import cli as models_cli

    models_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.version:
        import ovconform

        print(ovconform.__version__)
        return 0
    if args.command == "devices":
        return _cmd_devices(args)
    if args.command == "ops":
        from ovconform.errors import OVConformError

        try:
            return ops_table.run(args)
        except OVConformError as e:  # a bad --report / --junit file: one line, exit 2, as `report` does
            print(f"ovconform ops: error: {e}", file=sys.stderr)
            return 2
    if args.command == "report":
        from ovconform.reports.cli import run_report

        return run_report(args, parser)
    if args.command == "models":
        return models_cli.run(args)
    if args.command == "bench":
        from ovconform.bench.cli import run_bench

        return run_bench(args, parser, argv)
    parser.print_help()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
