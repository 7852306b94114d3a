(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("ovc-data").textContent);
  var RECS = DATA.records, DEVICES = Object.keys(DATA.devices).sort();
  // statuses come with the data (ovconform/reports/statuses.py), never written out here
  var BAD = DATA.statuses.bad, STATUSES = DATA.statuses.all, COUNTER = DATA.statuses.counter;
  var KEYS = ["name", "opset", "device", "status", "scope", "sort"];
  var state = {name: "", opset: "", device: "", status: "", scope: "all", sort: ""};

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function uniq(xs) { return xs.filter(function (x, i) { return xs.indexOf(x) === i; }).sort(); }
  function fill(select, values) {
    values.forEach(function (v) { var o = el("option", v); o.value = v; select.appendChild(o); });
  }
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    KEYS.forEach(function (k) { if (p.has(k)) state[k] = p.get(k); });
    if (["all", "mandatory", "optional"].indexOf(state.scope) < 0) state.scope = "all";
  }
  function writeHash() {
    var p = new URLSearchParams();
    KEYS.forEach(function (k) { if (state[k] && !(k === "scope" && state[k] === "all")) p.set(k, state[k]); });
    var h = p.toString();
    history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
  }
  function syncControls() {
    document.getElementById("f-name").value = state.name;
    document.getElementById("f-opset").value = state.opset;
    document.getElementById("f-device").value = state.device;
    document.getElementById("f-status").value = state.status;
    Array.prototype.forEach.call(document.querySelectorAll("input[name=scope]"), function (r) {
      r.checked = r.value === state.scope;
    });
  }
  // every filter but status: the summary keeps all statuses so its rates stay meaningful
  function inScope(r) {
    if (state.scope !== "all" && r.s !== state.scope) return false;
    if (state.device && r.d !== state.device) return false;
    if (state.opset && r.v !== state.opset) return false;
    if (state.name) {
      var q = state.name.toLowerCase();
      if ((r.op || "").toLowerCase().indexOf(q) < 0 && r.t.toLowerCase().indexOf(q) < 0) return false;
    }
    return true;
  }
  function shown(r) { return inScope(r) && (!state.status || r.st === state.status); }
  function counters(rs) {
    var c = {passed: 0, failed: 0, skipped: 0, crashed: 0, hanged: 0, total: rs.length, good: 0, ran: 0};
    rs.forEach(function (r) {
      c[COUNTER[r.st]] += 1;
      if (r.st !== "skipped") c.ran += 1;
      if (r.st === "passed" || r.st === "xpassed") c.good += 1;
    });
    c.rate = c.ran ? Math.round(10000 * c.good / c.ran) / 100 : null;
    return c;
  }
  function rateCell(rate, extra) {
    var td = el("td", (rate === null ? "n/a" : rate.toFixed(2) + "%") + (extra || ""));
    td.className = rate === null ? "rate-na" : rate === 100 ? "rate-100" : rate >= 50 ? "rate-mid" : "rate-low";
    return td;
  }
  function head(table, cells) {
    var thead = table.querySelector("thead"), tr = el("tr");
    thead.textContent = "";
    cells.forEach(function (c) { tr.appendChild(el("th", c)); });
    thead.appendChild(tr);
  }
  function group(rs, keyf) {
    var m = {};
    rs.forEach(function (r) { var k = keyf(r); (m[k] = m[k] || []).push(r); });
    return m;
  }
  function devicesShown() { return state.device ? [state.device] : DEVICES; }

  function renderSummary() {
    var t = document.getElementById("summary"), body = t.querySelector("tbody");
    head(t, ["entity"].concat(devicesShown().map(function (d) { return d + " pass rate"; }),
                              devicesShown().map(function (d) { return d + " mandatory"; })));
    body.textContent = "";
    var rs = RECS.filter(inScope), by = group(rs, function (r) { return r.e; });
    Object.keys(by).sort().concat(["all"]).forEach(function (entity) {
      var ers = entity === "all" ? rs : by[entity], tr = el("tr", null, "summary-row");
      tr.dataset.entity = entity;
      tr.appendChild(el("th", entity));
      devicesShown().forEach(function (d) {
        var c = counters(ers.filter(function (r) { return r.d === d; }));
        tr.appendChild(rateCell(c.rate, " (" + c.good + "/" + c.ran + ")"));
      });
      devicesShown().forEach(function (d) {
        var c = counters(ers.filter(function (r) { return r.d === d && r.s === "mandatory"; }));
        tr.appendChild(rateCell(c.rate));
      });
      body.appendChild(tr);
    });
  }
  function renderOps() {
    var t = document.getElementById("ops"), body = t.querySelector("tbody");
    var ops = RECS.filter(function (r) { return r.op; });
    document.getElementById("ops-section").hidden = ops.length === 0;
    head(t, ["op", "opset"].concat(devicesShown()));
    body.textContent = "";
    // rows: ops with a record that passes every filter; cells: counted over the records in scope
    var key = function (r) { return r.op + "\u0000" + r.v; }, n = 0;
    var by = group(ops.filter(inScope), key), keep = group(ops.filter(shown), key);
    Object.keys(keep).sort().forEach(function (k) {
      var tr = el("tr", null, "op-row"), parts = k.split("\u0000");
      tr.dataset.op = parts[0]; tr.dataset.opset = parts[1];
      tr.appendChild(el("th", parts[0])); tr.appendChild(el("td", parts[1]));
      devicesShown().forEach(function (d) {
        var c = counters(by[k].filter(function (r) { return r.d === d; }));
        var td = c.total ? rateCell(c.rate, " (" + c.good + "/" + c.ran + ")") : el("td", "");
        td.title = "passed " + c.passed + ", failed " + c.failed + ", skipped " + c.skipped +
                   ", crashed " + c.crashed + ", hanged " + c.hanged;
        tr.appendChild(td);
      });
      body.appendChild(tr); n += 1;
    });
    document.getElementById("count-ops").textContent = n;
  }
  function renderTests() {
    var t = document.getElementById("tests"), body = t.querySelector("tbody");
    head(t, ["test", "entity", "scope", "time (s)"].concat(devicesShown()));
    body.textContent = "";
    var rs = RECS.filter(function (r) { return !r.op; });
    var by = group(rs.filter(inScope), function (r) { return r.t; }), n = 0;
    var keep = group(rs.filter(shown), function (r) { return r.t; });
    Object.keys(keep).sort().forEach(function (k) {
      var tr = el("tr", null, "test-row"), first = by[k][0];
      tr.dataset.status = uniq(by[k].map(function (r) { return r.st; })).join(" ");
      tr.appendChild(el("th", k)); tr.appendChild(el("td", first.e)); tr.appendChild(el("td", first.s));
      var secs = by[k].filter(function (r) { return !state.device || r.d === state.device; })
        .reduce(function (a, r) { return a + (r.du || 0); }, 0);
      tr.appendChild(el("td", secs.toFixed(3), "time"));
      devicesShown().forEach(function (d) {
        var mine = by[k].filter(function (r) { return r.d === d; });
        var sts = uniq(mine.map(function (r) { return r.st; }));
        var td = el("td", sts.join(", "), sts.length === 1 ? "st-" + sts[0] : "");
        td.title = mine.map(function (r) { return r.st + " in " + (r.du || 0).toFixed(3) + " s"; }).join("; ");
        tr.appendChild(td);
      });
      body.appendChild(tr); n += 1;
    });
    document.getElementById("count-tests").textContent = n;
  }
  function download(name, b64) {
    // a data: link with a download name (nothing is fetched: the bytes are in the page)
    var a = document.createElement("a");
    a.href = "data:application/zip;base64," + b64;
    a.download = name; document.body.appendChild(a); a.click(); a.remove();
  }
  function foldable(summary, text, cls) {
    var d = el("details", null, cls); d.appendChild(el("summary", summary)); d.appendChild(el("pre", text));
    return d;
  }
  function failureDiv(r) {
    var div = el("div", null, "failure");
    div.dataset.status = r.st; div.dataset.device = r.d;
    div.appendChild(el("b", r.d + " \u2014 " + r.st + ": "));
    div.appendChild(el("code", r.n));
    div.appendChild(el("span", " (" + (r.du || 0).toFixed(3) + " s)", "duration"));
    if (r.op) div.appendChild(el("div", "op " + r.op + " " + r.v + (r.sub ? " (" + r.sub + ")" : "")));
    if (r.tolerance !== undefined) div.appendChild(el("div", "tolerance: " + JSON.stringify(r.tolerance)));
    if (r.tolerances !== undefined) div.appendChild(el("div", "tolerances: " + JSON.stringify(r.tolerances)));
    if (r.max_abs_err !== undefined) div.appendChild(el("div", "max abs error: " + r.max_abs_err));
    if (r.max_rel_err !== undefined) div.appendChild(el("div", "max rel error: " + r.max_rel_err));
    if (r.graph) div.appendChild(el("div", "graph " + r.graph + (r.variant ? " (" + r.variant + ")" : "")));
    if (r.unfused) div.appendChild(el("div", "unfused control: " + r.unfused, "unfused"));
    if (r.graph_ops && r.graph_ops.length) {
      var ol = el("ol", null, "graph-ops");
      r.graph_ops.forEach(function (op) { ol.appendChild(el("li", op)); });
      div.appendChild(ol);
    }
    div.appendChild(el("pre", r.m || ""));
    if (r.det) div.appendChild(foldable("traceback and captured output", r.det, "details"));
    if (r.repro) {
      var p = el("div", "repro: ", "repro-line"); p.appendChild(el("code", r.repro, "repro"));
      var rp = r.rp || {};
      if (rp.zip) {
        var b = el("button", "download " + rp.name, "repro-download"); b.type = "button";
        b.dataset.name = rp.name;
        b.addEventListener("click", function () { download(rp.name, rp.zip); });
        p.appendChild(document.createTextNode(" ")); p.appendChild(b);
      }
      if (rp.why) p.appendChild(el("span", " (" + rp.why + ")", "repro-why"));
      div.appendChild(p);
      if (rp.script) div.appendChild(foldable("repro script", rp.script, "repro-script"));
    }
    return div;
  }
  function renderFailures() {
    var box = document.getElementById("failures");
    box.textContent = "";
    var rs = RECS.filter(function (r) { return BAD.indexOf(r.st) >= 0 && shown(r); });
    var by = group(rs, function (r) { return r.c || r.t; });
    var causes = Object.keys(by).sort(function (a, b) { return by[b].length - by[a].length || (a < b ? -1 : 1); });
    causes.forEach(function (c) {
      var g = el("details", null, "cause"); g.dataset.cause = c; g.dataset.count = by[c].length;
      g.open = causes.length <= 20;
      g.appendChild(el("summary", by[c].length + " \u00d7 " + c));
      by[c].forEach(function (r) { g.appendChild(failureDiv(r)); });
      box.appendChild(g);
    });
    if (!rs.length) box.appendChild(el("p", "None."));
    document.getElementById("count-failures").textContent = rs.length;
    document.getElementById("count-causes").textContent = causes.length;
  }
  // sorting: a click on a column head of a .sortable table; the state is "table.column[.desc]"
  function cellValue(tr, col) {
    var c = tr.children[col], t = c ? c.textContent.trim() : "", n = parseFloat(t);
    return isNaN(n) || !/^[-+]?[0-9.]/.test(t) ? t.toLowerCase() : n;
  }
  function applySort() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable th.sorted"), function (th) {
      th.classList.remove("sorted", "desc");
    });
    var parts = (state.sort || "").split("."), t = document.getElementById(parts[0] || "");
    var col = parseInt(parts[1], 10), desc = parts[2] === "desc";
    if (!t || !t.classList.contains("sortable") || isNaN(col)) return;
    var body = t.querySelector("tbody"), rows = Array.prototype.slice.call(body.children);
    var keep = rows.filter(function (tr) { return tr.dataset.entity === "all"; });  // the summary's total stays last
    rows = rows.filter(function (tr) { return keep.indexOf(tr) < 0; });
    rows.sort(function (a, b) {
      var x = cellValue(a, col), y = cellValue(b, col);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1);
    });
    rows.concat(keep).forEach(function (tr) { body.appendChild(tr); });
    var th = t.querySelectorAll("thead th")[col];
    if (th) { th.classList.add("sorted"); if (desc) th.classList.add("desc"); }
  }
  document.addEventListener("click", function (ev) {
    var th = ev.target.closest ? ev.target.closest("table.sortable thead th") : null;
    if (!th) return;
    var t = th.closest("table"), col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var same = state.sort.split(".").slice(0, 2).join(".") === t.id + "." + col;
    state.sort = t.id + "." + col + (same && state.sort.split(".")[2] !== "desc" ? ".desc" : "");
    writeHash(); applySort();
  });
  function renderAll() { renderSummary(); renderOps(); renderTests(); renderFailures(); applySort(); }
  function onChange() {
    state.name = document.getElementById("f-name").value;
    state.opset = document.getElementById("f-opset").value;
    state.device = document.getElementById("f-device").value;
    state.status = document.getElementById("f-status").value;
    var r = document.querySelector("input[name=scope]:checked");
    state.scope = r ? r.value : "all";  // state.sort is kept: it is set by the column heads
    writeHash(); renderAll();
  }

  var opsets = RECS.filter(function (r) { return r.op; }).map(function (r) { return r.v; });
  fill(document.getElementById("f-opset"), uniq(opsets));
  fill(document.getElementById("f-device"), DEVICES);
  fill(document.getElementById("f-status"), STATUSES);
  readHash(); syncControls(); renderAll();
  document.getElementById("filters").addEventListener("input", onChange);
  document.getElementById("filters").addEventListener("change", onChange);
  document.getElementById("f-reset").addEventListener("click", function () {
    state = {name: "", opset: "", device: "", status: "", scope: "all", sort: ""};
    syncControls(); writeHash(); renderAll();
  });
  window.addEventListener("hashchange", function () {
    state = {name: "", opset: "", device: "", status: "", scope: "all", sort: ""};
    readHash(); syncControls(); renderAll();
  });
})();
