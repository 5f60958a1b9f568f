"""torch2onnx: export PyTorch models to ONNX from Python, in-process, with torch2onnx's C++ exporter.

    import torch, torch2onnx
    torch2onnx.export(model, (x,), "model.onnx", opset=17, input_names=["x"],
                      dynamic_dims={"x": {0: "batch"}}, verify=True)

`model` is an nn.Module (traced here on `args`, in eval mode) or a torch.jit.ScriptModule
(scripted or traced). Errors raise torch2onnx.Error (a RuntimeError) with the message the CLI
prints; its `hint` attribute says what to do. See docs/api.md.
"""
import os

import torch

from ._torch2onnx import Error, UsageError, version, settings_help
from ._torch2onnx import check_settings as _check_settings
from ._torch2onnx import export_module as _export_module

__all__ = ["export", "Error", "UsageError", "version", "settings_help"]
__version__ = version()


def _as_tuple(args):
    if isinstance(args, torch.Tensor):
        return (args,)
    if isinstance(args, (list, tuple)):
        return tuple(args)
    raise TypeError(f"args must be a tensor or a tuple of tensors, not {type(args).__name__}")


def _check_example(value, where):
    """A tensor, a tuple or list of them (nested: a KV cache's tuple of (key, value) pairs), or a
    dict of them by str key."""
    if isinstance(value, torch.Tensor):
        return
    if isinstance(value, (tuple, list)):
        for j, e in enumerate(value):
            _check_example(e, f"{where}[{j}]")
        return
    if isinstance(value, dict):
        for k, e in value.items():
            if not isinstance(k, str) or not isinstance(e, torch.Tensor):
                raise TypeError(f"{where} is a dict; torch2onnx.export takes dicts of tensors by "
                                "str key")
        return
    raise TypeError(f"{where} is a {type(value).__name__}; torch2onnx.export takes tensors, or "
                    "tuples and lists of them")


def export(model, args, f, opset=None, input_names=None, output_names=None, dynamic_dims=None,
           log=None, **settings):
    """Exports `model` to the ONNX file `f` and returns a dict describing the result.

    model: an nn.Module (traced on `args` in eval mode; its training flag is restored afterwards)
        or a torch.jit.ScriptModule (torch.jit.script or torch.jit.trace).
    args: the example inputs, a tensor or a tuple of them, one per forward argument (fewer: the
        rest take their defaults). Their dtypes and shapes are the ONNX inputs'. An argument may
        be a tuple or list of tensors, nested (past_key_values: a tuple of (key, value) pairs):
        each tensor is an input named <argument>_<j> (<argument>_<j>_<k>), the name
        dynamic_dims uses for it; or a dict of tensors by str key: <argument>_<key>.
    f: the output path (str or os.PathLike).
    opset: the ONNX opset (as torch2onnx --opset).
    input_names / output_names: ONNX names (default: forward's argument names; output, ...).
    dynamic_dims: {input name: {dim index: symbol}}, e.g. {"x": {0: "batch"}}.
    log: a callable taking one progress line, e.g. print.
    **settings: the settings the command line's flags give, by name (listed below), e.g.
        verify=True, rtol=1e-3, functions=["BasicBlock"], fallback_domain="my.ops". With
        verify=True the result's "verify_ok" says whether every output passed and "outputs" has
        each comparison. A value of the wrong type raises TypeError; one out of range raises
        torch2onnx.UsageError (a ValueError and a torch2onnx.Error).
    """
    if not isinstance(f, (str, bytes, os.PathLike)):
        raise TypeError(f"f must be the output path (a str or os.PathLike), not {type(f).__name__}")
    f = os.fsdecode(os.fspath(f))
    if not f:
        raise ValueError("f, the output path, is empty")
    if opset is not None:
        settings["opset"] = opset
    if output_names is not None:
        settings["output_names"] = list(output_names) if not isinstance(output_names, str) \
            else output_names
    _check_settings(settings)
    args = _as_tuple(args)
    for i, a in enumerate(args):
        _check_example(a, f"args[{i}]")
    if isinstance(model, torch.jit.ScriptModule):
        script = model
    elif isinstance(model, torch.nn.Module):
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                # strict=False: forward may return a dict or list (one output per tensor).
                script = torch.jit.trace(model, args, strict=False)
        finally:
            model.train(was_training)
    else:
        raise TypeError(f"model must be an nn.Module or a ScriptModule, not {type(model).__name__}")
    dims = {str(k): {int(d): str(s) for d, s in v.items()} for k, v in (dynamic_dims or {}).items()}
    return _export_module(script, list(args), f, list(input_names or []), dims, settings, log)


def _settings_doc():
    lines = ["", "    Settings (the table every way into torch2onnx shares; CLI flag in docs/api.md):"]
    for name, help_text, default in settings_help():
        lines.append(f"    {name}: {help_text}" + (f" (default {default})" if default else ""))
    return "\n".join(lines) + "\n"


export.__doc__ += _settings_doc()
