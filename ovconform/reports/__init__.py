"""Report code: the conformance report plugin, the JSON document, and (later) renderers."""
