"""``ovconform report render|merge|diff|validate|sample|rebuild``: the report subcommands.

Exit codes: 0 success; 1 ``diff --fail-on`` found a change of that kind; 2 bad input (a file that is
not a valid report, an unknown format), with the reason on stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ovconform.errors import OVConformError, ValidationError

SAMPLE_DEVICE = "REFERENCE"


def add_report_parser(sub: Any) -> None:
    report = sub.add_parser("report", help="render, merge, diff and validate conformance.json reports")
    rs = report.add_subparsers(dest="report_command", metavar="{render,merge,diff,validate,sample,rebuild}")

    p = rs.add_parser("render", help="render a report (single-device or merged) as md, csv, text or html")
    p.add_argument("file", help="a conformance.json (or a merged document)")
    p.add_argument("--format", "-f", default="text", choices=["md", "csv", "text", "html"])
    p.add_argument("-o", "--output", help="write here instead of stdout")
    p.add_argument("--baseline", metavar="FILE", help="html: a previous conformance.json; the page gets a 'since the "
                   "baseline' view (regressions, new failures, fixed, added, missing)")

    p = rs.add_parser("merge", help="merge reports of several devices or runs into one matrix document")
    p.add_argument("files", nargs="+", help="conformance.json files (or merged documents)")
    p.add_argument("-o", "--output", required=True, help="the merged JSON document to write")
    p.add_argument("--merge-device-suffixes", action="store_true",
                   help="fold device ids into their device: GPU.0 + GPU.1 -> GPU")

    p = rs.add_parser("diff", help="compare BASE and NEW; a CI gate with --fail-on")
    p.add_argument("base", help="the baseline report")
    p.add_argument("new", help="the new report")
    p.add_argument("--fail-on", action="append", default=[], choices=["regression", "new-failure", "missing"],
                   help="exit 1 when a change of this kind exists (repeatable). regression: passed/xfailed in BASE, "
                        "failed/error/crashed/hanged/xpassed in NEW; new-failure: bad in NEW and not bad in BASE "
                        "(includes new tests); missing: a BASE test absent from NEW (when NEW is a partial run: only "
                        "with --partial-as-missing)")
    p.add_argument("--partial-as-missing", action="store_true",
                   help="when NEW is a partial run (-k, -m, test paths, --lf, ...), count the BASE tests it did not "
                        "select as missing (default: they are outside its narrower selection, not missing)")
    p.add_argument("--format", "-f", default="text", choices=["text", "json"])
    p.add_argument("-o", "--output", help="write here instead of stdout")

    p = rs.add_parser("validate", help="check files against the conformance.json schema")
    p.add_argument("files", nargs="+")

    p = rs.add_parser("sample", help="run the suites on REFERENCE; write the sample reports (json, md, csv, html)")
    p.add_argument("--out", default="reports",
                   help="folder (default: reports); writes OUT/REFERENCE/conformance.*")
    p.add_argument("--from", dest="from_json", help="re-render this conformance.json instead of running pytest")

    p = rs.add_parser("rebuild", help="rebuild DIR/<DEVICE>/conformance.json from the journal of a run that was killed")
    p.add_argument("dir", help="the report folder of the run (its --ovconform-report-dir), holding journal/*.jsonl")


def run_report(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    commands = {"render": _render, "merge": _merge, "diff": _diff, "validate": _validate_cmd, "sample": _sample,
                "rebuild": _rebuild}
    command = commands.get(args.report_command or "")
    if command is None:
        parser.parse_args(["report", "--help"])
        return 2
    try:
        return command(args)
    except OVConformError as e:
        print(f"ovconform report {args.report_command}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # an output path under a file, a folder not writable, ...
        where = f" {e.filename!r}" if e.filename else ""
        print(f"ovconform report {args.report_command}: error: cannot write or read{where}: {e.strerror or e}",
              file=sys.stderr)
        return 2


def _emit(text: str, output: str | None) -> None:
    if output:
        folder = Path(output).parent
        blocking = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            raise ValidationError(f"-o {output}: {blocking} is a file, not a folder.")
        folder.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _render(args: argparse.Namespace) -> int:
    from ovconform.reports import _doc, render

    baseline = _doc.load(args.baseline) if args.baseline else None
    # the report folder: <dir>/<DEVICE>/conformance.json (or <dir>/matrix/...); repro paths are relative to <dir>
    base = Path(args.file).resolve().parent.parent
    _emit(render.render(_doc.load(args.file), args.format, base=base, baseline=baseline,
                        baseline_label=args.baseline or ""), args.output)
    return 0


def _merge(args: argparse.Namespace) -> int:
    from ovconform.reports.merge import merge_files

    doc = merge_files(args.files, merge_device_suffixes=args.merge_device_suffixes)
    _emit(json.dumps(doc, indent=1) + "\n", args.output)
    print(f"merged {len(args.files)} report(s), devices {', '.join(doc['devices'])}: {args.output}")
    return 0


def _diff(args: argparse.Namespace) -> int:
    from ovconform.reports import _doc, diff

    d = diff.diff(_doc.load(args.base), _doc.load(args.new), partial_as_missing=args.partial_as_missing)
    text = diff.render_json(d) if args.format == "json" else diff.render_text(d, args.fail_on)
    _emit(text, args.output)
    return 1 if d.fails(args.fail_on) else 0


def _validate_cmd(args: argparse.Namespace) -> int:
    from ovconform.reports import _doc

    for f in args.files:
        _doc.load(f)
        print(f"{f}: valid (schema_version 1.0)")
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    from ovconform.reports import journal

    written, counts = journal.rebuild(args.dir)
    for path in written:
        print(path)
    print(f"rebuilt from {counts['files']} journal file(s) of the run {counts['run']}: {counts['records']} finished "
          f"test(s), {counts['interrupted']} interrupted (recorded as crashed)"
          + (f", {counts['not_run']} selected test(s) never started (the report is partial)" if counts["not_run"]
             else "")
          + (f", {counts['torn_lines']} torn line(s) skipped" if counts["torn_lines"] else ""))
    return 0


def _sample(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve() / SAMPLE_DEVICE
    out.mkdir(parents=True, exist_ok=True)
    if args.from_json:
        source = Path(args.from_json).resolve()
    else:
        source = _run_reference(out)
    write_renders(source, out)
    for suffix in ("json", "md", "csv", "html"):
        print(out / f"conformance.{suffix}")
    return 0


def _run_reference(out: Path) -> Path:
    """Run every suite on REFERENCE in a scratch folder; copy its report to ``out/conformance.json``."""
    with tempfile.TemporaryDirectory(prefix="ovconform-sample-") as tmp:
        cmd = [sys.executable, "-m", "pytest", "--plugin=reference", "-q", "-p", "no:cacheprovider",
               "--ovconform-report-dir", "reports"]
        if importlib.util.find_spec("xdist") is not None:
            cmd += ["-n", "2"]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
        print(f"running every suite on {SAMPLE_DEVICE} (a few minutes): {' '.join(cmd[2:])}", file=sys.stderr,
              flush=True)
        code, tail = _run_showing_progress(cmd, tmp, env)
        made = Path(tmp) / "reports" / SAMPLE_DEVICE / "conformance.json"
        if not made.exists():
            raise OVConformError(f"pytest wrote no report (exit {code}):\n{tail}")
        target = out / "conformance.json"
        shutil.copyfile(made, target)
    return target


def _run_showing_progress(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[int, str]:
    """Run ``cmd``, echoing its output (pytest's progress lines) to stderr as it comes; returns the
    exit status and the last 4000 characters of the output."""
    tail = ""
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          bufsize=1) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stderr.write(line)
            sys.stderr.flush()
            tail = (tail + line)[-4000:]
        code = proc.wait()
    return code, tail


def write_renders(source: Path, out: Path) -> None:
    """``out/conformance.json`` (copied from ``source`` when elsewhere) plus its md, csv and html renders."""
    from ovconform.reports import _doc, render

    doc = _doc.load(source)
    target = out / "conformance.json"
    if source.resolve() != target.resolve():
        shutil.copyfile(source, target)
    for fmt, suffix in (("md", "md"), ("csv", "csv"), ("html", "html")):
        (out / f"conformance.{suffix}").write_text(render.render(doc, fmt, base=out.parent), encoding="utf-8")


__all__ = ["add_report_parser", "run_report", "write_renders"]
