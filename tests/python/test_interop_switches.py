"""Internal switches (fovea._interop.switched): per thread, never the environment,
unknown names refused; "plain_get" reads small CuPy arrays the plain way with the
same values (GPU)."""

import threading

import numpy as np
import pytest

from fovea import _interop as ix


def test_switch_scoped_and_per_thread():
    assert not ix.switch("ridge_arrays")
    seen = []
    with ix.switched("ridge_arrays"):
        assert ix.switch("ridge_arrays")
        t = threading.Thread(target=lambda: seen.append(ix.switch("ridge_arrays")))
        t.start()
        t.join()
        with ix.switched("ridge_arrays", False):
            assert not ix.switch("ridge_arrays")
        assert ix.switch("ridge_arrays")
    assert not ix.switch("ridge_arrays")
    assert seen == [False]


def test_unknown_switch():
    with pytest.raises(ValueError, match="no internal switch"):
        with ix.switched("nope"):
            pass


@pytest.mark.gpu
def test_plain_get_same_values(cp):
    for a in (cp.arange(12, dtype=cp.float32).reshape(3, 4), cp.ones((5,), bool), cp.arange(6)[::2]):
        want = ix.host(a)
        with ix.switched("plain_get"):
            got = ix.host(a)
        assert got.dtype == want.dtype and np.array_equal(got, want)
