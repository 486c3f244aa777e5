"""The conformance job's CuPy mode (tests/conformance/run.py --cupy), its parts that
need no GPU: the wrapper that moves the tests' NumPy arrays to a stand-in "cupy"
module and the results back, the judging against the two known-failure lists, the
report section, and the clear stop without CuPy."""

import collections
import os
import sys
import types

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))

import fovea_substitute as fs  # noqa: E402
import run as conf  # noqa: E402

from fovea import _interop  # noqa: E402


class FakeArray:
    """A device array stand-in: holds a private NumPy copy; .get() copies it back."""

    def __init__(self, a):
        self.a = np.array(a, copy=True)

    def get(self):
        return self.a.copy()


@pytest.fixture
def fake_cp(monkeypatch):
    cp = types.ModuleType("cupy")
    cp.ndarray = FakeArray
    cp.asarray = FakeArray
    monkeypatch.setitem(sys.modules, "cupy", cp)
    return cp


def test_arrays_move_and_results_come_back(fake_cp):
    seen = {}

    def f(x, y, scale=1.0, *, lst=None, mask=None):
        seen.update(x=x, y=y, lst=lst, mask=mask, scale=scale)
        return x.a * scale

    g = fs.on_gpu(f, "skimage", "f")
    x = np.arange(6.0).reshape(2, 3)
    # f returns NumPy for GPU input: that breaks the rule "the input's array type out"
    with pytest.raises(AssertionError, match="NumPy array came back"):
        g(x, x, 2.0, lst=[x, 3], mask=np.zeros(0, np.uint8)[None])
    assert isinstance(seen["x"], FakeArray) and seen["y"] is seen["x"]   # one copy per array
    assert seen["lst"][0] is seen["x"] and seen["lst"][1] == 3
    assert isinstance(seen["mask"], FakeArray)
    assert seen["scale"] == 2.0


def test_results_back_to_numpy(fake_cp):
    Pair = collections.namedtuple("Pair", "a b")

    def f(x):
        return (FakeArray(x.a + 1), Pair(FakeArray(x.a), 3), [FakeArray(x.a)], {"k": FakeArray(x.a)},
                (FakeArray(v) for v in x.a), np.float64(2.5))

    x = np.arange(4)
    t, pair, lst, d, gen, sc = fs.on_gpu(f, "skimage", "f")(x)
    assert type(t) is np.ndarray and np.array_equal(t, x + 1)
    assert type(pair) is Pair and type(pair.a) is np.ndarray and pair.b == 3
    assert type(lst[0]) is np.ndarray and type(d["k"]) is np.ndarray
    assert [type(v) for v in gen] == [np.ndarray] * 4
    assert sc == 2.5


def test_numpy_result_breaks_the_rule(fake_cp):
    g = fs.on_gpu(lambda x: np.zeros(3), "skimage", "fovea.skimage.filters.f")
    with pytest.raises(AssertionError, match="fovea.skimage.filters.f"):
        g(np.ones(3))
    # nothing moved (no array argument): NumPy out is fine
    assert fs.on_gpu(lambda n: np.zeros(n), "skimage", "f")(3).shape == (3,)


def test_outputs_written_back(fake_cp):
    def f(input, weights, output=None, out=None):
        dst = output if output is not None else out
        dst.a[...] = input.a * 2
        return dst

    x = np.arange(5.0)
    for call in (lambda g, o: g(x, None, o), lambda g, o: g(x, None, output=o), lambda g, o: g(x, None, out=o)):
        o = np.zeros(5)
        r = call(fs.on_gpu(f, "cucim", "f"), o)
        assert r is o and np.array_equal(o, x * 2)
    # scipy's distance transforms write distances= / indices= in place
    def edt(input, return_distances=True, distances=None, indices=None):
        distances.a[...] = input.a + 1
        indices.a[...] = 7

    x, dist, ind = np.zeros(4), np.zeros(4), np.zeros(4, np.int32)
    assert fs.on_gpu(edt, "skimage", "edt")(x, distances=dist, indices=ind) is None
    assert np.array_equal(dist, x + 1) and np.all(ind == 7)
    # output is the input: one device array, written back into it
    y = np.arange(5.0)
    assert fs.on_gpu(f, "skimage", "f")(y, None, y) is y and np.array_equal(y, np.arange(5.0) * 2)


