"""pytest plugin: the peers' own test suites with fovea's functions in place of theirs
(issue 30; tests/conformance/run.py loads it with ``-p fovea_substitute``).

At configure time every public function that fovea provides under the same name
replaces the peer's, in the peer's package and in each of its submodules that holds
the same function object (so ``from scipy.ndimage._filters import gaussian_filter``
and the peer's own internal calls meet fovea too):

- ``scipy.ndimage`` <- ``fovea.ndimage``;
- ``skimage.<module>`` <- ``fovea.skimage.<module>`` for color, exposure, filters,
  measure, metrics, morphology, registration, restoration, segmentation and transform.

fovea's functions go in as they are (no wrapper, so that the frames a warning's
stacklevel counts are the same as in users' code); none of them calls the peer's
function of the same name. FOVEA_CONFORMANCE_SUITE (scipy, skimage) picks which peer
is substituted.

CuPy mode (``run.py --cupy``; FOVEA_CONFORMANCE_CUPY set to the dtype rules,
"skimage" or "cucim"): each substituted function is wrapped so that the tests' NumPy
arrays meet fovea's CUDA paths. Before the call every NumPy array argument (plain
``numpy.ndarray``, 1-d or more, of a numeric native dtype; also inside a tuple or list
argument) is copied to the GPU as a CuPy array (one copy per distinct array, so an
``output=`` that is the input stays the input); after it, arrays passed as ``output``,
``out``, ``distances`` or ``indices`` get the device result written back, and the result goes back with
``.get()`` (tuples, lists, dicts and generators of arrays too; the device copy of an
output argument comes back as the caller's NumPy array), so the tests' NumPy
assertions still hold. A NumPy array in the result (the whole result, or an item
of a tuple) where an argument went to the GPU breaks fovea's rule "the input's array
type out": AssertionError. The dtype rules: "skimage" runs the call under the
internal switch skimage_dtypes (fovea.skimage's CuPy results take scikit-image's
types, which the tests assert), "cucim" under fovea's own rule for CuPy data (cuCIM's
types; docs/skimage.md, "Result dtypes"). The call's warnings are issued again
where they would point without the wrapper (the caller's line).
"""

import functools
import importlib
import inspect
import os
import pkgutil
import sys
import types
import warnings

SKIMAGE_MODULES = ("color", "exposure", "filters", "measure", "metrics", "morphology", "registration",
                   "restoration", "segmentation", "transform")
SUBSTITUTED = {}   # peer module -> sorted names


def _public(mod):
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    return [n for n in names if callable(getattr(mod, n, None)) and not isinstance(getattr(mod, n), type)]


def _submodules(pkg):
    mods = [pkg]
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        if ".tests" in info.name or info.name.endswith(".conftest"):
            continue
        try:
            mods.append(importlib.import_module(info.name))
        except Exception:   # optional dependencies of a submodule: not ours to test
            continue
    return mods


def _share_registrations(orig, fn):
    """The peer's per-function registries (scipy's array-API capabilities table,
    keyed by function object) know the substitute as the original."""
    try:
        from scipy._lib import _array_api
    except ImportError:
        return
    table = getattr(_array_api, "xp_capabilities_table", None)
    if isinstance(table, dict) and orig in table:
        table[fn] = table[orig]


# ---- CuPy mode -------------------------------------------------------------------------------

_OUTPUTS = ("output", "out", "distances", "indices")   # arguments written in place


def _movable(v):
    np = sys.modules["numpy"]
    return type(v) is np.ndarray and v.ndim >= 1 and v.dtype.kind in "biufc" and v.dtype.isnative


