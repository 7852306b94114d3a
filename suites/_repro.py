"""Standalone reproducers of numeric failures.

:func:`write_repro` writes, under ``<report-dir>/<DEVICE>/repro/<test-id>/``: the model
(``model.xml``/``model.bin`` via :func:`ovconform.serialize`), the inputs and REFERENCE's expected
outputs (``inputs.npz``/``expected.npz``, plain arrays, loaded with ``allow_pickle=False``), the
tolerances and device spec (``meta.json``) and ``repro.py``: run with plain ``python``, it creates
the device from its ``--plugin`` value, compiles, infers every step on one request, compares with
the expected outputs and exits 1 (printing the mismatch) when any output is out of tolerance.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

import ovconform
from ovconform.ir import Model
from ovconform.tolerances import Tolerance

__all__ = ["repro_dir", "write_repro"]

SCRIPT = '''"""Reproduce {test_id!r} on device {device!r} (written by the ovconform op/model suite).

Run: python repro.py   (exit 0: outputs match; exit 1: mismatch, printed)
"""
import json
import sys
from pathlib import Path

import numpy as np

import ovconform
from ovconform import Core, Tensor
from ovconform.host.plugin_specs import resolve
from ovconform.tolerances import Tolerance, compare

HERE = Path(__file__).resolve().parent


def main() -> int:
    meta = json.loads((HERE / "meta.json").read_text())
    dut = next(d for d in resolve([meta["spec"]]) if d.name == meta["device"])
    core = Core(discover=False)
    core.register_plugin(dut.entry.factory, dut.name)
    model = ovconform.read_model(str(HERE / "model.xml"), str(HERE / "model.bin"))
    inputs = np.load(HERE / "inputs.npz", allow_pickle=False)
    expected = np.load(HERE / "expected.npz", allow_pickle=False)
    request = core.compile_model(model, dut.name).create_infer_request()
    failed = 0
    for step in range(meta["steps"]):
        feed = {{i: Tensor(inputs[f"s{{step}}__{{name}}"]) for i, name in enumerate(meta["parameters"])}}
        results = request.infer(feed)
        values = list(results.values()) if isinstance(results, dict) else list(results)
        for i, tol in enumerate(meta["tolerances"]):
            got = np.array(getattr(values[i], "data", values[i]))
            result = compare(got, expected[f"s{{step}}__o{{i}}"], Tolerance(**tol), meta["element_types"][i],
                             bits=meta.get("bits", [])[i:i + 1] == [True])
            status = "ok" if result.passed else "MISMATCH"
            print(f"step {{step}} output {{i}}: {{status}}: {{result.message}}")
            failed += not result.passed
    print("FAILED" if failed else "PASSED", f"({{failed}} mismatching output(s))")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def repro_dir(config: Any, device: str, test_id: str) -> Path:
    """``<report-dir>/<DEVICE>/repro/<test-id>`` (the id made file-name safe)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", test_id).strip("_")[:150]
    return Path(config.getoption("ovconform_report_dir")).resolve() / device / "repro" / safe



def _plain(value: Any) -> np.ndarray:
    """``value`` as an array .npz holds without pickling: a string tensor (an object array of str or
    bytes) becomes numpy's fixed-width ``U``/``S`` array of the same strings."""
    arr = np.asarray(value)
    return np.array(arr.tolist()).reshape(arr.shape) if arr.dtype.hasobject else arr

def write_repro(folder: Path, *, test_id: str, spec: str, device: str, model: Model,
                steps: list[dict[str, np.ndarray]], expected: list[list[np.ndarray]],
                tolerances: list[Tolerance], bits: list[bool] | None = None) -> Path:
    """Write the reproducer into ``folder``; returns the script's path. ``bits``: per output,
    whether it is compared bit for bit (a copying op's output in an op case)."""
    folder.mkdir(parents=True, exist_ok=True)
    ovconform.serialize(model, folder / "model.xml", folder / "model.bin")
    params = [p.friendly_name for p in model.get_parameters()]
    # plain arrays only: repro.py loads them with allow_pickle=False
    np.savez(folder / "inputs.npz", allow_pickle=False,
             **{f"s{s}__{n}": _plain(step[n]) for s, step in enumerate(steps) for n in params})
    np.savez(folder / "expected.npz", allow_pickle=False,
             **{f"s{s}__o{i}": _plain(v) for s, outs in enumerate(expected) for i, v in enumerate(outs)})
    meta = {"test_id": test_id, "spec": spec, "device": device, "steps": len(steps), "parameters": params,
            "tolerances": [t.to_dict() for t in tolerances],
            "element_types": [r.get_input_element_type(0).name for r in model.get_results()],
            "bits": list(bits) if bits is not None else [False] * len(tolerances)}
    (folder / "meta.json").write_text(json.dumps(meta, indent=2))
    script = folder / "repro.py"
    script.write_text(SCRIPT.format(test_id=test_id, device=device))
    return script
