"""The host's HETERO device (OpenVINO's ``src/plugins/hetero``): one model split over several
devices, its export/import and its blob format. Built on :mod:`ovconform.contract` only; the Core
that gives it its devices is handed in, never imported.
"""
