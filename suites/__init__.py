"""ovconform's conformance suites (installed as ``ovconform.suites``)."""
