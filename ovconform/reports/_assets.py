"""The HTML pages' style sheets and script, kept as files in ``ovconform/reports/assets/``.

They ship as package data and are read with :mod:`importlib.resources`; the renderers inline
them into each page, so a page stays one file that fetches nothing (its Content-Security-Policy
allows inline style and script only).

* ``report.css``, ``report.js``: the conformance page (:mod:`ovconform.reports.html`), its
  filters and tables;
* ``perf.css``: the perf section (:mod:`ovconform.reports.perf_html`), on both pages;
* ``bench.css``: the standalone perf page ``ovconform bench`` writes (bench.html).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from ovconform.errors import NotFoundError, ValidationError

#: every asset, with the end tag that must not occur in it (it would close the inline element early)
ASSETS = {"report.css": "</style", "report.js": "</script", "perf.css": "</style", "bench.css": "</style"}


@cache
def asset(name: str) -> str:
    """The text of asset ``name`` (read once per process)."""
    if name not in ASSETS:
        raise NotFoundError(f"HTML asset {name!r} does not exist; assets: {', '.join(ASSETS)}.")
    text = files("ovconform.reports").joinpath("assets", name).read_text(encoding="utf-8")
    if ASSETS[name] in text.lower():
        raise ValidationError(f"HTML asset {name!r} contains {ASSETS[name]!r}, which would end its inline "
                              "element in the page; write it another way (e.g. '<\\/script').")
    return text
