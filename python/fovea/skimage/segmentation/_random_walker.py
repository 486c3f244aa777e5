"""skimage.segmentation.random_walker (0.26 API) on NumPy + scipy.sparse
(host data) or CuPy + cupyx.scipy.sparse (GPU data).

The image is a graph of pixels joined to their axis neighbours, an edge of
weight exp(-beta * |grad|**2 / (10 * std(data))) + 1e-10 (divided by
sqrt(channels) for multichannel data, gradients per unit of `spacing`). Each
unlabelled pixel gets, for every label, the probability that a random walker
from it reaches a seed of that label first: the solution of L_U x = B_l, where
L_U is the graph Laplacian restricted to the unlabelled pixels and B_l sums
the weights of the edges to seeds of label l. The reduced system is assembled
directly (no full Laplacian), from the edge weights of each axis, and solved
label by label with conjugate gradients (Jacobi-preconditioned for 'cg_j'),
or with a direct sparse solver for 'bf', as scikit-image does.

Label values, as in scikit-image: 0 unlabelled, > 0 seeds, < 0 inactive
(left out of the graph, kept in the output). The output numbers the labels
by rank (1, 2, ... for the positive values in increasing order, negative
values likewise below 0). Unlabelled pixels that no seed can reach through
active pixels stay 0 (probability 0). The connectivity tests run in fovea's
binary_propagation.
"""

import numbers
import warnings

import numpy as np

from ... import ndimage as fndi
from ..._interop import like_input, prepare
from .._shared import img_as_float

__all__ = ["random_walker"]

_MODES = ("cg_mg", "cg", "bf", "cg_j", None)


def _warn(msg):
    warnings.warn(msg, UserWarning, stacklevel=3)


def _seeds_only_result(labels, return_full_prob, xp):
    """scikit-image's result when there is nothing to solve: the labels, or with
    return_full_prob the seed indicators stacked along a new last axis (through
    atleast_3d, as scikit-image stacks them)."""
    if return_full_prob:
        values = [v for v in xp.unique(labels).tolist() if v > 0]
        return xp.concatenate([xp.atleast_3d(labels == v) for v in values], axis=-1)
    return labels


def _preprocess(labels, xp):
    """(rank labels, nlabels, active mask or None, isolated unlabelled pixels)
    or None when there is nothing to solve (labels possibly changed in place)."""
    values, inverse = xp.unique(labels, return_inverse=True)
    if not bool(values.max() > 0):
        raise ValueError(
            "No seeds provided in label image: please ensure it contains at least one positive value"
        )
    if not bool((values == 0).any()):
        _warn(
            "Random walker only segments unlabeled areas, where labels == 0. No zero valued areas in "
            "labels were found. Returning provided labels."
        )
        return None
    unlabelled = labels == 0
    seeds = labels > 0
    active = labels >= 0
    reached = fndi.binary_propagation(unlabelled, mask=active)
    lonely_seeds = seeds & ~reached
    seeds[lonely_seeds] = False
    isolated = xp.zeros(labels.shape, dtype=bool)
    if bool(values[0] < 0) or bool(lonely_seeds.any()):
        isolated = ~fndi.binary_propagation(seeds, mask=active) & unlabelled
        labels[isolated] = -1
        if bool(isolated[unlabelled].all()):
            _warn(
                "All unlabeled pixels are isolated, they could not be determined by the random walker "
                "algorithm."
            )
            return None
        active[isolated] = False
    else:
        active = None
    zero = int((values < 0).sum())  # the position of 0 among the sorted label values
    ranks = inverse.reshape(labels.shape) - zero
    nlabels = int(values.shape[0]) - zero - 1
    return ranks, nlabels, active, isolated


