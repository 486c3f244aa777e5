"""Builds the dask versions of fovea's local ops from a depth rule per op."""

import functools
import importlib
import inspect

from . import _core


def blockwise_op(module, name, depth_rule, *, arrays=(), mode_arg="mode", default_mode="reflect",
                 channel_axis_arg=None):
    """The dask version of `module.name` (a fovea function whose first argument is the
    image): the arguments are bound with the fovea function's signature, depth_rule
    (ndim, arguments) gives the per-axis overlap, `arrays` names further array
    arguments that travel blockwise with the image (a mask), the rest travel as
    they are."""
    fn, sig, first = signature_of(module, name)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        x, a = bind_image(sig, first, args, kwargs)
        _core.no_output_array(a.get("output"), name)
        if "out" in a and a["out"] is not None:
            raise TypeError(f"{name}: out= is not supported on dask arrays")
        depth = list(depth_rule(x.ndim, {**a, first: x}))
        ca = a.get(channel_axis_arg) if channel_axis_arg else None
        if ca is not None:
            depth[ca % x.ndim] = 0
            x = x.rechunk({ca % x.ndim: -1})
        extra = []
        names = []
        for n in arrays:
            if a.get(n) is not None and hasattr(a[n], "shape") and a[n].shape == x.shape:
                extra.append(_core.as_dask(a.pop(n), n))
                names.append(n)
        mode = a.get(mode_arg, default_mode) if mode_arg else default_mode
        kw = {k: v for k, v in a.items() if sig.parameters[k].kind != inspect.Parameter.VAR_KEYWORD}
        for k, p in sig.parameters.items():
            if p.kind == inspect.Parameter.VAR_KEYWORD:
                kw.update(a.get(k, {}))
        block = functools.partial(_apply, (module, name, tuple(names), kw))
        return _core.map_overlap(block, [x] + extra, depth, mode)

    wrapper.__doc__ = (f"{name} on a dask array, blockwise with the overlap its parameters need "
                       f"(equal to {module}.{name} on the whole array).\n\n" + (fn.__doc__ or ""))
    return wrapper


def signature_of(module, name):
    """module.name, its signature and the name of its first (image) parameter."""
    fn = getattr(importlib.import_module(module), name)
    sig = inspect.signature(fn)
    return fn, sig, next(iter(sig.parameters))


def bind_image(sig, first, args, kwargs):
    """(the image as a dask array, the other arguments with their defaults)."""
    ba = sig.bind(*args, **kwargs)
    ba.apply_defaults()
    a = dict(ba.arguments)
    return _core.as_dask(a.pop(first), first), a


def _apply(spec, x, *extra):
    module, name, names, kw = spec
    fn = getattr(importlib.import_module(module), name)
    return fn(x, **kw, **dict(zip(names, extra)))
