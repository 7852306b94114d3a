"""Build the plugin manager: specs, blocked plugins, entry points, built-ins. Never at import time."""

from __future__ import annotations

import os
import sys

import pluggy

from ovconform import hookspecs

NAME = "ovconform"

#: Built-in hook implementations (modules), registered after the entry points.
DEFAULT_PLUGINS: tuple[str, ...] = ()


def get_plugin_manager(load_entrypoints: bool = True) -> pluggy.PluginManager:
    """A fresh plugin manager.

    Steps, in order: add the hook specs; block the plugin names listed (comma-separated) in
    ``OVCONFORM_DISABLE_PLUGINS``; load the ``ovconform`` entry-point group; register the
    built-ins; ``check_pending()``. ``OVCONFORM_TRACE_PLUGINS=1`` traces every hook call to stderr.
    """
    pm = pluggy.PluginManager(NAME)
    pm.add_hookspecs(hookspecs)
    for name in _blocked_names():
        pm.set_blocked(name)
    if load_entrypoints:
        pm.load_setuptools_entrypoints(NAME)
    for modname in DEFAULT_PLUGINS:
        import importlib

        pm.register(importlib.import_module(modname), modname)
    pm.check_pending()
    if os.environ.get("OVCONFORM_TRACE_PLUGINS") == "1":
        pm.trace.root.setwriter(sys.stderr.write)
        pm.enable_tracing()
    return pm


def _blocked_names() -> list[str]:
    raw = os.environ.get("OVCONFORM_DISABLE_PLUGINS", "")
    return [n.strip() for n in raw.split(",") if n.strip()]


def distribution_of(pm: pluggy.PluginManager, plugin: object) -> str:
    """'name version' of the distribution a registered plugin came from, or 'not installed'."""
    for plug, dist in pm.list_plugin_distinfo():
        if plug is plugin:
            return f"{dist.project_name} {dist.version}"
    return "not installed (registered directly)"
