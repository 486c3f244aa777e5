"""pytest plugin: the peers' own test suites with fovea's functions in place of theirs
(issue 30; tests/conformance/run.py loads it with ``-p fovea_substitute``).

At configure time every public function that fovea provides under the same name
replaces the peer's, in the peer's package and in each of its submodules that holds
the same function object (so ``from scipy.ndimage._filters import gaussian_filter``
and the peer's own internal calls meet fovea too):

- ``scipy.ndimage`` <- ``fovea.ndimage``;
- ``skimage.<module>`` <- ``fovea.skimage.<module>`` for color, exposure, filters,
  measure, metrics, morphology, segmentation and transform.

fovea's functions go in as they are (no wrapper, so that the frames a warning's
stacklevel counts are the same as in users' code); none of them calls the peer's
function of the same name. FOVEA_CONFORMANCE_SUITE (scipy, skimage) picks which peer
is substituted.
"""

import importlib
import os
import pkgutil
import sys

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


def substitute(peer_name, ours_name):
    peer = importlib.import_module(peer_name)
    ours = importlib.import_module(ours_name)
    subs = _submodules(peer)
    names = []
    for name in _public(ours):
        orig = getattr(peer, name, None)
        if orig is None or not callable(orig) or isinstance(orig, type):
            continue
        fn = getattr(ours, name)
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
    if suite == "scipy":
        substitute("scipy.ndimage", "fovea.ndimage")
    else:
        for m in SKIMAGE_MODULES:
            substitute(f"skimage.{m}", f"fovea.skimage.{m}")
    out = os.environ.get("FOVEA_CONFORMANCE_NAMES")
    if out:
        import json
        with open(out, "w") as f:
            json.dump(SUBSTITUTED, f, indent=1, sort_keys=True)


def pytest_report_header(config):
    n = sum(len(v) for v in SUBSTITUTED.values())
    return f"fovea conformance: {n} functions substituted in {', '.join(sorted(SUBSTITUTED))}"


