"""The core ops (astype, broadcast add, multiply, promotion, strided copy) against
NumPy (CPU) and CuPy (GPU): the cases of the former bench/bench_core.py. On the GPU
each row also gives the share of the device-to-device copy bandwidth."""
import numpy as np

from . import Case, Suite


class Inputs:
    def __init__(self, xp, shape, dtype, params):
        rng = np.random.default_rng(0)
        self.img = xp.asarray(rng.integers(0, 256, shape, dtype=np.uint8))
        self.f = xp.asarray(rng.random(shape, dtype=np.float32))
        self.g = xp.asarray(rng.random(shape, dtype=np.float32))
        self.row = xp.asarray(rng.random((1, shape[1]), dtype=np.float32))
        self.i16 = xp.asarray(rng.integers(-30000, 30000, shape, dtype=np.int16))
        self.n = shape[0] * shape[1]


PEERS = {"cpu": ["numpy"], "gpu": ["cupy"]}


def case(name, ours, theirs, per_pixel):
    return Case(name, ours, PEERS, calls={"numpy": theirs, "cupy": theirs},
                nbytes=lambda d: d.n * per_pixel)


SUITE = Suite("core", "core ops", [
    case("astype u8->f32", lambda m, d: m.fovea.astype(d.img, np.float32), lambda m, d: d.img.astype(np.float32), 5),
    case("astype f32->u8", lambda m, d: m.fovea.astype(d.f, np.uint8), lambda m, d: d.f.astype(np.uint8), 5),
    case("add f32+f32", lambda m, d: m.fovea.add(d.f, d.g), lambda m, d: m.xp.add(d.f, d.g), 12),
    case("add f32+row", lambda m, d: m.fovea.add(d.f, d.row), lambda m, d: m.xp.add(d.f, d.row), 8),
    case("multiply f32*f32", lambda m, d: m.fovea.multiply(d.f, d.g), lambda m, d: m.xp.multiply(d.f, d.g), 12),
    case("add i16+f32 (promote)", lambda m, d: m.fovea.add(d.i16, d.f), lambda m, d: m.xp.add(d.i16, d.f), 10),
    case("transpose copy f32", lambda m, d: m.fovea.astype(d.f.T, np.float32),
         lambda m, d: m.xp.ascontiguousarray(d.f.T), 8),
], inputs=Inputs, shapes={"cpu": {"default": ["4096"], "quick": ["1k"], "big": ["8k"]},
                          "gpu": {"default": ["8k"], "quick": ["1k"]}})
