"""fovea's napari reader plugin (npe2; manifest: napari.yaml, registered through the
``napari.manifest`` entry point of the ``fovea[napari]`` install).

Slides (every format fovea reads) open as lazy multiscale RGB images, every level a
dask array read through fovea's tile cache, scaled by the slide's microns per pixel;
OME-Zarr groups open as multiscale images; TIFF / OME-TIFF stacks and zarr arrays as
lazy dask arrays. Nothing is read until napari draws it.
"""

import os

__all__ = ["get_reader", "read"]

# big enough that napari asks for few chunks, small enough to read quickly
_CHUNK = 2048


def get_reader(path):
    """npe2 reader contribution: the reader function for path, or None when fovea cannot
    open it (napari then tries the next plugin)."""
    if isinstance(path, (list, tuple)):
        if len(path) != 1:
            return None
        path = path[0]
    path = os.fspath(path)
    if _kind(path) is None:
        return None
    return read


def _kind(path):
    from .. import _fovea

    if os.path.isdir(path):
        if any(os.path.exists(os.path.join(path, m)) for m in ("zarr.json", ".zgroup", ".zarray")):
            return "zarr"
        return None
    if not os.path.isfile(path):
        return None
    try:
        vendor = _fovea.slide_detect_vendor(path)
    except Exception:  # noqa: BLE001 - an unreadable file is not ours
        vendor = None
    if vendor is not None and vendor != "generic-tiff":
        return "slide"
    if path.lower().endswith((".tif", ".tiff")):
        return "slide-or-stack" if vendor == "generic-tiff" else "stack"
    return None


def read(path):
    """Layer data for napari: [(data, add_kwargs, 'image')]."""
    if isinstance(path, (list, tuple)):
        path = path[0]
    path = os.fspath(path)
    kind = _kind(path)
    name = os.path.basename(path.rstrip(os.sep))
    if kind == "zarr":
        return [_zarr_layer(path, name)]
    if kind == "slide" or (kind == "slide-or-stack" and _is_rgb_pyramid(path)):
        return [_slide_layer(path, name)]
    if kind in ("stack", "slide-or-stack"):
        from .. import dask as fd

        return [(fd.imread(path), {"name": name}, "image")]
    raise ValueError(f"fovea cannot read {path!r}")


def _is_rgb_pyramid(path):
    import tifffile

    with tifffile.TiffFile(path) as t:
        s = t.series[0]
        return s.shape[-1] in (3, 4) and s.dtype.itemsize == 1 and len(s.shape) == 3


def _slide_layer(path, name):
    from .. import _slide
    from .. import dask as fd

    img = _slide.CuImage(path)
    mpp = img._mpp()
    scale = (mpp[0] or 1.0, mpp[1] or 1.0)
    levels = fd.slide_to_dask_pyramid(path, chunks=_CHUNK)
    meta = {"vendor": img.vendor, "path": path, "level_downsamples": img.resolutions["level_downsamples"]}
    kw = {"name": name, "rgb": True, "multiscale": len(levels) > 1, "scale": scale, "metadata": meta}
    if any(m is not None for m in mpp):
        kw["units"] = ("µm", "µm")
    return (levels if len(levels) > 1 else levels[0], kw, "image")


def _zarr_layer(path, name):
    import zarr
    import dask.array as da

    node = zarr.open(path, mode="r")
    if isinstance(node, zarr.Group):
        ms = node.attrs.get("multiscales") or node.attrs.get("ome", {}).get("multiscales")
        if not ms:
            raise ValueError(f"{path}: a zarr group without OME-Zarr multiscales metadata")
        ds = ms[0]["datasets"]
        levels = [da.from_zarr(node[d["path"]]) for d in ds]
        axes = [a["name"] if isinstance(a, dict) else a for a in ms[0].get("axes", [])]
        kw = {"name": name, "multiscale": len(levels) > 1}
        tr = ds[0].get("coordinateTransformations", [])
        sc = next((t["scale"] for t in tr if t.get("type") == "scale"), None)
        if "c" in axes:
            kw["channel_axis"] = axes.index("c")
            if sc is not None:
                sc = [v for a, v in zip(axes, sc) if a != "c"]
        if sc is not None:
            kw["scale"] = tuple(sc)
        return (levels if len(levels) > 1 else levels[0], kw, "image")
    return (da.from_zarr(node), {"name": name}, "image")
