"""No pickle, eval or exec on any input path.

* Statically: no module of ovconform, reference_plugin or the suites imports pickle, marshal,
  shelve, dill, cloudpickle, joblib or yaml, or calls the builtins ``eval``, ``exec`` or ``compile``,
  or calls ``numpy.load`` with ``allow_pickle=True``.
* Dynamically: in a child interpreter with a ``sys.addaudithook`` hook, import_model (valid blobs,
  and blobs and documents that carry a pickle stream in every field a parser reads) and read_model
  raise no ``pickle.find_class``, ``marshal.loads``, ``exec`` or ``compile`` audit event (CPython
  raises ``exec`` for exec/eval of code and ``compile`` for compile(); the calls are warmed up
  first, so module imports do not count).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import REPO

ROOT = REPO
PACKAGES = ("ovconform", "reference_plugin", "suites")
BANNED_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle", "joblib", "yaml"}
BANNED_CALLS = {"eval", "exec", "compile"}


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(ROOT)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"{where}:{node.lineno}: import {a.name}" for a in node.names
                    if a.name.split(".")[0] in BANNED_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in BANNED_MODULES:
            out.append(f"{where}:{node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BANNED_CALLS:
                out.append(f"{where}:{node.lineno}: {func.id}(...)")
            if isinstance(func, ast.Attribute) and func.attr == "load" and any(
                    k.arg == "allow_pickle" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                    for k in node.keywords):
                out.append(f"{where}:{node.lineno}: load(..., allow_pickle=<not False>)")
    return out


def test_sources_are_scanned() -> None:
    files = _sources()
    assert len(files) > 100 and any(p.name == "_blob.py" for p in files) and any(p.name == "_read.py" for p in files)


def test_no_unsafe_loading_in_the_sources() -> None:
    problems = [p for path in _sources() for p in _problems(path)]
    assert problems == []


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "pkg" / "bad.py"
    bad.parent.mkdir()
    bad.write_text("import pickle\nfrom marshal import loads\nimport numpy as np\n"
                   "eval('1')\nexec('x = 1')\nnp.load('f', allow_pickle=True)\nnp.load('f', allow_pickle=flag)\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = _problems(bad)
    finally:
        ROOT = saved
    assert [f.split(": ", 1)[1] for f in found] == [
        "import pickle", "from marshal import ...", "eval(...)", "exec(...)", "load(..., allow_pickle=<not False>)",
        "load(..., allow_pickle=<not False>)"]


CHILD = r'''
import dataclasses, pickle, sys
import numpy as np
from ovconform import Core, read_model, serialize
from ovconform.errors import OVConformError
from ovconform.suites import _models
from reference_plugin._blob import pack, unpack

core = Core()
payload = pickle.dumps(Exception("boom"))  # made before the hook is armed
blob = bytes(core.compile_model(_models.build("matmul_bias"), "REFERENCE").export_model())
parts = unpack(blob)
xml, weights = serialize(_models.build("matmul_bias"))
text = payload.decode("latin-1").replace("<", "").replace("&", "").replace('"', "")
cases = [
    ("valid blob", lambda: core.import_model(blob, "REFERENCE")),
    ("pickle as the blob", lambda: core.import_model(payload, "REFERENCE")),
    ("pickle as the weights", lambda: core.import_model(
        pack(dataclasses.replace(parts, weights=payload)), "REFERENCE")),
    ("pickle in the config", lambda: core.import_model(
        pack(dataclasses.replace(parts, config={**parts.config, "PERF_COUNT": text})), "REFERENCE")),
    ("pickle as the producer", lambda: core.import_model(pack(dataclasses.replace(parts, producer=text)), "REFERENCE")),
    ("pickle as the xml", lambda: core.import_model(pack(dataclasses.replace(parts, xml=payload)), "REFERENCE")),
    ("valid document", lambda: read_model(xml, weights)),
    ("pickle as weights", lambda: read_model(xml, payload)),
    ("pickle as a document", lambda: read_model(payload, None)),
]
def run_all():
    for _name, fn in cases:
        try:
            fn()
        except OVConformError:
            pass
run_all()
run_all()  # every lazy import is done
seen = []
armed = [True]
def hook(event, args):
    if armed[0] and event in ("pickle.find_class", "marshal.loads", "marshal.load", "exec", "compile"):
        seen.append(event)
sys.addaudithook(hook)
for name, fn in cases:
    try:
        fn()
    except OVConformError:
        pass
    if seen:
        print("UNSAFE", name, seen, flush=True)
        seen.clear()
armed[0] = False
print("CLEAN", flush=True)
'''


@pytest.mark.timeout(120)
def test_no_pickle_eval_or_exec_at_run_time() -> None:
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=110, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "UNSAFE" not in proc.stdout, proc.stdout
    assert "CLEAN" in proc.stdout


def test_the_audit_hook_sees_pickle() -> None:
    """The dynamic check has teeth: the same hook sees pickle.loads."""
    code = ("import pickle, sys\nseen = []\n"
            "sys.addaudithook(lambda e, a: seen.append(e) if e == 'pickle.find_class' else None)\n"
            "pickle.loads(pickle.dumps(ValueError('x')))\nprint(seen)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert "pickle.find_class" in proc.stdout