def test_what_stays_on_the_host(fake_cp):
    seen = []

    def f(*args):
        seen.extend(args)
        return 0

    keep = [np.float32(1), np.array(3.0), np.arange(3).astype(">i4"), np.array(["a"]), [1, 2], (1.0, 2.0),
            np.ma.masked_array([1, 2]), "reflect", None]
    fs.on_gpu(f, "skimage", "f")(*keep)
    assert all(a is b for a, b in zip(seen, keep))


def test_dtype_rules_switch(fake_cp):
    got = {}

    def f(x):
        got["on"] = _interop.switch("skimage_dtypes")
        return 1

    fs.on_gpu(f, "skimage", "f")(np.ones(2))
    assert got["on"] is True
    fs.on_gpu(f, "cucim", "f")(np.ones(2))
    assert got["on"] is False


def test_warnings_point_at_the_caller(fake_cp):
    import warnings

    def f(x, fail=False):
        warnings.warn("from f", UserWarning, stacklevel=2)   # the caller's line, unwrapped
        warnings.warn("inside", RuntimeWarning, stacklevel=1)
        if fail:
            raise ValueError("no")
        return 0

    g = fs.on_gpu(f, "skimage", "f")
    with pytest.warns(UserWarning) as rec:
        line = sys._getframe().f_lineno + 1
        g(np.ones(2))
    user = [w for w in rec if w.category is UserWarning]
    assert user[0].filename == __file__ and user[0].lineno == line
    assert [w for w in rec if w.category is RuntimeWarning][0].filename == __file__
    with pytest.warns(UserWarning, match="from f"):   # issued even when the call raises
        with pytest.raises(ValueError):
            g(np.ones(2), fail=True)


def test_wrapper_keeps_name_and_signature(fake_cp):
    import inspect

    import fovea.ndimage

    g = fs.on_gpu(fovea.ndimage.correlate, "skimage", "fovea.ndimage.correlate")
    assert g.__name__ == "correlate"
    assert "output" in inspect.signature(g).parameters
    assert fs._positional_names(fovea.ndimage.correlate)[:3] == ["input", "weights", "output"]


def test_judge_two_lists():
    results = {"scipy": {"scipy:a::t1": ("failed", "x"), "scipy:a::t2": ("failed", "y"),
                         "scipy:a::t3": ("passed", ""), "scipy:a::t4": ("passed", ""),
                         "scipy:a::t5": ("error", "z")}}
    lists = [("cpu", [("scipy:a::t1", "cpu reason"), ("scipy:a::t4", "cpu gap")]),
             ("cupy", [("scipy:a::t2", "gpu reason"), ("scipy:a::t3", "gpu gap")])]
    hits, src, unexpected, fixed = conf.judge(results, lists)
    assert hits == {"scipy:a::t1": "cpu reason", "scipy:a::t2": "gpu reason"}
    assert src == {"scipy:a::t1": "cpu", "scipy:a::t2": "cupy"}
    assert [u[0] for u in unexpected] == ["scipy:a::t5"]
    assert [f[0] for f in fixed] == ["scipy:a::t3"]   # the CPU list's passing t4 is not this mode's to judge
    # one list (the CPU run): as before
    hits, _, _, fixed = conf.judge(results, lists[:1])
    assert [f[0] for f in fixed] == ["scipy:a::t4"]


def test_cupy_section():
    data = {"date": "2026-11-29", "device": "NVIDIA H200", "command": "python tests/conformance/run.py --cupy",
            "dtypes": "skimage", "versions": {"NumPy": "2.4"},
            "results": {"skimage": {"skimage:tests.skimage.filters.test_edges::test_a": ["failed", "m"],
                                    "skimage:tests.skimage.filters.test_edges::test_b": ["passed", ""]}},
            "known": {"skimage:tests.skimage.filters.test_edges::test_a": "CuPy: why"},
            "lists": {"skimage:tests.skimage.filters.test_edges::test_a": "cupy"}, "unexpected": []}
    text = "\n".join(conf.cupy_section(data))
    assert "## CuPy mode" in text and "NVIDIA H200" in text
    assert "| skimage | filters/test_edges | 2 | 1 | 1 | 0 | 0 |" in text
    assert "#### CuPy: why (1)" in text


def test_cupy_needs_cupy(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "cupy", None)   # import cupy -> ImportError
    with pytest.raises(SystemExit, match="--cupy needs CuPy and a CUDA GPU"):
        conf.main(["--cupy", "--suite", "scipy"])


def test_known_cupy_list_parses():
    assert conf.load_known(os.path.join(HERE, "..", "conformance", "known-failures-cupy.txt")) is not None
    assert conf.load_known("/nonexistent/known.txt", missing_ok=True) == []
