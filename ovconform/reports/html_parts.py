"""The parts of the HTML report a CI user keeps beyond the matrix: the run's metadata, the
"since the baseline" view, each failure's cause (to group failures by) and its repro, embedded.

Everything here is computed when the page is rendered and written into it (static markup, or the
page's JSON data), so the page stays one offline file.
"""

from __future__ import annotations

import base64
import html
import io
import re
import zipfile
from pathlib import Path
from typing import Any

from ovconform.reports import _doc

#: A repro folder larger than this is named, not embedded (a real model's weights).
REPRO_EMBED_LIMIT = 2 * 1024 * 1024
#: The embedded repros of one page together stay under this; later ones are named only.
REPRO_PAGE_LIMIT = 16 * 1024 * 1024


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


# -- run metadata -------------------------------------------------------------------------------------
_RUN_FIELDS = (("started", "started_at"), ("finished", "finished_at"), ("duration (s)", "duration_s"),
               ("command line", "command_line"), ("ovconform", "ovconform_version"), ("python", "python"),
               ("numpy", "numpy"), ("pytest", "pytest"), ("platform", "platform"), ("machine", "machine"),
               ("xdist workers", "xdist_workers"), ("selection", "selection"), ("partial", "partial"))


def _value(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def metadata(doc: dict[str, Any]) -> str:
    """The runs (when, command line, versions, machine, selection) and each device (name, plugin,
    version, properties), as a collapsible section."""
    runs = doc.get("runs") or ([doc["run"]] if doc.get("run") else [])
    parts = ['<details id="metadata" open><summary>Run metadata</summary>']
    for i, run in enumerate(runs):
        rows = "".join(f"<tr><th>{_e(label)}</th><td>{_e(_value(run[key]))}</td></tr>"
                       for label, key in _RUN_FIELDS if key in run)
        parts.append(f'<table class="meta-run" data-run="{i}"><tbody>{rows}</tbody></table>')
    for name, entry in _doc.device_map(doc).items():
        device = entry.get("device") or {}
        version = device.get("version") or {}
        rows = "".join(f"<tr><th>{_e(label)}</th><td>{_e(_value(value))}</td></tr>" for label, value in (
            ("device", name), ("plugin", device.get("plugin_spec") or device.get("plugin", "")),
            ("distribution", device.get("distribution", "")), ("full name", device.get("full_name", "")),
            ("version", " ".join(str(v) for v in version.values()) if isinstance(version, dict) else version))
            if value)
        props = device.get("properties") or {}
        prop_rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_value(v))}</td></tr>" for k, v in sorted(props.items()))
        parts.append(f'<table class="meta-device" data-device="{_e(name)}"><tbody>{rows}</tbody></table>'
                     + (f'<details class="meta-props"><summary>{_e(name)} properties ({len(props)})</summary>'
                        f'<table><tbody>{prop_rows}</tbody></table></details>' if props else ""))
    parts.append("</details>")
    return "".join(parts)


# -- since the baseline ---------------------------------------------------------------------------------
_KINDS = (("regressions", "regressions", "passed or xfailed before, bad now"),
          ("new_failures", "new failures", "bad now, not bad before"),
          ("fixed", "fixed", "bad before, passed or xfailed now"),
          ("added", "added", "not in the baseline"),
          ("missing", "missing", "in the baseline, not run now"))


def baseline_section(doc: dict[str, Any], baseline: dict[str, Any] | None, label: str = "") -> str:
    """The "since the baseline" view: counts and the tests of each kind of change (empty without
    a baseline)."""
    if baseline is None:
        return ""
    from ovconform.reports.diff import diff

    d = diff(baseline, doc)
    parts = [f'<section id="baseline"><h2>Since the baseline{" " + _e(label) if label else ""}</h2><ul>']
    parts += [f'<li class="bl-count" data-kind="{key}">{_e(title)}: <b>{len(getattr(d, key))}</b> '
              f'<span class="legend">({_e(why)})</span></li>' for key, title, why in _KINDS]
    parts.append("</ul>")
    for key, title, _ in _KINDS:
        changes = getattr(d, key)
        if not changes:
            continue
        rows = "".join(f'<tr class="bl-row" data-kind="{key}"><td>{_e(c.device)}</td><td><code>{_e(c.nodeid)}</code>'
                       f'</td><td>{_e(c.before or "-")}</td><td>{_e(c.after or "-")}</td></tr>' for c in changes)
        parts.append(f'<details class="bl-kind" data-kind="{key}"{" open" if key == "regressions" else ""}>'
                     f'<summary>{_e(title)} ({len(changes)})</summary><table class="sortable" id="bl-{key}"><thead>'
                     f"<tr><th>device</th><th>test</th><th>before</th><th>after</th></tr></thead><tbody>{rows}"
                     "</tbody></table></details>")
    parts.append("</section>")
    return "".join(parts)


# -- the cause of a failure -----------------------------------------------------------------------------
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
#: a number standing alone (not part of a name such as Relu-1, opset8 or conv_3)
_NUMBER = re.compile(r"(?<![\w.-])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def cause(record: dict[str, Any]) -> str:
    """What failures with the same cause share: the op (or the test function) and the message's
    shape (its first line with numbers and quoted values blanked), e.g. ``Relu-1: got=N, but should
    be N [S]``."""
    key = _doc.op_key(record)
    where = f"{key[0]}-{key[1]}" if key else _doc.test_name(record).split("[", 1)[0]
    first = (record.get("message") or "").strip().splitlines()[0] if (record.get("message") or "").strip() else ""
    shape = _NUMBER.sub("N", _QUOTED.sub("S", first))
    return f"{where}: {shape[:160]}"


# -- the repro, embedded ----------------------------------------------------------------------------------
def relative_repro(path: str) -> str:
    """A repro path as the page shows it: a relative path as recorded; an absolute one (of the
    machine that ran) from its ``<DEVICE>/repro/...`` part, relative to the report folder."""
    if not Path(path).is_absolute():
        return Path(path).as_posix()
    parts = Path(path).parts
    return "/".join(parts[parts.index("repro") - 1:]) if "repro" in parts[1:] else Path(path).name


def repro_archive(path: str, base: Path | None, budget: list[int]) -> dict[str, Any]:
    """``{"path", "script", "zip"}`` for a failure's repro: the script's text and the folder as a
    base64 zip, when the folder is found (``path`` relative to ``base``, the report folder, or as
    recorded) and small enough; ``{"path", "why"}`` otherwise. ``budget`` is the page's remaining
    embedding allowance, spent here."""
    shown = relative_repro(path)
    candidates = [Path(path)] + ([base / shown] if base is not None else [])
    script = next((p for p in candidates if p.is_file()), None)
    if script is None:
        return {"path": shown, "why": "the repro folder is not beside this report"}
    files = sorted(p for p in script.parent.iterdir() if p.is_file())
    size = sum(p.stat().st_size for p in files)
    if size > REPRO_EMBED_LIMIT or size > budget[0]:
        return {"path": shown, "script": script.read_text(encoding="utf-8", errors="replace"),
                "why": f"the repro folder ({size} bytes) is too large to embed"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in files:
            z.write(p, f"{script.parent.name}/{p.name}")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    budget[0] -= len(data)
    return {"path": shown, "script": script.read_text(encoding="utf-8", errors="replace"), "zip": data,
            "name": f"{script.parent.name}.zip"}


__all__ = ["REPRO_EMBED_LIMIT", "REPRO_PAGE_LIMIT", "baseline_section", "cause", "metadata", "relative_repro",
           "repro_archive"]
