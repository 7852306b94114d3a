"""How deep the op conformance suite goes: ``--ovconform-depth quick|standard|exhaustive``.

* **quick** — the generated cases only (:data:`DEFAULT_EXAMPLES` per op version): a smoke run
  with tiny shapes; it misses the kernel bugs that need real sizes or hard values.
* **standard** (the default) — the generated cases plus the stimulus cases marked standard
  (:mod:`ovconform.opcases.stimulus`): vector remainders, large shapes, hard values, the element
  types each op's spec allows, and dynamic shapes. Sized so a full REFERENCE run stays under
  90 s on two cores.
* **exhaustive** — more generated cases and every stimulus case (all remainder sizes, every
  element type at every size class); for nightly runs.

The depth comes from ``--ovconform-depth``, else the environment variable ``OVCONFORM_DEPTH``,
else standard. ``--ovconform-examples N`` (or ``OVCONFORM_EXAMPLES``) still sets the number of
generated cases at any depth.
"""

from __future__ import annotations

import enum
import os
from typing import Any, Final

from ovconform.errors import ValidationError

__all__ = ["DEFAULT", "DEFAULT_EXAMPLES", "DEPTHS", "ENV", "EXAMPLES_ENV", "Depth", "depth_from_config",
           "examples_from_config", "parse_depth"]


class Depth(enum.IntEnum):
    """A depth level; a stimulus case marked with a level runs at that level and the deeper ones."""

    QUICK = 0
    STANDARD = 1
    EXHAUSTIVE = 2

    def __str__(self) -> str:
        return self.name.lower()


#: The names ``--ovconform-depth`` accepts, shallow to deep.
DEPTHS: Final = tuple(str(d) for d in Depth)
DEFAULT: Final = Depth.STANDARD
#: The environment variable read when the option is not given.
ENV: Final = "OVCONFORM_DEPTH"
#: The environment variable read when ``--ovconform-examples`` is not given.
EXAMPLES_ENV: Final = "OVCONFORM_EXAMPLES"
#: Generated (hypothesis) cases per op version at each depth, unless ``--ovconform-examples`` says.
DEFAULT_EXAMPLES: Final = {Depth.QUICK: 3, Depth.STANDARD: 10, Depth.EXHAUSTIVE: 30}


def parse_depth(value: Any, source: str = "depth") -> Depth:
    """``value`` (a :class:`Depth` or one of :data:`DEPTHS`, any case) as a Depth.

    :raises ValidationError: naming ``source``, the value and the allowed names.
    """
    if isinstance(value, Depth):
        return value
    name = str(value).strip().lower() if isinstance(value, str) else None
    if name not in DEPTHS:
        raise ValidationError(f"{source}={value!r} is not a depth; allowed: {', '.join(DEPTHS)}.")
    return Depth[name.upper()]


def depth_from_config(config: Any) -> Depth:
    """The run's depth: ``--ovconform-depth``, else ``$OVCONFORM_DEPTH``, else standard.

    :param config: a pytest config (the option may be unregistered when the suites are collected
        without ovconform's plugin: then only the environment counts).
    :raises pytest.UsageError: naming the source for a bad value.
    """
    import pytest

    value, source = None, "--ovconform-depth"
    try:
        value = config.getoption("ovconform_depth")
    except (ValueError, AttributeError):
        pass
    if value is None:
        value, source = os.environ.get(ENV) or str(DEFAULT), ENV
    try:
        return parse_depth(value, source)
    except ValidationError as e:
        raise pytest.UsageError(str(e)) from None


def examples_from_config(config: Any) -> int:
    """N from ``--ovconform-examples``, else ``OVCONFORM_EXAMPLES``, else the depth's default
    (quick 3, standard 10, exhaustive 30).

    :raises pytest.UsageError: naming the source when the value is not an integer >= 1.
    """
    import pytest

    value, source = None, "--ovconform-examples"
    try:
        value = config.getoption("ovconform_examples")
    except ValueError:  # the option is not registered (suites collected without their conftest)
        pass
    if value is None:
        value, source = os.environ.get(EXAMPLES_ENV) or DEFAULT_EXAMPLES[depth_from_config(config)], EXAMPLES_ENV
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise pytest.UsageError(f"{source}={value!r}: the number of cases per op must be an integer >= 1.")
    return n
