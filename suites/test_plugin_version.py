"""Versions (``ov_plugin`` entity): ``behavior/ov_plugin/version.hpp`` VersionTests (M) and
``core_integration_sw.hpp`` getVersionsNonEmpty (O; there is no HETERO here, so it checks the
device's own Version fields instead of a two-entry answer)."""

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


def test_get_versions_non_empty(ov_plugin: Any, ov_device_name: str) -> None:
    """OVClassModelOptionalTestP.getVersionsNonEmpty's intent: the plugin's Version is well formed."""
    where = call(ov_device_name, "get_version")
    with no_error(where):
        version = ov_plugin.get_version()
    for field in ("major", "minor", "patch"):
        value = getattr(version, field)
        assert_property_type(value, int, f"Version.{field}", where)
        assert_that(value >= 0, f"Version.{field}", value, ">= 0", where)
    assert_not_empty(str(version).strip(), "str(Version)", where)
