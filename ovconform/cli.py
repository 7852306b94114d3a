"""The ``ovconform`` command line."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ovconform", description=__doc__)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    args = parser.parse_args(argv)
    if args.version:
        import ovconform

        print(ovconform.__version__)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
