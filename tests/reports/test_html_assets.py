"""The HTML pages' style sheets and script live as files in ``ovconform/reports/assets/``
(:mod:`ovconform.reports._assets`): each ships as package data, each is inlined into its page
whole, and none could end its inline element early or fetch anything."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest
from _paths import REPO
from test_reports_core import op_document

from ovconform.errors import NotFoundError, ValidationError
from ovconform.reports import _assets
from ovconform.reports.html import render_html
from ovconform.reports.perf_html import perf_page

ASSET_DIR = REPO / "ovconform" / "reports" / "assets"
#: a perf document as `ovconform bench` writes it (the committed sample)
PERF = json.loads((REPO / "reports" / "bench" / "REFERENCE" / "cnn" / "perf.json").read_text())


def test_the_asset_table_names_every_file_in_the_folder() -> None:
    assert sorted(p.name for p in ASSET_DIR.iterdir() if p.is_file()) == sorted(_assets.ASSETS)


def test_every_asset_is_package_data() -> None:
    """pyproject's package-data globs for ovconform.reports take every asset into the wheel and sdist."""
    conf = tomllib.loads((REPO / "pyproject.toml").read_text())
    globs = conf["tool"]["setuptools"]["package-data"]["ovconform.reports"]
    missing = [n for n in _assets.ASSETS if not any(fnmatch.fnmatch(f"assets/{n}", g) for g in globs)]
    assert not missing, f"assets not in package-data {globs}: {missing}"


def _element(page: str, tag: str) -> list[str]:
    return re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)


def test_the_conformance_page_inlines_its_assets_whole() -> None:
    doc = op_document("X")
    doc["records"][0]["facts"] = {**(doc["records"][0].get("facts") or {}), "perf": PERF}
    page = render_html(doc)
    styles, scripts = _element(page, "style"), _element(page, "script")
    assert styles[0] == "\n" + (ASSET_DIR / "report.css").read_text()
    assert scripts[-1] == "\n" + (ASSET_DIR / "report.js").read_text()
    assert "\n" + (ASSET_DIR / "perf.css").read_text() in styles  # the perf section's own style
    assert "@CSS@" not in page and "@JS@" not in page
    assert "script-src 'unsafe-inline'" in page and "default-src 'none'" in page


def test_the_bench_page_inlines_its_assets() -> None:
    page = perf_page([PERF])
    styles = _element(page, "style")
    assert styles[0] == (ASSET_DIR / "bench.css").read_text().removesuffix("\n")
    assert "\n" + (ASSET_DIR / "perf.css").read_text() in styles
    assert "<script" not in page and "@CSS@" not in page


@pytest.mark.parametrize("name", sorted(_assets.ASSETS))
def test_no_asset_fetches_anything(name: str) -> None:
    text = (ASSET_DIR / name).read_text()
    assert not re.search(r"://|url\(|@import|\bsrc\s*=|fetch\(|XMLHttpRequest", text, re.I), name


def test_an_unknown_asset_is_refused_by_name() -> None:
    with pytest.raises(NotFoundError, match=r"'report\.html'.*report\.css, report\.js"):
        _assets.asset("report.html")


@pytest.mark.parametrize(("name", "text"), [("report.js", 'var s = "</SCRIPT>";\n'),
                                            ("perf.css", "/* </style> */\n")])
def test_an_asset_that_would_close_its_element_is_refused(
        name: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / name).write_text(text)
    monkeypatch.setattr(_assets, "files", lambda package: tmp_path)
    with pytest.raises(ValidationError, match=rf"{re.escape(repr(name))} contains '</"):
        _assets.asset.__wrapped__(name)  # the uncached function: the real assets stay cached as they are
