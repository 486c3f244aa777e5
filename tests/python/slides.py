"""Test slides written with third-party writers (tifffile + imagecodecs), and the
reference pixels they hold (decoded by tifffile). Content is random but
tissue-like: smooth stained blobs on a bright background with fine texture,
never flat, so that every codec has real work and every tile differs."""

import math
import struct

import numpy as np
import tifffile

APERIO_DESC = (
    "Aperio Image Library v12.0.0\r\n46000x32914 [0,100 46000x32814] (256x256) JPEG/RGB Q=70"
    "|AppMag = 20|StripeWidth = 2040|ScanScope ID = CPAPERIOCS|Filename = CMU-1|Date = 12/29/09"
    "|Time = 09:59:15|User = b414003d-95c6-48b0-9369-8010ed517ba7|Parmset = USM Filter"
    "|MPP = 0.4990|Left = 25.691574|Top = 23.449873|LineCameraSkew = -0.000424"
    "|LineAreaXOffset = 0.019265|LineAreaYOffset = -0.000313|Focus Offset = 0.000000"
    "|ImageID = 1004486|OriginalWidth = 46920|Originalheight = 33014|Filtered = 5"
)


# ---- content ------------------------------------------------------------------------------------


def _upsample(g, h, w, cell):
    """A coarse grid g (h // cell + 2, w // cell + 2) bilinearly upsampled (smoothstep)."""
    y = np.arange(h, dtype=np.float32) / cell
    x = np.arange(w, dtype=np.float32) / cell
    y0, x0 = y.astype(int), x.astype(int)
    fy, fx = (y - y0)[:, None], (x - x0)[None, :]
    fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)
    g = g.astype(np.float32)
    top = g[y0][:, x0] * (1 - fx) + g[y0][:, x0 + 1] * fx
    bot = g[y0 + 1][:, x0] * (1 - fx) + g[y0 + 1][:, x0 + 1] * fx
    return top * (1 - fy) + bot * fy