def _axis_weights(data, spacing, beta, multichannel, xp):
    """Edge weights along each spatial axis of data (X, Y, Z, C): a list of
    arrays of shape (X, Y, Z) less one along that axis (None for axes of length
    1), in data's float type (float64 for multichannel float32, as scikit-image)."""
    scale = -beta / (10 * data.std())
    if multichannel:
        scale /= np.sqrt(data.shape[-1])
    out = []
    for ax in range(3):
        if data.shape[ax] < 2:
            out.append(None)
            continue
        g = (xp.diff(data[..., 0], axis=ax) / spacing[ax]) ** 2
        for ch in range(1, data.shape[-1]):
            g += (xp.diff(data[..., ch], axis=ax) / spacing[ax]) ** 2
        w = xp.exp(scale * g)
        w += 1.0e-10
        out.append(w)
    return out


def _linear_system(data, spacing, ranks, nlabels, active, beta, multichannel, xp, sparse):
    """(L_U as CSR, B as a dense (n_unlabelled, nlabels) array, unlabelled mask)."""
    weights = _axis_weights(data, spacing, beta, multichannel, xp)
    dtype = next(w.dtype for w in weights if w is not None) if any(w is not None for w in weights) \
        else data.dtype
    shape = ranks.shape
    unl = ranks == 0
    if active is not None:
        unl &= active
    n = int(unl.sum())
    index = xp.full(shape, -1, dtype=np.int64)
    index[unl] = xp.arange(n, dtype=np.int64)
    degree = xp.zeros(shape, dtype=dtype)
    rows, cols, vals = [], [], []
    rhs_idx, rhs_w = [], []
    for ax, w in enumerate(weights):
        if w is None:
            continue
        lo = (slice(None),) * ax + (slice(None, -1),)
        hi = (slice(None),) * ax + (slice(1, None),)
        if active is not None:
            w = w * (active[lo] & active[hi])
        degree[lo] += w
        degree[hi] += w
        u_lo, u_hi = unl[lo], unl[hi]
        both = u_lo & u_hi
        rows.append(index[lo][both])
        cols.append(index[hi][both])
        vals.append(-w[both])
        # an unlabelled pixel next to a seed: that seed's label gets the edge weight
        for a, b in ((lo, hi), (hi, lo)):
            sel = unl[a] & (ranks[b] > 0)
            if active is not None:
                sel &= active[b]
            rhs_idx.append(index[a][sel] * nlabels + (ranks[b][sel] - 1))
            rhs_w.append(w[sel])
    r = xp.concatenate(rows + cols + [xp.arange(n, dtype=np.int64)])
    c = xp.concatenate(cols + rows + [xp.arange(n, dtype=np.int64)])
    v = xp.concatenate(vals + vals + [degree[unl]]).astype(dtype, copy=False)
    lap = sparse.coo_matrix((v, (r, c)), shape=(n, n)).tocsr()
    rhs = xp.bincount(xp.concatenate(rhs_idx), weights=xp.concatenate(rhs_w).astype(np.float64),
                      minlength=n * nlabels)
    rhs = rhs.reshape(n, nlabels).astype(dtype)
    return lap, rhs, unl


