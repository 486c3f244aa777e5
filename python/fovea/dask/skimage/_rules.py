"""Depth rules of scikit-image's parameters (the image's spatial axes: all but
channel_axis)."""

import numpy as np

from .. import _core


def spatial(ndim, a):
    ca = a.get("channel_axis")
    return [d for d in range(ndim) if ca is None or d != ca % ndim]


def gauss_depth(ndim, a, key="sigma", scale=1.0):
    sp = spatial(ndim, a)
    s = a.get(key)
    s = 1.0 if s is None else s
    if np.ndim(s) == 0:
        sig = [float(s)] * len(sp)
    else:
        sig = [float(v) for v in s]
        if len(sig) == ndim and len(sp) < ndim:
            sig = [sig[d] for d in sp]
        if len(sig) != len(sp):
            raise ValueError(f"{key}: a sequence of length {len(sig)} for {len(sp)} spatial axes")
    out = [0] * ndim
    for d, v in zip(sp, sig):
        out[d] = int(float(a.get("truncate", 4.0)) * v * scale + 0.5)
    return out


def const(k):
    return lambda ndim, a: [0 if d not in spatial(ndim, a) else k for d in range(ndim)]


def footprint_depth(times=1):
    """Default: the cross (reach 1); a footprint array, or a sequence of (footprint,
    repeats) tuples (the reaches add up)."""
    def rule(ndim, a):
        fp = a.get("footprint")
        if fp is None:
            r = [1] * ndim
        elif isinstance(fp, tuple) and fp and isinstance(fp[0], tuple):
            r = [0] * ndim
            for f, n in fp:
                r = [p + int(n) * q for p, q in zip(r, _core.footprint_reach(ndim, None, f))]
        else:
            r = _core.footprint_reach(ndim, None, fp)
        return [times * d for d in r]
    return rule
