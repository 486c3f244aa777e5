"""One stream rule for fovea.ndimage and fovea.skimage (fovea._interop.public): a
CUDA torch input runs on torch's current stream (its CuPy steps and C kernels);
every other input calls the function with no Python frame in between, so the
stacklevel of its warnings points where it would without the wrapper. The torch
cases need a GPU, CuPy and torch with CUDA; the rest runs anywhere."""

import pickle
import warnings

import numpy as np
import pytest

import fovea.ndimage as fnd
from fovea import _interop as ix
from fovea.skimage import filters as ff
from fovea.skimage import morphology as fsm


def _warns_here(x):
    warnings.warn("probe", UserWarning, stacklevel=2)
    return x


def test_public_keeps_the_stacklevel():
    probe = ix.public(_warns_here)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        probe(np.zeros(3))   # the warning names this line
    assert len(rec) == 1 and rec[0].filename == __file__


def test_public_looks_like_the_function():
    probe = ix.public(_warns_here)
    assert probe.__name__ == "_warns_here" and probe.__wrapped__ is _warns_here
    assert ix.public(probe) is probe
    for fn in (fnd.gaussian_filter, ff.sobel, fsm.binary_erosion):
        assert isinstance(fn, ix._Public) and callable(fn)
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_route_leaves_other_inputs_alone():
    assert ix._on_torch_stream(_warns_here, (np.zeros(2),), None) is NotImplemented
    assert ix._on_torch_stream(_warns_here, (), {"x": [1, 2]}) is NotImplemented


@pytest.mark.gpu
@pytest.mark.parametrize("where", ["ndimage", "skimage"])
def test_torch_input_runs_on_torch_stream(torch_cuda, cp, where):
    torch = torch_cuda
    seen = []

    def probe(x):
        seen.append((cp.cuda.get_current_stream().ptr, ix.stream_of(cp.asarray(x))))
        return x

    fn = ix.public(probe)
    side = torch.cuda.Stream()
    x = torch.arange(12.0, device="cuda").reshape(3, 4)
    with torch.cuda.stream(side):
        fn(x)
    assert seen == [(side.cuda_stream, side.cuda_stream)]
    # a real function of each package, on a side stream, gives the host result
    img = np.random.default_rng(0).random((40, 50)).astype(np.float32)
    real = fnd.gaussian_filter if where == "ndimage" else ff.sobel
    want = real(img, 1.5) if where == "ndimage" else real(img)
    with torch.cuda.stream(side):
        t = torch.from_numpy(img).cuda()
        got = real(t, 1.5) if where == "ndimage" else real(t)
    side.synchronize()
    assert isinstance(got, torch.Tensor) and got.is_cuda
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-5, atol=1e-6)