def _positional_names(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


class _Moves:
    """The NumPy arrays of one call moved to the GPU: each distinct array once, the
    output arguments remembered for the write-back."""

    def __init__(self, cp):
        self.cp = cp
        self.dev = {}      # id(host array) -> (host, device copy)
        self.outs = []     # (host, device) of output arguments

    def put(self, v, name=None):
        if _movable(v):
            if id(v) not in self.dev:
                self.dev[id(v)] = (v, self.cp.asarray(v))
            d = self.dev[id(v)][1]
            if name in _OUTPUTS:
                self.outs.append((v, d))
            return d
        if type(v) in (tuple, list) and any(_movable(x) for x in v):
            return type(v)(self.put(x) for x in v)
        return v

    def back(self, r, what, top=True):
        cp, np = self.cp, sys.modules["numpy"]
        if isinstance(r, cp.ndarray):
            for host, d in self.outs:
                if d is r:
                    return host
            return r.get()
        if isinstance(r, np.ndarray) and top and r.ndim and self.dev:
            raise AssertionError(f"{what}: an argument went to the GPU as CuPy and a NumPy array came back "
                                 "(fovea's rule: the input's array type out)")
        if isinstance(r, tuple):
            items = [self.back(x, what, top) for x in r]
            return type(r)(*items) if hasattr(r, "_fields") else tuple(items)
        if isinstance(r, list):
            return [self.back(x, what, False) for x in r]
        if isinstance(r, dict):
            return type(r)((k, self.back(x, what, False)) for k, x in r.items())
        if isinstance(r, types.GeneratorType):
            return (self.back(x, what, False) for x in r)
        return r


def on_gpu(fn, rules, what):
    """fn with the tests' NumPy arrays moved to the GPU and its results moved back
    (the module docstring's CuPy mode); rules: "skimage" or "cucim"."""
    import cupy as cp

    from fovea import _interop

    names = _positional_names(fn)

    @functools.wraps(fn)
    def gpu_call(*args, **kwargs):
        moves = _Moves(cp)
        args = [moves.put(a, names[i] if i < len(names) else None) for i, a in enumerate(args)]
        kwargs = {k: moves.put(v, k) for k, v in kwargs.items()}
        caller, caught = sys._getframe(1), []
        try:
            with warnings.catch_warnings(record=True) as log:
                try:
                    with _interop.switched("skimage_dtypes", rules == "skimage"):
                        res = fn(*args, **kwargs)
                finally:
                    caught = list(log)
        finally:   # raised or not, as the caller would see them
            _warn_again(caught, caller)
        for host, d in moves.outs:
            host[...] = d.get()
        return moves.back(res, what)

    return gpu_call


def _warn_again(caught, caller):
    """The warnings of a wrapped call, issued again where the caller's would point: a
    warning fn's stacklevel placed in this file (the wrapper's frame) names the
    caller's line instead (scikit-image's tests check where warnings point)."""
    here = os.path.abspath(__file__)
    for w in caught:
        mine = os.path.abspath(w.filename) == here
        filename, lineno = (caller.f_code.co_filename, caller.f_lineno) if mine else (w.filename, w.lineno)
        registry = caller.f_globals.setdefault("__warningregistry__", {}) if mine else None
        warnings.warn_explicit(w.message, w.category, filename, lineno, registry=registry, source=w.source)


# ---- substitution ------------------------------------------------------------------------------

def substitute(peer_name, ours_name, cupy_rules=None):
    peer = importlib.import_module(peer_name)
    ours = importlib.import_module(ours_name)
    subs = _submodules(peer)
    names = []
    for name in _public(ours):
        orig = getattr(peer, name, None)
        if orig is None or not callable(orig) or isinstance(orig, type):
            continue
        fn = getattr(ours, name)
        if cupy_rules:
            fn = on_gpu(fn, cupy_rules, f"{ours_name}.{name}")
        _share_registrations(orig, fn)
        for m in subs:
            if getattr(m, name, None) is orig:
                setattr(m, name, fn)
        names.append(name)
    SUBSTITUTED[peer_name] = sorted(names)
    return names


def _no_downloads():
    """Data sets not in pooch's cache fail at once (CI reaches only the package index;
    pooch would retry each download for seconds)."""
    try:
        import pooch
    except ImportError:
        return
    fetch = pooch.Pooch.fetch

    def cached_only(self, fname, *args, **kwargs):
        if os.path.exists(os.path.join(str(self.abspath), fname)):
            return fetch(self, fname, *args, **kwargs)
        raise ConnectionError(f"no network for test data: {fname} (scikit-image fetches it from gitlab.com)")

    pooch.Pooch.fetch = cached_only


def pytest_configure(config):
    _no_downloads()
    suite = os.environ.get("FOVEA_CONFORMANCE_SUITE", "scipy")
    rules = os.environ.get("FOVEA_CONFORMANCE_CUPY") or None
    if suite == "scipy":
        substitute("scipy.ndimage", "fovea.ndimage", rules)
    else:
        for m in SKIMAGE_MODULES:
            substitute(f"skimage.{m}", f"fovea.skimage.{m}", rules)
    out = os.environ.get("FOVEA_CONFORMANCE_NAMES")
    if out:
        import json
        with open(out, "w") as f:
            json.dump(SUBSTITUTED, f, indent=1, sort_keys=True)


def pytest_report_header(config):
    n = sum(len(v) for v in SUBSTITUTED.values())
    rules = os.environ.get("FOVEA_CONFORMANCE_CUPY")
    mode = f", CuPy mode ({rules} dtype rules)" if rules else ""
    return f"fovea conformance: {n} functions substituted in {', '.join(sorted(SUBSTITUTED))}{mode}"


