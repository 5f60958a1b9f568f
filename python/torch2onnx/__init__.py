"""torch2onnx: export PyTorch models to ONNX from Python, in-process, with torch2onnx's C++ exporter.

    import torch, torch2onnx
    torch2onnx.export(model, (x,), "model.onnx", opset=17, input_names=["x"],
                      dynamic_dims={"x": {0: "batch"}}, verify=True)

`model` is an nn.Module (traced here on `args`, in eval mode) or a torch.jit.ScriptModule
(scripted or traced). Errors raise torch2onnx.Error (a RuntimeError) with the message the CLI
prints; its `hint` attribute says what to do. See docs/api.md.
"""
import math
import os

import torch

from ._torch2onnx import Error, version
from ._torch2onnx import export_module as _export_module

__all__ = ["export", "Error", "version"]
__version__ = version()


def _as_tuple(args):
    if isinstance(args, torch.Tensor):
        return (args,)
    if isinstance(args, (list, tuple)):
        return tuple(args)
    raise TypeError(f"args must be a tensor or a tuple of tensors, not {type(args).__name__}")


def export(model, args, f, opset=17, input_names=None, output_names=None, dynamic_dims=None,
           verify=False, rtol=1e-4, atol=1e-4, external_data=False, optimize=True,
           libraries=None, functions=None, fallback_domain=None, log=None):
    """Exports `model` to the ONNX file `f` and returns a dict describing the result.

    model: an nn.Module (traced on `args` in eval mode; its training flag is restored afterwards)
        or a torch.jit.ScriptModule (torch.jit.script or torch.jit.trace).
    args: the example inputs, a tensor or a tuple of tensors, one per forward argument (fewer:
        the rest take their defaults). Their dtypes and shapes are the ONNX inputs'.
    f: the output path (str or os.PathLike).
    opset: the ONNX opset (as torch2onnx --opset).
    input_names / output_names: ONNX names (default: forward's argument names; output, ...).
    dynamic_dims: {input name: {dim index: symbol}}, e.g. {"x": {0: "batch"}}.
    verify: also run LibTorch and ONNX Runtime on the same inputs and compare every output;
        the result's "verify_ok" says whether all passed, "outputs" has each comparison.
    rtol / atol: verification tolerance, max(atol, rtol * max|torch|) per output.
    external_data: write the weights to f + ".data" (automatic over 2 GB).
    optimize: the graph rewrites (False is the CLI's --no-optimize).
    libraries: custom-op libraries to load first (as --load-library).
    functions: module class names whose calls become ONNX local functions (opset >= 15), e.g.
        ["BasicBlock"] (as the CLI's --functions; see docs/functions.md).
    fallback_domain: write ops without a converter as nodes of this custom ONNX domain, listed in
        the result's "notices" (as --fallback-domain; see docs/fallback.md). verify=True cannot
        run such a file.
    log: a callable taking one progress line, e.g. print.
    """
    if isinstance(functions, str):
        functions = [functions]
    if not isinstance(f, (str, bytes, os.PathLike)):
        raise TypeError(f"f must be the output path (a str or os.PathLike), not {type(f).__name__}")
    f = os.fsdecode(os.fspath(f))
    if not f:
        raise ValueError("f, the output path, is empty")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name} must be a number, not {type(value).__name__}")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name}={value} must be a finite number >= 0 (e.g. 1e-4)")
    args = _as_tuple(args)
    for i, a in enumerate(args):
        if not isinstance(a, torch.Tensor):
            raise TypeError(f"args[{i}] is a {type(a).__name__}; torch2onnx.export takes tensors")
    if isinstance(model, torch.jit.ScriptModule):
        script = model
    elif isinstance(model, torch.nn.Module):
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                script = torch.jit.trace(model, args)
        finally:
            model.train(was_training)
    else:
        raise TypeError(f"model must be an nn.Module or a ScriptModule, not {type(model).__name__}")
    dims = {str(k): {int(d): str(s) for d, s in v.items()} for k, v in (dynamic_dims or {}).items()}
    return _export_module(script, list(args), f, opset, list(input_names or []),
                          list(output_names or []), dims, verify, rtol, atol, external_data,
                          optimize, list(libraries or []), list(functions or []),
                          fallback_domain or "", log)