def _block_pcg(lap, rhs, tol, inv_diag, xp):
    """Conjugate gradients on every column of rhs at once (each column its own
    scalars), preconditioned by inv_diag (Jacobi) or not (None): scipy's cg step
    by step (x0 = 0, stop when ||r|| < tol * ||b||, at most 10 n iterations), with
    the matrix applied to all columns in one sparse product and the vector
    updates done in place. Returns (X, converged per column)."""
    n, k = rhs.shape
    dtype = xp.result_type(lap.dtype, rhs.dtype)
    b = xp.ascontiguousarray(rhs, dtype=dtype)
    threshold = tol * xp.sqrt(xp.einsum("ij,ij->j", b, b))
    x = xp.zeros((n, k), dtype=dtype)
    r = b.copy()
    z = xp.empty_like(r)
    p = xp.empty_like(r)
    tmp = xp.empty_like(r)
    active = xp.ones(k, dtype=bool)
    failed = xp.zeros(k, dtype=bool)
    rho_prev = None
    exhausted = True
    with np.errstate(divide="ignore", invalid="ignore"):
        for it in range(10 * n):
            rnorm = xp.sqrt(xp.einsum("ij,ij->j", r, r))
            # NaN residuals (NaN weights: constant data) never converge; scipy would
            # iterate 10 n times on them, here they stop at once as not converged
            failed |= active & ~xp.isfinite(rnorm)
            active &= ~(rnorm < threshold) & ~failed
            if not bool(active.any()):
                exhausted = False
                break
            if inv_diag is None:
                z[...] = r
            else:
                xp.multiply(r, inv_diag[:, None], out=z)
            rho = xp.einsum("ij,ij->j", r, z)
            if it == 0:
                p[...] = z
            else:
                p *= xp.where(active, rho / rho_prev, 0).astype(dtype, copy=False)
                p += z
            q = lap @ p
            alpha = xp.where(active, rho / xp.einsum("ij,ij->j", p, q), 0).astype(dtype, copy=False)
            xp.multiply(p, alpha, out=tmp)
            x += tmp
            xp.multiply(q, alpha, out=tmp)
            r -= tmp
            rho_prev = rho
    converged = ~(active | failed) if exhausted else ~failed
    if bool(failed.any()):
        x[:, xp.nonzero(failed)[0]] = np.nan  # what CG's first step makes of a NaN system
    return x, converged


def _solve(lap, rhs, tol, mode, xp, linalg):
    """(nlabels, n) probabilities."""
    nlabels = rhs.shape[1]
    if mode == "bf":
        if xp is np:
            x = linalg.spsolve(lap.tocsc(), rhs)
            return np.asarray(x).reshape(lap.shape[0], nlabels).T
        return xp.stack([linalg.spsolve(lap, rhs[:, i]) for i in range(nlabels)])
    if mode == "cg_mg":
        from pyamg import ruge_stuben_solver

        if lap.indptr[-1] > np.iinfo(np.int32).max or max(lap.shape) > np.iinfo(np.int32).max:
            raise ValueError("index values too large for int32 mode 'cg_mg'")
        lap.indices = lap.indices.astype(np.int32, copy=False)
        lap.indptr = lap.indptr.astype(np.int32, copy=False)
        precond = ruge_stuben_solver(lap, coarse_solver="pinv").aspreconditioner(cycle="V")
        results = [linalg.cg(lap, rhs[:, i], rtol=tol, atol=0, M=precond, maxiter=30) for i in range(nlabels)]
        converged = np.array([int(info) == 0 for _, info in results])
        x = np.stack([x.ravel() for x, _ in results])
    else:
        inv_diag = 1.0 / lap.diagonal() if mode == "cg_j" else None
        x, converged = _block_pcg(lap, rhs, tol, inv_diag, xp)
        x = x.T
    if not bool(converged.all()):
        _warn(
            "Conjugate gradient convergence to tolerance not achieved. Consider decreasing beta to "
            "improve system conditionning."
        )
    return x


def _have_pyamg():
    try:
        import pyamg  # noqa: F401
    except ImportError:
        return False
    return True


