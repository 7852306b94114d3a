"""The HTML report in a real browser: headless Chromium loads it with the network cut off (every
request goes to a dead proxy) and dumps the DOM after the inline script ran. The filter state is
read from the URL hash, so each view (``#status=failed``, ``#scope=mandatory``, ...) shows what the
filters and the scope toggle do. One more test drives the controls themselves (select, radio,
text box, reset button) over the DevTools protocol (``--remote-debugging-pipe``).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO
from test_reports_core import document, op_document, record

from ovconform.reports import _doc, merge, render
from ovconform.reports._doc import test_name as _test_name


def _chromium() -> str | None:
    for name in (os.environ.get("OVCONFORM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


CHROMIUM = _chromium()
BROWSER = CHROMIUM or "chromium"  # the tests skip when there is none
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium found (apt-get install -y chromium, or set "
                                                          "OVCONFORM_CHROMIUM to a Chromium/Chrome binary)")

VIEWS = {
    "all": "", "failed": "status=failed", "mandatory": "scope=mandatory", "optional": "scope=optional",
    "relu": "name=relu", "opset8": "opset=opset8", "device_b": "device=B",
    "mand_failed": "scope=mandatory&status=failed",
}


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--proxy-server=127.0.0.1:9"]


def _page(tmp: Path) -> Path:
    doc = merge.merge([op_document("A", relu_status="failed"), op_document("B", relu_status="passed")])
    page = tmp / "report.html"
    page.write_text(render.render(doc, "html"))
    return page


@pytest.fixture(scope="module")
def dom(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every view's DOM, the browsers run in parallel."""
    page = _page(tmp_path_factory.mktemp("html"))
    procs = {}
    profiles = []
    for view, fragment in VIEWS.items():
        profile = tempfile.mkdtemp(prefix="ovconform-chromium-")
        profiles.append(profile)
        cmd = [BROWSER, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
               page.as_uri() + (f"#{fragment}" if fragment else "")]
        procs[view] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        out = {view: p.communicate(timeout=60)[0] for view, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        for profile in profiles:
            shutil.rmtree(profile, ignore_errors=True)
    for view, text in out.items():
        assert 'id="count-tests"' in text, f"chromium gave no DOM for view {view!r}: {text[:500]}"
    # what is shown: the body without the scripts (the inline data names every test)
    return {view: re.sub(r"<script\b.*?</script>", "", text.split("<body>", 1)[1], flags=re.S)
            for view, text in out.items()}


def count(html: str, name: str) -> int:
    m = re.search(rf'id="count-{name}">(\d+)<', html)
    assert m, f"no count-{name} in the DOM"
    return int(m.group(1))


def rows(html: str, cls: str) -> list[str]:
    return re.findall(rf'<tr class="{cls}"[^>]*>(.*?)</tr>', html)


def test_default_view_shows_every_op_test_and_failure(dom: dict[str, str]) -> None:
    html = dom["all"]
    assert (count(html, "ops"), count(html, "tests"), count(html, "failures")) == (3, 4, 3)
    assert len(rows(html, "op-row")) == 3 and len(rows(html, "test-row")) == 4
    assert "repro/A/relu.xml" in html and "max abs error: 0.5" in html
    relu = next(r for r in rows(html, "op-row") if ">Relu<" in r)
    assert "50.00% (1/2)" in relu and "100.00% (2/2)" in relu  # A failed Relu inference, B passed it
    summary_op = next(r for r in rows(html, "summary-row") if ">op<" in r)
    assert "75.00% (3/4)" in summary_op and "100.00% (4/4)" in summary_op


def test_status_filter_shows_only_that_status(dom: dict[str, str]) -> None:
    html = dom["failed"]
    assert (count(html, "ops"), count(html, "tests"), count(html, "failures")) == (1, 1, 3)
    assert 'data-status="failed"' in html and "test_api_ok" not in html
    (relu,) = rows(html, "op-row")  # the row is chosen by status, its cells count every record in scope
    assert ">Relu<" in relu and "50.00% (1/2)" in relu and "100.00% (2/2)" in relu


def test_scope_toggle_switches_between_mandatory_and_optional(dom: dict[str, str]) -> None:
    mand, opt = dom["mandatory"], dom["optional"]
    assert (count(mand, "ops"), count(mand, "tests")) == (2, 2)
    assert (count(opt, "ops"), count(opt, "tests")) == (2, 2)
    assert "test_api_ok" in mand and "test_api_ok" not in opt
    assert "test_api_optional" in opt and "test_api_optional" not in mand
    assert ">Softmax<" in opt and ">Softmax<" not in mand
    assert (count(dom["mand_failed"], "tests"), count(dom["mand_failed"], "failures")) == (1, 3)


def test_name_opset_and_device_filters(dom: dict[str, str]) -> None:
    relu = dom["relu"]
    assert (count(relu, "ops"), count(relu, "tests"), count(relu, "failures")) == (1, 0, 1)
    opset8 = dom["opset8"]
    assert (count(opset8, "ops"), count(opset8, "failures")) == (1, 0) and ">Softmax<" in opset8
    only_b = dom["device_b"]
    header = re.search(r'<table id="ops"[^>]*><thead>(.*?)</thead>', only_b)
    assert header is not None and ">B<" in header.group(1) and ">A<" not in header.group(1)
    assert count(only_b, "failures") == 1 and "repro/A/relu.xml" not in only_b


def test_the_page_loads_nothing_from_the_network(dom: dict[str, str]) -> None:
    # with every request sent to a dead proxy the page still rendered (the views above); and it asks for nothing:
    for html in dom.values():
        assert not re.search(r"<(link|img|iframe)\b|\bsrc=", html)


def _dump(page: Path, fragment: str = "") -> str:
    """The DOM of ``page`` after its script ran, without the scripts (the inline data names every test)."""
    profile = tempfile.mkdtemp(prefix="ovconform-chromium-")
    try:
        cmd = [BROWSER, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
               page.as_uri() + (f"#{fragment}" if fragment else "")]
        text = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False).stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert 'id="count-tests"' in text, f"chromium gave no DOM for {page}: {text[:500]}"
    return re.sub(r"<script\b.*?</script>", "", text.split("<body>", 1)[1], flags=re.S)


