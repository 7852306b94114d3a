"""Case strategies of the "detect" family, one module per op group (``_detect_prior``,
``_detect_roi``, ``_detect_ctc``, ``_detect_deform``, ``_detect_fake_convert``, ``_detect_sparse``,
``_detect_nms``, ``_detect_dpsroi``, ``_detect_do``, ``_detect_proposal``); each module's docstring
says what it draws and what it keeps away from."""

from __future__ import annotations

from ovconform.opcases import (  # noqa: F401 - registers the cases
    _detect_ctc,
    _detect_deform,
    _detect_do,
    _detect_dpsroi,
    _detect_fake_convert,
    _detect_nms,
    _detect_prior,
    _detect_proposal,
    _detect_roi,
    _detect_sparse,
)
