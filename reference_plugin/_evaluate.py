"""Compatibility import: the plain interpreter is :mod:`reference_plugin.evaluate`.

Kept while test modules outside ``reference_plugin`` and ``tests/reference`` (being moved by the
op-family work) still import this name; new code imports :mod:`reference_plugin.evaluate`.
"""

from reference_plugin.evaluate import Inputs, ModelRunner, evaluate

__all__ = ["Inputs", "ModelRunner", "evaluate"]
