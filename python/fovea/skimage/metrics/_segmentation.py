"""contingency_table, adapted_rand_error and variation_of_information
(skimage.metrics): the (true label, test label) pairs of all pixels are counted
at once, by a bincount over the combined key where the table is dense enough
and by a sort (unique) otherwise, and the sparse table is assembled directly in
CSR form (sorted keys give rows and columns in order) instead of through COO
duplicates. Host data gives scipy.sparse tables, CuPy data cupyx.scipy.sparse
ones (always csr_matrix: cupyx has no csr_array)."""

import numpy as np

from ..._interop import prepare
from ._common import check_same_shape, two

__all__ = ["contingency_table", "adapted_rand_error", "variation_of_information"]


def _labels(x, name):
    if x.dtype.kind == "b":
        x = x.astype(np.uint8)
    if x.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must hold integer labels, got dtype {x.dtype}")
    return x.reshape(-1)


def _pair_counts(true, test, xp):
    """(rows, cols, counts, nrows, ncols): the distinct (true, test) label pairs
    in ascending (row, column) order and how many pixels carry each."""
    t = _labels(true, "im_true")
    s = _labels(test, "im_test")
    if t.size == 0:
        z = xp.zeros(0, dtype=np.int64)
        return z, z, z, 0, 0
    tmin, tmax, smin, smax = (int(v) for v in (t.min(), t.max(), s.min(), s.max()))
    if tmin < 0 or smin < 0:
        raise ValueError("contingency_table: labels must be non-negative")
    nrows, ncols = tmax + 1, smax + 1
    key = t.astype(np.int64) * ncols
    key += s
    if nrows * ncols <= max(4 * t.size, 1 << 16):
        hist = xp.bincount(key, minlength=nrows * ncols)
        keys = xp.flatnonzero(hist)
        counts = hist[keys]
    else:
        keys, counts = xp.unique(key, return_counts=True)
    rows, cols = xp.divmod(keys, ncols)
    return rows, cols, counts, nrows, ncols


def _table(rows, cols, data, nrows, ncols, xp, sparse_type):
    idx_t = np.int32 if max(nrows, ncols, data.size) < 2**31 - 1 else np.int64
    indptr = xp.zeros(nrows + 1, dtype=idx_t)
    xp.cumsum(xp.bincount(rows, minlength=nrows), out=indptr[1:])
    args = ((data, cols.astype(idx_t), indptr),)
    if xp is np:
        import scipy.sparse as sp

        if sparse_type == "matrix":
            return sp.csr_matrix(*args, shape=(nrows, ncols))
        return sp.csr_array(*args, shape=(nrows, ncols))
    import cupyx.scipy.sparse as csp

    return csp.csr_matrix(*args, shape=(nrows, ncols))


def _ignored(rows, ignore_labels, xp):
    if ignore_labels is None or len(ignore_labels) == 0:
        return None
    return xp.isin(rows, xp.asarray(np.asarray(ignore_labels)))


def contingency_table(im_true, im_test, *, ignore_labels=None, normalize=False, sparse_type="matrix"):
    """Sparse (CSR) table whose entry (i, j) counts the pixels labelled i in
    im_true and j in im_test; pixels whose true label is in ignore_labels count
    0 (their entries stay as explicit zeros, as scikit-image's). normalize:
    divided by the number of counted pixels. sparse_type 'matrix' (default)
    or 'array' (host data)."""
    if sparse_type not in ("matrix", "array"):
        raise ValueError(f"`sparse_type` must be 'array' or 'matrix', got {sparse_type}")
    t, s, xp, _ = two(im_true, im_test, "im_test")
    if t.size != s.size:
        raise ValueError("im_true and im_test must have the same number of elements")
    rows, cols, data, nrows, ncols = _table_data(t, s, xp, ignore_labels, normalize)
    return _table(rows, cols, data, nrows, ncols, xp, sparse_type)


