"""Recurrent sequence models at a realistic size: a two-layer LSTM/GRU tagger."""

from __future__ import annotations

import numpy as np

from ovconform import opset as ops
from ovconform.ir import Model, Type

from ._blocks import F32, I64, Weights, dense, i64

__all__ = ["rnn_tagger"]


def rnn_tagger(batch: int = 4, steps: int = 64, vocab: int = 5000, d: int = 256, hidden: int = 256,
               tags: int = 32) -> Model:
    """A sequence tagger: token embedding, a bidirectional LSTMSequence-5 (hidden 256), a forward
    GRUSequence-5 (linear_before_reset) over its concatenated directions, a dense head per token.
    Sequence lengths differ per batch row (64, 50, 33, 17), so the cells' length masking counts.
    Recurrent weights are uniform ±1/sqrt(hidden), as PyTorch initialises LSTM and GRU."""
    w = Weights(11)
    ids = ops.parameter([batch, steps], I64, name="input_ids")
    x = ops.gather(w.normal(vocab, d, std=1.0, name="embedding.weight"), ids, i64(0), name="embedding")
    lengths = ops.constant(np.linspace(steps, steps // 4, batch).astype(np.int32), Type.i32, name="lengths")
    r = float(1 / np.sqrt(hidden))
    zeros = ops.constant(np.zeros((batch, 2, hidden), np.float32), F32, name="lstm.h0")
    lstm = ops.lstm_sequence(x, zeros, ops.constant(np.zeros((batch, 2, hidden), np.float32), F32, name="lstm.c0"),
                             lengths, w.uniform(2, 4 * hidden, d, low=-r, high=r),
                             w.uniform(2, 4 * hidden, hidden, low=-r, high=r),
                             w.uniform(2, 4 * hidden, low=-r, high=r), hidden, "bidirectional", name="lstm")
    # Y: [batch, 2, steps, hidden] → [batch, steps, 2·hidden]
    y = ops.reshape(ops.transpose(lstm.output(0), i64(0, 2, 1, 3), name="lstm.to_time_major"),
                    i64(batch, steps, 2 * hidden), False, name="lstm.merge_directions")
    h0 = ops.constant(np.zeros((batch, 1, hidden), np.float32), F32, name="gru.h0")
    gru = ops.gru_sequence(y, h0, lengths, w.uniform(1, 3 * hidden, 2 * hidden, low=-r, high=r),
                           w.uniform(1, 3 * hidden, hidden, low=-r, high=r), w.uniform(1, 4 * hidden, low=-r, high=r),
                           hidden, "forward", linear_before_reset=True, name="gru")
    g = ops.squeeze(gru.output(0), i64(1), name="gru.squeeze_direction")
    return Model([dense(g, w, hidden, tags, "tagger"), gru.output(1)], [ids], "rnn_tagger")
