"""Versions (``ov_plugin`` entity): ``behavior/ov_plugin/version.hpp`` VersionTests (M) and
``core_integration_sw.hpp`` getVersionsNonEmpty (O): ``get_versions("HETERO:DEV")`` answers two
entries, HETERO's and the device's, and the device's Version fields are well formed."""

from __future__ import annotations

from typing import Any

import pytest

from ovconform.assertions import assert_equal, assert_not_empty, assert_property_type, assert_that, call, no_error

pytestmark = pytest.mark.entity("ov_plugin")


@pytest.mark.mandatory
def test_plugin_current_version_is_correct(ov_core: Any, ov_device_name: str) -> None:
    """VersionTests.pluginCurrentVersionIsCorrect: one entry keyed by the device, with a build number
    and a description."""
    where = call(ov_device_name, "get_versions")
    with no_error(where):
        versions = ov_core.get_versions(ov_device_name)
    assert_equal(list(versions), [ov_device_name], "get_versions keys", where)
    version = versions[ov_device_name]
    assert_not_empty(str(version.build_number).strip(), "build_number", where)
    assert_not_empty(str(version.description).strip(), "description", where)


def test_get_versions_non_empty(ov_core: Any, ov_plugin: Any, ov_device_name: str) -> None:
    """OVClassModelOptionalTestP.getVersionsNonEmpty: ``get_versions("HETERO:DEV")`` has two entries,
    HETERO and DEV; and the plugin's Version is well formed."""
    where = call("Core", "get_versions", f"HETERO:{ov_device_name}")
    with no_error(where):
        versions = ov_core.get_versions(f"HETERO:{ov_device_name}")
    assert_equal(sorted(versions), sorted(["HETERO", ov_device_name]), "get_versions keys", where)
    where = call(ov_device_name, "get_version")
    with no_error(where):
        version = ov_plugin.get_version()
    for field in ("major", "minor", "patch"):
        value = getattr(version, field)
        assert_property_type(value, int, f"Version.{field}", where)
        assert_that(value >= 0, f"Version.{field}", value, ">= 0", where)
    assert_not_empty(str(version).strip(), "str(Version)", where)