def random_walker(data, labels, beta=130, mode="cg_j", tol=1.0e-3, copy=True, return_full_prob=False,
                  spacing=None, *, prob_tol=1e-3, channel_axis=None):
    """Random walker segmentation from seeds (skimage.segmentation.random_walker).

    data: 2-d or 3-d grey image, or with channel_axis 2-d / 3-d multichannel.
    labels: seeds (> 0), pixels to label (0), inactive pixels (< 0).
    mode: 'cg_j' (default, Jacobi-preconditioned CG), 'cg', 'bf' (direct sparse
    solve), 'cg_mg' (multigrid-preconditioned CG through pyamg, host data only;
    without pyamg, or on GPU data, a warning and 'cg_j'); None means 'cg_j'.
    Returns the labels (rank-numbered, labels' dtype) or with return_full_prob
    the probabilities, shape (nlabels,) + labels.shape, float64."""
    if not any(mode is m or mode == m for m in _MODES):
        raise ValueError(f"{mode} is not a valid mode. Valid modes are 'cg_mg', 'cg', 'cg_j', 'bf', and None")
    x, xp, back = prepare(data)
    lab = like_input(labels, x, "labels")
    if channel_axis is not None:
        axes = (channel_axis,) if np.isscalar(channel_axis) else tuple(channel_axis)
        if len(axes) > 1:
            raise ValueError("only a single channel axis is currently supported")
        if not isinstance(axes[0], numbers.Integral):
            raise TypeError(f"channel_axis must be an integer, got {axes[0]!r}")
        x = xp.moveaxis(x, int(axes[0]), -1)
    if x.dtype == np.float16:
        x = x.astype(np.float32)
    if mode is None:
        mode = "cg_j"
    if mode == "cg_mg" and (xp is not np or not _have_pyamg()):
        _warn(
            '"cg_mg" not available, it requires pyamg to be installed (and host data). '
            'The "cg_j" mode will be used instead.'
        )
        mode = "cg_j"

    if spacing is None:
        spacing = np.ones(3)
    elif len(spacing) == lab.ndim:
        spacing = np.asarray(spacing)
        if spacing.dtype.kind not in "iuf":
            raise TypeError(f"`spacing` must hold real numbers, got dtype {spacing.dtype}")
        if len(spacing) == 2:
            spacing = np.r_[spacing, 1.0]
    else:
        raise ValueError(
            "Input argument `spacing` incorrect, should be an iterable with one number per spatial dimension."
        )
    # NumPy scalars (not Python floats): float32 gradients divided by them become
    # float64, as in scikit-image

    multichannel = channel_axis is not None
    if not multichannel:
        if x.ndim not in (2, 3):
            raise ValueError("For non-multichannel input, data must be of dimension 2 or 3.")
        if tuple(x.shape) != tuple(lab.shape):
            raise ValueError("Incompatible data and labels shapes.")
        x = xp.atleast_3d(img_as_float(x, xp))[..., np.newaxis]
    else:
        if x.ndim not in (3, 4):
            raise ValueError("For multichannel input, data must have 3 or 4 dimensions.")
        if tuple(x.shape[:-1]) != tuple(lab.shape):
            raise ValueError("Incompatible data and labels shapes.")
        x = img_as_float(x, xp)
        if x.ndim == 3:
            x = x[:, :, np.newaxis, :]

    labels_shape = lab.shape
    labels_dtype = lab.dtype
    if copy:
        lab = lab.copy()
    pre = _preprocess(lab, xp)
    if pre is None:
        return back(_seeds_only_result(lab, return_full_prob, xp))
    ranks, nlabels, active, isolated = pre

    if xp is np:
        import scipy.sparse as sparse
        import scipy.sparse.linalg as linalg
    else:
        import cupyx.scipy.sparse as sparse
        import cupyx.scipy.sparse.linalg as linalg
    ranks3 = xp.atleast_3d(ranks)
    active3 = None if active is None else xp.atleast_3d(active)
    lap, rhs, unl = _linear_system(x, spacing, ranks3, nlabels, active3, beta, multichannel, xp, sparse)
    probs = _solve(lap, rhs, tol, mode, xp, linalg)
    if bool(probs.min() < -prob_tol) or bool(probs.max() > 1 + prob_tol):
        _warn(
            "The probability range is outside [0, 1] given the tolerance `prob_tol`. Consider decreasing "
            "`beta` and/or decreasing `tol`."
        )
    unl = unl.reshape(labels_shape)
    if return_full_prob:
        out = xp.zeros((nlabels,) + tuple(labels_shape))
        for i in range(nlabels):
            out[i][unl] = probs[i]
            out[i][ranks == i + 1] = 1
        return back(out)
    out = ranks.astype(labels_dtype)
    out[unl] = xp.argmax(probs, axis=0) + 1
    return back(out)