def _table_data(t, s, xp, ignore_labels, normalize):
    rows, cols, counts, nrows, ncols = _pair_counts(t, s, xp)
    data = counts.astype(np.float64)
    ign = _ignored(rows, ignore_labels, xp)
    if ign is not None:
        data[ign] = 0
    if normalize:
        total = data.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            data /= total
    return rows, cols, data, nrows, ncols


def _from_table(table, xp):
    """(rows, cols, data, nrows, ncols) of a given sparse (or dense) table."""
    if xp is np:
        import scipy.sparse as sp

        coo = sp.coo_array(table) if not sp.issparse(table) else table.tocoo()
    else:
        import cupyx.scipy.sparse as csp

        coo = table.tocoo() if csp.issparse(table) else csp.coo_matrix(xp.asarray(table))
    coo.sum_duplicates()
    nrows, ncols = coo.shape
    return coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(np.float64), nrows, ncols


def _table_xp(table):
    mod = type(table).__module__
    if mod.startswith("cupyx") or mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def adapted_rand_error(image_true=None, image_test=None, *, table=None, ignore_labels=(0,), alpha=0.5):
    """(error, precision, recall) of the adapted Rand index (Arganda-Carreras
    et al. 2015); error = 1 - F-score with weights alpha (precision) and
    1 - alpha (recall). Pixels whose true label is in ignore_labels are left
    out. table: a precomputed contingency table (unnormalised)."""
    if image_test is not None and image_true is not None:
        t, s, xp, _ = two(image_true, image_test, "image_test")
        check_same_shape(t, s)
    if table is None:
        if image_test is None or image_true is None:
            raise ValueError("adapted_rand_error needs image_true and image_test, or a table")
        rows, cols, p, nrows, ncols = _table_data(t, s, xp, ignore_labels, False)
    else:
        xp = _table_xp(table)
        rows, cols, p, nrows, ncols = _from_table(table, xp)
    if alpha < 0.0 or alpha > 1.0:
        raise ValueError("alpha must be between 0 and 1")
    total = p.sum()
    sum_p_ij2 = p @ p - total
    a = xp.bincount(rows, weights=p, minlength=nrows)
    b = xp.bincount(cols, weights=p, minlength=ncols)
    sum_a2 = a @ a - a.sum()
    sum_b2 = b @ b - b.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = sum_p_ij2 / sum_a2
        recall = sum_p_ij2 / sum_b2
        fscore = sum_p_ij2 / (alpha * sum_a2 + (1 - alpha) * sum_b2)
    return 1.0 - fscore, precision, recall


def variation_of_information(image0=None, image1=None, *, table=None, ignore_labels=()):
    """[H(image1 | image0), H(image0 | image1)] in bits (Meila 2007), the two
    conditional entropies whose sum is the variation of information. Pixels of
    image0 labelled with one of ignore_labels are left out. table: a
    precomputed normalised contingency table."""
    if table is None:
        if image0 is None or image1 is None:
            raise ValueError("variation_of_information needs image0 and image1, or a table")
        t, s, xp, _ = two(image0, image1, "image1")
        check_same_shape(t, s)
        rows, cols, p, nrows, ncols = _table_data(t, s, xp, ignore_labels, True)
    else:
        xp = _table_xp(table)
        rows, cols, p, nrows, ncols = _from_table(table, xp)
    px = xp.bincount(rows, weights=p, minlength=nrows)
    py = xp.bincount(cols, weights=p, minlength=ncols)
    nz = p != 0          # NaN (nothing counted) propagates, as in scikit-image
    p, rows, cols = p[nz], rows[nz], cols[nz]
    h1g0 = -(p * xp.log2(p / px[rows])).sum()
    h0g1 = -(p * xp.log2(p / py[cols])).sum()
    return xp.stack([h1g0, h0g1]) if xp is not np else np.array([h1g0, h0g1])
