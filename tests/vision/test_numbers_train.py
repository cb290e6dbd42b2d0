"""Continuing the shipped number reader (``models.ballnet.train_numbers.from_onnx``): the
exported net's folded batch norms are undone so that training starts from the shipped
reader itself. Needs the training extra (torch, onnx); skipped without it."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from models.ballnet.train_numbers import from_onnx  # noqa: E402
from tests.bench.test_bench_numbers import _patches  # noqa: E402
from vision.detect.classify import MODEL_DIR, to_input  # noqa: E402
from vision.numbers.reader import NumberReader  # noqa: E402


def test_the_shipped_reader_is_rebuilt_in_torch():
    x = _patches(64)
    model = from_onnx(MODEL_DIR / "numbers.onnx", x)
    shipped = NumberReader.load().session.run(None, {"patch": to_input(x)})[0]
    with torch.no_grad():
        assert np.allclose(model.eval()(torch.from_numpy(to_input(x))).numpy(), shipped, atol=1e-4)
        model.train()
        model.head.eval()  # no dropout: the batch norms alone, on the batch they were set on
        trained_mode = model(torch.from_numpy(to_input(x))).numpy()
    assert np.allclose(trained_mode, shipped, atol=1e-2 * np.abs(shipped).max())
