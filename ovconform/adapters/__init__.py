"""Adapters exposing other runtimes' devices as ovconform plugins (``--plugin=openvino:CPU``)."""
