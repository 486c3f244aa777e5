"""Library namespaces for the cases: fovea and its peers under one set of names.

m.ndi (scipy.ndimage and its GPU twins), m.filters / m.morph / m.measure / m.color /
m.exposure / m.segmentation / m.metrics / m.restoration / m.registration / m.transform (scikit-image and
cuCIM's cucim.skimage),
m.xp (numpy / cupy), m.fft (numpy.fft / scipy.fft / cupy.fft) and m.fovea (the fovea package, for its own core calls). A name a
library does not have raises Missing, which the runner reports as a missing peer
(never a silent drop); so does a module that does not import.
"""
import importlib

MODULES = {
    "fovea": {"ndi": "fovea.ndimage", "filters": "fovea.skimage.filters", "morph": "fovea.skimage.morphology",
              "measure": "fovea.skimage.measure", "color": "fovea.skimage.color",
              "exposure": "fovea.skimage.exposure", "segmentation": "fovea.skimage.segmentation",
              "metrics": "fovea.skimage.metrics", "restoration": "fovea.skimage.restoration",
              "registration": "fovea.skimage.registration", "transform": "fovea.skimage.transform", "fovea": "fovea",
              "dfilt": "fovea.dask.ndimage", "dmeas": "fovea.dask", "fft": "fovea.fft"},
    "scipy": {"ndi": "scipy.ndimage", "fft": "scipy.fft"},
    "skimage": {"filters": "skimage.filters", "morph": "skimage.morphology", "measure": "skimage.measure",
                "color": "skimage.color", "exposure": "skimage.exposure", "segmentation": "skimage.segmentation",
                "metrics": "skimage.metrics", "restoration": "skimage.restoration",
                "registration": "skimage.registration", "transform": "skimage.transform"},
    "dask_image": {"dfilt": "dask_image.ndfilters", "dmeas": "dask_image.ndmeasure"},
    "numpy": {"xp": "numpy", "fft": "numpy.fft"},
    "cupy": {"ndi": "cupyx.scipy.ndimage", "xp": "cupy", "fft": "cupy.fft"},
    "cucim": {"ndi": "cucim.skimage._vendored.ndimage", "filters": "cucim.skimage.filters",
              "morph": "cucim.skimage.morphology", "measure": "cucim.skimage.measure",
              "color": "cucim.skimage.color", "exposure": "cucim.skimage.exposure",
              "segmentation": "cucim.skimage.segmentation", "metrics": "cucim.skimage.metrics",
              "restoration": "cucim.skimage.restoration", "registration": "cucim.skimage.registration",
              "transform": "cucim.skimage.transform"},
}
# the package whose version a report names for each library
PACKAGES = {"fovea": "fovea", "scipy": "scipy", "skimage": "skimage", "numpy": "numpy", "cupy": "cupy",
            "cucim": "cucim", "dask_image": "dask_image"}


class Missing(Exception):
    """The library (or the function a case calls) is not there."""


class Lib:
    def __init__(self, name):
        self.name = name
        self._mods = MODULES.get(name.split(":")[0], {})

    def __getattr__(self, attr):
        if attr.startswith("_") or attr not in self._mods:
            raise Missing(f"{self.name} has no {attr}")
        try:
            mod = importlib.import_module(self._mods[attr])
        except Exception as e:  # noqa: BLE001 (reported as missing)
            raise Missing(f"{self._mods[attr]} does not import: {type(e).__name__}: {e}") from None
        return _Checked(mod, self._mods[attr])


class _Checked:
    """A module whose missing attributes raise Missing (the peer lacks that function)."""

    def __init__(self, mod, path):
        self._mod, self._path = mod, path

    def __getattr__(self, attr):
        try:
            return getattr(self._mod, attr)
        except AttributeError:
            raise Missing(f"{self._path} has no {attr}") from None


def version(name):
    pkg = PACKAGES.get(name.split(":")[0])
    if pkg is None:
        try:
            return importlib.import_module(name.split(":")[0]).__version__
        except Exception:  # noqa: BLE001
            return None
    try:
        return importlib.import_module(pkg).__version__
    except Exception:  # noqa: BLE001
        return None
