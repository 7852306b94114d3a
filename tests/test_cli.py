"""Every ``ovconform`` command answers a user's mistake (a missing file, a bad flag, invalid JSON, an
unknown name) with one ``error:`` line naming the bad value and exit status 2 (or, for a benchmark
that cannot run, a one-line ``[ ERROR ]`` and exit 1) — never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovconform.cli import main

#: (arguments, text the error must contain, exit status); files: bad.json is "{", empty.json is "[]"
MISTAKES = [
    (["nosuchcmd"], "invalid choice: 'nosuchcmd'", 2),
    (["report", "render", "missing.json"], "'missing.json' does not exist", 2),
    (["report", "render", "bad.json"], "'bad.json' is not readable JSON", 2),
    (["report", "render", "empty.json"], "empty.json", 2),
    (["report", "render", "bad.json", "--format", "pdf"], "invalid choice: 'pdf'", 2),
    (["report", "merge", "missing.json", "-o", "m.json"], "'missing.json' does not exist", 2),
    (["report", "merge", "bad.json", "-o", "m.json"], "'bad.json' is not readable JSON", 2),
    (["report", "validate", "bad.json"], "'bad.json' is not readable JSON", 2),
    (["report", "diff", "bad.json", "missing.json"], "bad.json", 2),
    (["report", "rebuild", "nodir"], "no journal in 'nodir", 2),
    (["report", "sample", "--from", "missing.json", "--out", "o"], "missing.json' does not exist", 2),
    (["ops", "--junit", "missing.xml"], "cannot read the JUnit file 'missing.xml'", 2),
    (["ops", "--report", "bad.json"], "cannot read the conformance report 'bad.json'", 2),
    (["ops", "--depth", "deep"], "deep", 2),
    (["bench", "--plugin", "NOPE", "-m", "mlp", "-niter", "1"], "--plugin='NOPE' matches no installed device", 2),
    (["bench", "--plugin", "REFERENCE", "-m", "mlp", "-niter", "-3"], "expected an integer >= 1, got -3", 2),
    (["bench", "--plugin", "REFERENCE", "-m", "nosuchmodel", "-niter", "1", "--no-progress"],
     "--model 'nosuchmodel' names no model", 1),
    (["bench", "--plugin", "REFERENCE", "-m", "missing.xml", "-niter", "1", "--no-progress"],
     "missing.xml' does not exist", 1),
    (["bench", "--plugin", "REFERENCE", "-m", "mlp", "--property", "NOEQUALS"], "NOEQUALS", 2),
]


@pytest.mark.parametrize(("args", "says", "status"), MISTAKES, ids=[" ".join(a) for a, _, _ in MISTAKES])
def test_a_user_mistake_is_one_line_and_no_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], args: list[str], says: str,
                                                     status: int) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "empty.json").write_text("[]")
    try:
        code = main(args)
    except SystemExit as e:  # argparse's own usage errors
        code = e.code if isinstance(e.code, int) else 2
    out, err = capsys.readouterr()
    text = out + err
    assert code == status, text
    assert "Traceback" not in text and says in text, text
    assert ("error: " in err) if status == 2 else ("[ ERROR ]" in text)
