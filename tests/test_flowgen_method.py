"""flowgen: what is specific to this paper (the generic checks are in tests/test_papers.py)."""

from __future__ import annotations

import numpy as np
import pytest

from repro.papers.flowgen.method import estimate


def test_estimators_on_a_known_sample():
    x = np.array([1.0, 2.0, 9.0])
    assert estimate("mean", x) == pytest.approx(4.0)
    assert estimate("median", x) == 2.0
    with pytest.raises(ValueError, match="unknown method"):
        estimate("mode", x)
