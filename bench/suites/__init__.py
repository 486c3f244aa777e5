"""Benchmark suites as data, for bench/run.py.

A suite is a list of cases; a case is one operation measured on one or more devices,
shapes and dtypes:

    Case(name, call, peers={"cpu": [...], "gpu": [...]}, inputs=builder, ...)

call(m, d) runs the operation with the library namespace m (fovea, scipy, skimage,
numpy, cupy, cucim: see libs.py) on the inputs d (built by inputs(xp, shape, dtype,
params) once per device/shape/dtype and shared by the cases that name the same
builder). The same call runs under fovea and under every peer, so fovea and its peers
are called with the same arguments; `calls` overrides the call for one library where
the spellings differ (numpy.add for fovea.add). A throughput case (kind="throughput")
returns the number of items it processed (patches, bytes) and is timed by wall clock.

Shapes are named (SHAPES); each suite says which shapes run by default, with --quick
and with --big, per device. Nothing here imports fovea or a peer: the modules are
imported by the worker that runs a case.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

SHAPES = {
    "256": (256, 256), "512": (512, 512), "1k": (1024, 1024), "2k": (2048, 2048), "4k": (2160, 3840),
    "4096": (4096, 4096), "8k": (8192, 8192), "64^3": (64, 64, 64), "128^3": (128, 128, 128),
    "256^3": (256, 256, 256), "100^3": (100, 100, 100), "400^3": (400, 400, 400), "64": (64, 64),
    "rgb4k": (2160, 3840, 3), "16k": (16384, 16384), "24k": (24576, 24576), "50k": (50000, 50000),
    "1009^2": (1009, 1009), "512x8198": (512, 2 * 4099), "512x8192": (512, 8192), "-": (),
}


@dataclass
class Case:
    name: str
    call: Callable
    peers: dict                              # device -> peer library names
    inputs: Optional[Callable] = None        # builder(xp, shape, dtype, params) -> inputs; default: the suite's
    params: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)   # library -> call(m, d) where it differs from `call`
    lo: int = 0                              # ndim range the case applies to
    hi: int = 8
    dtypes: Optional[tuple] = None           # None: every dtype of the suite
    devices: tuple = ("cpu", "gpu")
    kind: str = "call"                       # "call" (timed per call) or "throughput" (returns items)
    check: object = None                     # None, "close", "equal", "labels" or fn(ours, peer) -> bool
    rtol: float = 1e-5
    nbytes: Optional[Callable] = None        # d -> bytes one call moves (GPU: share of copy bandwidth)
    shapes: Optional[dict] = None            # overrides the suite's shapes (same layout)
    big: bool = False                        # only with --big
    quick: bool = True                       # part of --quick
    slow_peer_runs: Optional[int] = None     # peers timed this many runs at most (slow references)
    prepare: Optional[Callable] = None       # prepare(d) before every run, untimed (e.g. drop the page cache)
    repeat: Optional[int] = None             # throughput: runs per library (default: the runner's)


@dataclass
class Suite:
    name: str
    title: str
    cases: list
    inputs: Optional[Callable] = None
    # device -> mode ("default", "quick", "big") -> shape names
    shapes: dict = field(default_factory=lambda: {"cpu": {"default": ["-"]}, "gpu": {"default": ["-"]}})
    dtypes: tuple = ("-",)
    slide: bool = False                      # needs a slide file (not in --suite default)
    note: str = ""
    shape_dtypes: Optional[dict] = None      # shape name -> the only dtypes it runs in


def shapes_for(suite, case, device, quick, big):
    table = (case.shapes or suite.shapes).get(device, {})
    names = list(table.get("quick" if quick else "default", table.get("default", [])))
    if big and not quick:
        names += [s for s in table.get("big", []) if s not in names]
    return names


def expand(suite, case, device, quick, big):
    """(shape name, dtype) pairs the case runs on one device."""
    if device not in case.devices or (case.big and not big) or (quick and not case.quick):
        return []
    out = []
    for sname in shapes_for(suite, case, device, quick, big):
        nd = len(SHAPES[sname])
        if not case.lo <= nd <= case.hi and sname != "-":
            continue
        for dt in suite.dtypes:
            if case.dtypes is not None and dt not in case.dtypes:
                continue
            if nd == 3 and dt not in ("float32", "-") and suite.name == "ndimage":
                continue   # 3-D runs in float32 only (as the suite always did)
            if suite.shape_dtypes and dt not in suite.shape_dtypes.get(sname, (dt,)):
                continue
            out.append((sname, dt))
    return out


def all_suites():
    from . import (core, dask_suite, denoise, fft, interpolation, ndimage, skimage_suites, overhead,  # noqa: PLC0415
                   slides, restoration, transform_hough, skmorph_names)
    suites = [core.SUITE, ndimage.SUITE, *interpolation.SUITES, *skimage_suites.SUITES, transform_hough.SUITE,
              restoration.SUITE, fft.SUITE, denoise.SUITE, dask_suite.SUITE, overhead.SUITE, *slides.SUITES,
              skmorph_names.SUITE]
    return {s.name: s for s in suites}
