"""A screenshot of a whole-slide image in napari, opened through fovea's reader plugin.

    python examples/napari_screenshot.py [--out docs/img/napari-slide.png] [--size 800x600]
                                         [--slide SLIDE.svs]

Without --slide, writes a small synthetic Aperio SVS (4096 x 3072 tissue-like H&E
content, JPEG tiles, 4 levels, 0.499 µm per pixel; the test suite's writer, made with
tifffile + imagecodecs) to a temporary folder. The slide is opened in napari through
fovea's npe2 reader (``viewer.open(path, plugin="fovea")``: a lazy multiscale RGB layer
read through fovea's tile cache, scaled by the slide's microns per pixel), a scale bar
in µm is turned on, and ``viewer.screenshot(canvas_only=True)`` is saved as a PNG.

Headless: Qt's ``offscreen`` platform is used unless QT_QPA_PLATFORM is set. With Qt 5
that platform creates OpenGL contexts through GLX, so it still needs an X server for
the context (nothing is shown on it): when DISPLAY is unset, the script runs itself
again under an Xvfb server started for the run (Debian: apt-get install xvfb). Mesa's
llvmpipe renders on the CPU.

Needs: pip install 'napari[pyqt5]' tifffile imagecodecs dask zarr, and fovea importable
(installed, or PYTHONPATH=<checkout>/python with the built extension). When fovea is
not installed as a package (no napari.manifest entry point), its manifest
(fovea/napari/napari.yaml) is registered with npe2 for this run.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def synthetic_slide(path, width=4096, height=3072, levels=4, seed=3):
    """An Aperio-like SVS (MPP 0.499): two tissue sections (the test suite's tissue-like
    content, slides.tissue) with ragged edges on glass."""
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))
    import slides

    rng = np.random.default_rng(seed)
    tissue = slides.tissue(rng, height, width)
    yy = np.linspace(0, 1, height, dtype=np.float32)[:, None]
    xx = np.linspace(0, 1, width, dtype=np.float32)[None, :]
    edge = 0.7 * (slides._smooth_noise(rng, height, width, 160) - 0.5)
    mask = np.zeros((height, width), np.float32)
    for cy, cx, ry, rx in ((0.5, 0.3, 0.36, 0.2), (0.45, 0.73, 0.3, 0.17)):
        mask = np.maximum(mask, np.clip((1 - ((yy - cy) / ry) ** 2 - ((xx - cx) / rx) ** 2 - edge) * 8, 0, 1))
    mask = mask[..., None]
    glass = np.array([242, 240, 245], np.float32)
    base = (glass * (1 - mask) + tissue * mask).round().astype(np.uint8)
    slides.write_aperio(path, slides.pyramid(base, levels))
    return path


def run_under_xvfb(argv):
    """This script again, with DISPLAY on an Xvfb server started for the run (Qt's GLX
    contexts need an X server; nothing is shown on it); its exit status."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise SystemExit("no DISPLAY and no Xvfb: Qt 5's offscreen platform needs an X server "
                         "for OpenGL (apt-get install xvfb), or run under xvfb-run")
    r, w = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(w), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                              pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        with os.fdopen(r) as f:
            display = f.readline().strip()
        if not display:
            raise SystemExit("Xvfb did not start")
        env = dict(os.environ, DISPLAY=":" + display)
        return subprocess.run([sys.executable, os.path.abspath(__file__), *argv], env=env).returncode
    finally:
        server.terminate()
        server.wait()


def fix_offscreen_canvas(viewer, width, height):
    """Two things vispy's QOpenGLWidget canvas misses under Qt 5's offscreen platform (GLX
    contexts made current on a 1 x 1 drawable), without which the screenshot holds the
    background colour only (napari 0.9.2, vispy 0.17, PyQt5 5.15, Mesa 22.3):

    - every makeCurrent() resets the GL viewport to 1 x 1, after Qt has set it for
      paintGL (vispy calls it again inside its draw): the viewport is kept across
      vispy's set_current();
    - a hidden widget gets no resizeGL(), so vispy's canvas transforms never learn the
      canvas size: the canvas is sized and vispy told so here.
    """
    from vispy.gloo import gl

    backend = type(viewer.window._qt_viewer.canvas._scene_canvas.native)
    if not getattr(backend, "_fovea_keeps_viewport", False):
        set_current = backend._vispy_set_current

        def keep_viewport(self):
            try:
                vp = gl.glGetParameter(gl.GL_VIEWPORT)
            except Exception:  # noqa: BLE001 - no context current yet
                vp = None
            set_current(self)
            if vp is not None and vp[2] > 1:
                gl.glViewport(*(int(v) for v in vp))

        backend._vispy_set_current = keep_viewport
        backend._fovea_keeps_viewport = True
    native = viewer.window._qt_viewer.canvas._scene_canvas.native
    native.resize(width, height)
    native.resizeGL(width, height)


def register_plugin():
    """fovea's manifest with npe2, unless installed (entry point) already."""
    import npe2

    import fovea

    pm = npe2.PluginManager.instance()
    pm.discover()
    if "fovea" not in pm._manifests:
        pm.register(npe2.PluginManifest.from_file(os.path.join(os.path.dirname(fovea.__file__), "napari",
                                                               "napari.yaml")))


def save_png(path, rgba):
    """RGB PNG (the alpha is opaque), palette-quantised when over 300 KB."""
    from PIL import Image

    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    img = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
    img.save(path, optimize=True)
    if os.path.getsize(path) > 300_000:
        img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="napari-slide.png", help="PNG (RGB; 256 colours when over 300 KB)")
    ap.add_argument("--size", default="800x600", help="canvas WIDTHxHEIGHT in pixels")
    ap.add_argument("--slide", help="a slide fovea reads (default: a synthetic SVS)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    offscreen = os.environ["QT_QPA_PLATFORM"] == "offscreen"
    if offscreen and not os.environ.get("DISPLAY"):
        return run_under_xvfb(argv)
    tmp = tempfile.mkdtemp(prefix="fovea-napari-")
    try:
        slide = args.slide or synthetic_slide(os.path.join(tmp, "synthetic.svs"))
        import napari

        register_plugin()
        viewer = napari.Viewer(show=False)
        if offscreen:
            fix_offscreen_canvas(viewer, width, height)
        layer, = viewer.open(slide, plugin="fovea")
        # napari >= 0.9: viewer.canvas.overlays; before: viewer.scale_bar
        bar = viewer.canvas.overlays.scale_bar if hasattr(viewer, "canvas") else viewer.scale_bar
        bar.visible = True
        viewer.reset_view()
        shot = viewer.screenshot(canvas_only=True, flash=False)
        rgb = shot[..., :3].reshape(-1, 3)
        colours = len(np.unique(rgb, axis=0))
        if colours < 16:
            raise SystemExit(f"the screenshot is blank ({colours} colours): nothing was rendered")
        save_png(args.out, shot)
        levels = layer.data if layer.multiscale else [layer.data]
        print(f"{slide}: {len(levels)} levels {[tuple(d.shape[:2]) for d in levels]}, level {layer.data_level} "
              f"drawn, scale {tuple(float(s) for s in layer.scale)} {layer.units[0] if hasattr(layer, 'units') else ''}")
        print(f"{args.out}: {shot.shape[1]} x {shot.shape[0]}, {os.path.getsize(args.out)} bytes; "
              f"RGB mean {rgb.mean(0).round(1).tolist()}, std {rgb.std(0).round(1).tolist()}, "
              f"{colours} colours")
        viewer.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
