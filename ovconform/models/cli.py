"""``ovconform models``: the real architectures with op, weight and FLOP counts."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("models", help="list the real architectures of the model suite with op, weight and FLOP counts",
                       description="List the architectures of ovconform.models (the model suite's "
                                   "--ovconform-models tiers) with their op count, weight count and the FLOPs "
                                   "of their first inference (the decoders: the 32-token prefill). Counting "
                                   "builds each model; the full tier's 1.1B-weight decoder takes a while.")
    p.add_argument("--tier", choices=("quick", "full"), default="full",
                   help="list the architectures of this --ovconform-models tier (default: full, every one)")
    p.add_argument("--no-counts", action="store_true", help="names, tiers and descriptions only (builds nothing)")


def run(args: argparse.Namespace) -> int:
    from tabulate import tabulate

    from ovconform import models

    rows = []
    for arch in models.architectures(args.tier):
        if args.no_counts:
            counts: list[Any] = ["", "", ""]
        else:
            c = models.stats(arch)
            counts = [c["ops"], f"{c['weights'] / 1e6:.1f}M", f"{c['flops'] / 1e9:.2f}"]
        rows.append([arch.name, arch.tier, *counts, arch.description])
    print(tabulate(rows, headers=["architecture", "tier", "ops", "weights", "GFLOPs", "description"],
                   disable_numparse=True))
    return 0