def _smooth_noise(rng, h, w, cell):
    """Value noise in [0, 1]: a coarse random grid, upsampled."""
    return _upsample(rng.random((h // cell + 2, w // cell + 2)), h, w, cell)


def _blobs(rng, h, w, cell=8):
    """Sum of random elliptical Gaussian blobs, computed on a coarse grid."""
    gh, gw = h // cell + 2, w // cell + 2
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32) * cell
    acc = np.zeros((gh, gw), np.float32)
    for _ in range(max(4, (h * w) // 60000)):
        cy, cx = rng.random() * h, rng.random() * w
        ry, rx = 15 + rng.random() * h / 6, 15 + rng.random() * w / 6
        acc += np.exp(-(((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2))
    return _upsample(acc, h, w, cell)


def tissue(rng, h, w, channels=3, dtype=np.uint8):
    """A tissue-like image (h, w, channels) or (h, w) for channels=1."""
    n = (0.6 * _smooth_noise(rng, h, w, 97) + 0.3 * _smooth_noise(rng, h, w, 23)
         + 0.1 * _smooth_noise(rng, h, w, 5))
    stain = np.clip(0.7 * np.minimum(_blobs(rng, h, w), 1.2) + 0.5 * (n - 0.35), 0, 1)   # 0 glass .. 1 tissue
    texture = rng.standard_normal((h, w), dtype=np.float32)
    if channels == 1:
        v = np.clip(0.93 - 0.6 * stain + 0.02 * texture, 0, 1)
        if np.dtype(dtype) == np.uint16:
            return (v * 65535).round().astype(np.uint16)
        return (v * 255).round().astype(dtype)
    # H&E-like: white glass, pink eosin, purple haematoxylin
    glass = np.array([0.95, 0.94, 0.96], np.float32)
    pink = np.array([0.85, 0.45, 0.65], np.float32)
    purple = np.array([0.35, 0.2, 0.55], np.float32)
    nuc = (np.clip(_smooth_noise(rng, h, w, 9) * 2.2 - 1.3, 0, 1) * stain)[..., None]
    s3 = stain[..., None]
    img = (glass * (1 - s3) + pink * s3) * (1 - nuc) + purple * nuc + 0.015 * texture[..., None]
    if channels == 4:
        img = np.concatenate([img, np.clip(0.5 + s3, 0, 1)], axis=2)
    img = np.clip(img, 0, 1)
    if np.dtype(dtype) == np.uint16:
        return (img * 65535).round().astype(np.uint16)
    return (img * 255).round().astype(np.uint8)


def downsample2(a):
    """Area-average by 2 (ceil size: the last row/column is repeated)."""
    h, w = a.shape[:2]
    pad = ((0, h % 2), (0, w % 2)) + ((0, 0),) * (a.ndim - 2)
    p = np.pad(a.astype(np.float64), pad, mode="edge")
    m = (p[0::2, 0::2] + p[1::2, 0::2] + p[0::2, 1::2] + p[1::2, 1::2]) / 4
    return m.round().astype(a.dtype)


def pyramid(base, nlevels):
    out = [base]
    for _ in range(nlevels - 1):
        out.append(downsample2(out[-1]))
    return out


# ---- writers ------------------------------------------------------------------------------------


def _write_args(a, tile, compression, predictor, photometric, compressionargs, subsampling=None):
    kw = dict(tile=(tile, tile) if tile else None, compression=compression, compressionargs=compressionargs)
    if subsampling:
        kw["subsampling"] = subsampling
    if photometric is None:
        photometric = "rgb" if a.ndim == 3 and a.shape[2] in (3, 4) else "minisblack"
    kw["photometric"] = photometric
    if predictor:
        kw["predictor"] = predictor
    if a.ndim == 3 and a.shape[2] == 4:
        kw["extrasamples"] = ("unassalpha",)
    if not tile:
        kw["rowsperstrip"] = 64
    return kw


def write_pyramid(path, levels, *, tile=256, compression=None, bigtiff=False, layout="subifds",
                  predictor=None, photometric=None, compressionargs=None, description=None,
                  resolution=None, resolutionunit=None, subsampling=None):
    """Write levels (a list of arrays, largest first) as one tiled pyramid.

    layout 'subifds': level 0 in the main chain, the others as its SubIFDs (tifffile
    subifds=); 'chain': every level in the main chain, reduced ones with
    NewSubfileType = 1 (OpenSlide's generic-TIFF rule)."""
    with tifffile.TiffWriter(path, bigtiff=bigtiff) as tif:
        kw = _write_args(levels[0], tile, compression, predictor, photometric, compressionargs, subsampling)
        extra = {}
        if description is not None:
            extra["description"] = description
            extra["metadata"] = None
        if resolution is not None:
            extra["resolution"] = resolution
            extra["resolutionunit"] = resolutionunit
        if layout == "subifds":
            tif.write(levels[0], subifds=len(levels) - 1, **kw, **extra)
        else:
            tif.write(levels[0], **kw, **extra)
        for lv in levels[1:]:
            kw = _write_args(lv, tile, compression, predictor, photometric, compressionargs, subsampling)
            tif.write(lv, subfiletype=1, metadata=None, **kw)


def tifffile_levels(path, layout="subifds"):
    """Every pyramid level of a file written by write_pyramid, decoded by tifffile."""
    with tifffile.TiffFile(path) as tif:
        if layout == "subifds":
            return [lv.asarray() for lv in tif.series[0].levels]
        return [p.asarray() for p in tif.pages]


def write_aperio(path, levels, *, compression="jpeg", bigtiff=False, tile=256, thumbnail=None,
                 label=None, macro=None, desc=APERIO_DESC):
    """An Aperio-like SVS: level 0 (tiled), a stripped thumbnail second, the other
    levels (tiled), then label (LZW) and macro (JPEG) with Aperio's descriptions.

    compression 'jpeg': JPEG tiles coded in RGB (no colour transform, no subsampling)
    under PhotometricInterpretation RGB, as Aperio writes them; 33005: Aperio JPEG 2000
    RGB (imagecodecs jpeg2k)."""
    h0, w0 = levels[0].shape[:2]

    def write_level(tif, a, d, subfiletype=0):
        if compression == "jpeg":
            tif.write(a, tile=(tile, tile), compression="jpeg", photometric="rgb",
                      compressionargs={"level": 80, "outcolorspace": "rgb"}, subsampling=(1, 1),
                      description=d, metadata=None, subfiletype=subfiletype)
        else:
            tif.write(a, tile=(tile, tile), compression=compression, photometric="rgb", description=d,
                      metadata=None, subfiletype=subfiletype)

    with tifffile.TiffWriter(path, bigtiff=bigtiff) as tif:
        write_level(tif, levels[0], desc)
        if thumbnail is not None:
            tif.write(thumbnail, photometric="rgb", compression="jpeg", rowsperstrip=16, metadata=None,
                      description=f"Aperio Image Library v12.0.0\r\n{w0}x{h0} -> "
                      f"{thumbnail.shape[1]}x{thumbnail.shape[0]} - |AppMag = 20|MPP = 0.4990")
        for lv in levels[1:]:
            write_level(tif, lv, f"Aperio Image Library v12.0.0\r\n{w0}x{h0} [0,0 {w0}x{h0}] "
                        f"({tile}x{tile}) -> {lv.shape[1]}x{lv.shape[0]} JPEG/RGB Q=70")
        if label is not None:
            tif.write(label, photometric="rgb", compression="lzw", rowsperstrip=32, subfiletype=1,
                      metadata=None,
                      description=f"Aperio Image Library v12.0.0\r\nlabel {label.shape[1]}x{label.shape[0]}")
        if macro is not None:
            tif.write(macro, photometric="rgb", compression="jpeg", rowsperstrip=16, subfiletype=9,
                      metadata=None,
                      description=f"Aperio Image Library v12.0.0\r\nmacro {macro.shape[1]}x{macro.shape[0]}")


def write_ome(path, levels, *, tile=256, compression="zlib", mpp=0.25):
    """An OME-TIFF pyramid (tifffile ome=True, the reduced levels as SubIFDs)."""
    md = {"axes": "YXS" if levels[0].ndim == 3 else "YX", "PhysicalSizeX": mpp, "PhysicalSizeXUnit": "µm",
          "PhysicalSizeY": mpp, "PhysicalSizeYUnit": "µm"}
    with tifffile.TiffWriter(path, bigtiff=False, ome=True) as tif:
        photometric = "rgb" if levels[0].ndim == 3 else "minisblack"
        tif.write(levels[0], subifds=len(levels) - 1, tile=(tile, tile), compression=compression,
                  photometric=photometric, metadata=md)
        for lv in levels[1:]:
            tif.write(lv, subfiletype=1, tile=(tile, tile), compression=compression, photometric=photometric)


def tile_data_ranges(path, page=0):
    """(offset, bytecount) of every tile of a main-chain page."""
    with tifffile.TiffFile(path) as tif:
        p = tif.pages[page]
        return list(zip(p.dataoffsets, p.databytecounts))


# ---- expected pixels --------------------------------------------------------------------------


def as_rgb(ref):
    """What read_region(..., 'rgb') gives for the file's samples: gray replicated,
    16-bit scaled to 8 by the high byte, alpha dropped."""
    a = ref
    if a.dtype == np.uint16:
        a = (a >> 8).astype(np.uint8)
    if a.ndim == 2:
        a = a[..., None]
    if a.shape[2] == 1:
        a = np.repeat(a, 3, axis=2)
    return np.ascontiguousarray(a[..., :3])


def region(ref, lx, ly, w, h, background):
    """ref[ly:ly+h, lx:lx+w] with the outside filled with background."""
    shape = (h, w) + ref.shape[2:]
    out = np.empty(shape, ref.dtype)
    out[...] = background
    x0, y0 = max(lx, 0), max(ly, 0)
    x1, y1 = min(lx + w, ref.shape[1]), min(ly + h, ref.shape[0])
    if x0 < x1 and y0 < y1:
        out[y0 - ly:y1 - ly, x0 - lx:x1 - lx] = ref[y0:y1, x0:x1]
    return out


def level_origin(x, y, downsample, level):
    """Where a level-0 location falls in a level: floor(x / downsample)."""
    if level == 0:
        return x, y
    return math.floor(x / downsample), math.floor(y / downsample)


# ---- JPEG tiles sharing one JPEGTables tag (libtiff-based scanners) ------------------------


def _imagecodecs():
    import imagecodecs
    return imagecodecs


def _jpeg_segments(b):
    """(marker, bytes) of a JPEG stream's segments up to SOS (the last holds the rest)."""
    if b[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG stream")
    i, out = 2, []
    while i < len(b):
        if b[i] != 0xFF:
            raise ValueError(f"no marker at {i}")
        m = b[i + 1]
        if m == 0xDA:
            out.append((m, b[i:]))
            break
        n = struct.unpack(">H", b[i + 2:i + 4])[0]
        out.append((m, b[i:i + 2 + n]))
        i += 2 + n
    return out


def _split_tables(stream):
    """A JPEG stream as libtiff writes it in a TIFF: (tables = SOI DQT.. DHT.. EOI,
    abbreviated tile = SOI SOF SOS .. EOI, no APPn)."""
    segs = _jpeg_segments(stream)
    tables = b"".join(s for m, s in segs if m in (0xDB, 0xC4))
    rest = b"".join(s for m, s in segs if m not in (0xDB, 0xC4) and not 0xE0 <= m <= 0xEF)
    return b"\xff\xd8" + tables + b"\xff\xd9", b"\xff\xd8" + rest


def _jpeg_tables_tiles(a, tile, quality=85):
    """a (h, w, 3) uint8 cut into tile x tile JPEG tiles (YCbCr 4:2:0, standard Huffman
    tables, edge tiles padded by replication): (shared tables, [abbreviated tiles])."""
    h, w = a.shape[:2]
    p = np.pad(a, ((0, -h % tile), (0, -w % tile), (0, 0)), mode="edge")
    tables, tiles = set(), []
    for ty in range(0, p.shape[0], tile):
        for tx in range(0, p.shape[1], tile):
            enc = _imagecodecs().jpeg8_encode(np.ascontiguousarray(p[ty:ty + tile, tx:tx + tile]), level=quality,
                                           optimize=False, subsampling="420")
            t, ab = _split_tables(enc)
            tables.add(t)
            tiles.append(ab)
    assert len(tables) == 1, "tiles coded with different tables"
    return tables.pop(), tiles


def write_jpegtables_pyramid(path, levels, *, tile=256, quality=85, bigtiff=False, software=None,
                             description=None, pad_to_tiles=False):
    """A tiled pyramid (main chain, reduced levels NewSubfileType 1) of YCbCr 4:2:0 JPEG
    tiles that share one JPEGTables tag, as libtiff-based scanners write them."""
    with tifffile.TiffWriter(path, bigtiff=bigtiff) as tif:
        for k, lv in enumerate(levels):
            if pad_to_tiles:   # Philips: the TIFF's level size is whole tiles
                h, w = lv.shape[:2]
                lv = np.pad(lv, ((0, -h % tile), (0, -w % tile), (0, 0)), mode="edge")
            tables, tiles = _jpeg_tables_tiles(lv, tile, quality)
            extra = {}
            if k == 0:
                if software is not None:
                    extra["software"] = software
                if description is not None:
                    extra["description"] = description
            tif.write(iter(tiles), shape=lv.shape, dtype=np.uint8, tile=(tile, tile), compression="jpeg",
                      photometric="ycbcr", subsampling=(2, 2), jpegtables=tables, metadata=None,
                      subfiletype=1 if k else 0, **extra)
