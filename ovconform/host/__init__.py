"""What drives devices (OpenVINO's ``src/inference/src/dev``): the Core, its model cache, the plugin
manager, ``--plugin X`` resolution and expectation files. ``ovconform.Core`` is re-exported at the top.
"""
