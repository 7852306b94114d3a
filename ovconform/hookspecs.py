"""Every ovconform hook, specified and documented in one place.

Plugins implement hooks with ``@ovconform.hookimpl``; the host calls them through the plugin
manager built by :func:`ovconform.host.manager.get_plugin_manager` (the ``ovconform`` entry points;
a ``--plugin`` module or ``.py`` file is asked for its devices only). Every hook here is called
somewhere and documented in the README's "Hooks" section (``tests/reports/test_report_hooks.py``
fails otherwise).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from ovconform.registry import DeviceRegistry

_spec = pluggy.HookspecMarker("ovconform")


# -- discovery ------------------------------------------------------------------------------------

@_spec
def ovconform_register_devices(registry: DeviceRegistry) -> None:
    """Register device plugins: call ``registry.add(PluginClass)`` (or a zero-argument factory)
    once per device.

    :param registry: the host's device registry; it validates each plugin as it is added
        (duplicate device names, missing contract methods) and raises
        :class:`ovconform.errors.PluginValidationError` naming the plugin and its distribution.
    :return: nothing; register through ``registry``.
    """


# -- configuration ------------------------------------------------------------------------------

@_spec(firstresult=True)
def ovconform_get_tolerance(device: str, op_type: str, version: int, element_type: str) -> dict[str, float] | None:
    """Override the numeric tolerance used when comparing ``device``'s outputs with REFERENCE.

    :param device: the device name under test, e.g. ``"MYDEV"``.
    :param op_type: the op type, e.g. ``"Softmax"``, or ``"*model*"`` for whole-model comparisons.
    :param version: the op version.
    :param element_type: the output element type name, e.g. ``"f16"``.
    :return: a dict with any of ``atol``, ``rtol``, ``ulp``; or None to keep the default table.
        Stops at first non-None result.
    """


@_spec
def ovconform_expectations(device: str) -> list[str]:
    """Contribute expectation lines (``node-id-pattern  # reason``) for ``device``.

    :param device: the device name under test.
    :return: lines in the expectation-file format; every entry needs a reason.
    """
    return []


@_spec
def ovconform_add_models(device: str) -> list[Any]:
    """Contribute extra models to the model conformance suite.

    :param device: the device name under test.
    :return: a list of ``(name, builder)`` pairs; ``builder()`` returns an ``ovconform.Model``.
    """
    return []


# -- report -------------------------------------------------------------------------------------

@_spec
def ovconform_report_written(path: str, report: dict[str, Any]) -> None:
    """Called after a device's report has been written: on the pytest controller at the end of a
    run (once per device), and by ``ovconform report rebuild``
    (:func:`ovconform.reports.conformance.write_document`). Not called by a collection-only run,
    which writes nothing.

    :param path: the file written: ``<report-dir>/<DEVICE>/conformance.json``, or
        ``conformance.partial.json`` beside it for a partial run when a full report is there.
    :param report: the report document, valid against ``ovconform/reports/schema.json`` (read only).
    """
