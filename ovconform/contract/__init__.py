"""What a device builds on (OpenVINO's ``dev_api``): the plugin, compiled-model and infer-request
base classes, task executors, tensors and the blob container. Imported by devices and by the host;
imports nothing of ``host/`` or ``hetero/``. The public names are re-exported by :mod:`ovconform.api`.
"""
