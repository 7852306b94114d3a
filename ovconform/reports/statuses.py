"""A record's statuses and how the reports group them, defined once (records, renderers, diff and
the HTML page's script all read them from here)."""

from __future__ import annotations

from typing import Final

#: every status a record can have
STATUSES: Final = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "crashed", "hanged")
#: the summary columns, in order
COUNTERS: Final = ("passed", "failed", "skipped", "crashed", "hanged")
#: which summary column a status counts in
COUNTER_OF: Final = {"passed": "passed", "xpassed": "passed", "failed": "failed", "error": "failed",
                     "xfailed": "failed", "skipped": "skipped", "crashed": "crashed", "hanged": "hanged"}
#: statuses that fail a run (and that a diff reports as a regression when a test moves into them)
BAD: Final = ("failed", "error", "crashed", "hanged", "xpassed")
#: statuses a test may leave for BAD as a regression
GOOD: Final = ("passed", "xfailed")

__all__ = ["BAD", "COUNTERS", "COUNTER_OF", "GOOD", "STATUSES"]