def _cells(row: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", row)


def test_the_matrix_has_one_row_per_test_whatever_the_device_names(tmp_path: Path) -> None:
    """Devices named with hyphens, dots and colons: each test is one row with a cell per device."""
    names = ["REFERENCE", "openvino-CPU", "GPU.0", "HETERO:CPU,GPU"]
    doc = merge.merge([op_document(name) for name in names])
    page = tmp_path / "matrix.html"
    page.write_text(render.render(doc, "html"))
    html = _dump(page)
    tests = rows(html, "test-row")
    assert count(html, "tests") == len(tests) == 4, [r[:80] for r in tests]
    for row in tests:  # test, entity, scope, time, then one status cell per device, none empty
        cells = _cells(row)[3:]
        assert len(cells) == len(names) and all(cells), row


def test_the_committed_matrix_has_one_row_per_test() -> None:
    """``reports/matrix/conformance.html`` (REFERENCE x openvino-CPU): one row per test, both cells filled."""
    page = REPO / "reports" / "matrix" / "conformance.html"
    doc = json.loads(page.with_suffix(".json").read_text())
    devices = sorted(doc["devices"])
    names = {_test_name(r) for r in doc["records"] if _doc.op_key(r) is None}
    html = _dump(page)
    tests = rows(html, "test-row")
    assert count(html, "tests") == len(tests) == len(names) > 100
    header = re.search(r'<table id="tests"[^>]*><thead>(.*?)</thead>', html)
    assert header is not None and [f">{d}<" in header.group(1) for d in devices] == [True] * len(devices)
    empty = [row[:120] for row in tests if not all(_cells(row)[2:])]
    assert len(devices) == 2 and empty == [], empty[:5]


class DevTools:
    """A page in headless Chromium, driven over ``--remote-debugging-pipe`` (fd 3 in, fd 4 out)."""

    def __init__(self, url: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="ovconform-chromium-")
        to_chrome, self._w = os.pipe()
        self._r, from_chrome = os.pipe()

        def wire() -> None:
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)

        self.proc = subprocess.Popen([BROWSER, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
                                      "--remote-debugging-pipe", url], pass_fds=(3, 4), preexec_fn=wire,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self._buf, self._id, self.session = b"", 0, None
        page = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        deadline = time.monotonic() + 20
        while self.eval("document.readyState === 'complete' && !!document.getElementById('count-tests')") is not True:
            assert time.monotonic() < deadline, "the report page did not load in 20 s"
            time.sleep(0.05)

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 20) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    assert "error" not in reply, f"{method}: {reply['error']}"
                    return reply["result"]
            left = deadline - time.monotonic()
            assert left > 0, f"no DevTools reply to {method} in {timeout} s"
            if select.select([self._r], [], [], left)[0]:
                chunk = os.read(self._r, 1 << 16)
                assert chunk, "chromium closed the DevTools pipe"
                self._buf += chunk

    def eval(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    tools = DevTools(_page(tmp_path).as_uri())
    yield tools
    tools.close()


_STATE = """[location.hash, +document.getElementById("count-ops").textContent,
 +document.getElementById("count-tests").textContent, +document.getElementById("count-failures").textContent]"""


def test_the_controls_filter_and_toggle_in_a_live_page(browser: DevTools) -> None:
    assert browser.eval(_STATE) == ["", 3, 4, 3]
    browser.eval('var s = document.getElementById("f-status"); s.value = "failed";'
                 's.dispatchEvent(new Event("change", {bubbles: true}))')
    assert browser.eval(_STATE) == ["#status=failed", 1, 1, 3]
    browser.eval('document.querySelector("input[name=scope][value=optional]").click()')
    assert browser.eval(_STATE) == ["#status=failed&scope=optional", 0, 0, 0]
    browser.eval('document.querySelector("input[name=scope][value=mandatory]").click()')
    assert browser.eval(_STATE) == ["#status=failed&scope=mandatory", 1, 1, 3]
    browser.eval('var n = document.getElementById("f-name"); n.value = "Relu";'
                 'n.dispatchEvent(new Event("input", {bubbles: true}))')
    assert browser.eval(_STATE) == ["#name=Relu&status=failed&scope=mandatory", 1, 0, 1]
    browser.eval('document.getElementById("f-reset").click()')
    assert browser.eval(_STATE) == ["", 3, 4, 3]
    assert browser.eval('document.querySelector("input[name=scope]:checked").value') == "all"


def test_a_failing_graph_shows_its_ops_and_the_unfused_control(tmp_path: Path) -> None:
    """A failing ``graph`` record (fusion catalogue or fuzz) shows the graph op by op, in order, and
    the unfused control's sentence; nothing of it is interpreted as HTML."""
    ops = ["Convolution 'conv' (x:0, const[64,64,3,3]) -> f32[1,64,56,56]",
           "Add 'bias' (conv:0, const[1,64,1,1]) -> f32[1,64,56,56]", "Relu 'relu<b>' (bias:0) -> f32[1,64,56,56]"]
    facts = {"graph": "conv_bias_relu", "variant": "static", "graph_ops": ops, "repro": "repro/g/repro.py",
             "unfused_control": {"fused_only": True, "sentence": "the failure is in the fused path only"}}
    doc = document("DEV", [record("DEV", "test_graph_pattern", "failed", "graph", "optional", facts)])
    page = tmp_path / "graph.html"
    page.write_text(render.render(doc, "html"))
    html = _dump(page)
    items = re.findall(r"<li>(.*?)</li>", html.split('class="graph-ops"', 1)[1].split("</ol>", 1)[0])
    assert [i.replace("&gt;", ">").replace("&lt;", "<") for i in items] == ops
    assert "unfused control: the failure is in the fused path only" in html
    assert "graph conv_bias_relu (static)" in html and "relu&lt;b&gt;" in html and "relu<b>" not in html
