"""Random weights that make a meaningful comparison (shared by the fixture scripts in models/).

Freshly initialized torchvision models are poor test subjects: some zero-initialize a layer (ViT's
head), so every output is 0; in deep nets with batch norm the untouched running statistics
(mean 0, variance 1) do not match the real activations, which shrink layer by layer until the
output is just the classifier's bias, whatever the input (GoogLeNet, ShuffleNet, S3D). Comparing
such outputs between ONNX Runtime and LibTorch proves almost nothing.
"""
import torch


def randomize_zero_weights(model):
    """Gives all-zero weight matrices small random values."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0.0, 0.02)


def _calibration_input(x):
    # Batch norm in training mode needs more than one value per channel: use a batch of 2.
    if x.dim() >= 1 and x.shape[0] == 1 and x.is_floating_point():
        return torch.randn(2, *x.shape[1:]).to(x.dtype)
    return x.clone()


def calibrate_batchnorm(model, inputs, rounds=2):
    """Sets every batch-norm layer's running statistics to those of its activations on random
    inputs (a cumulative average over `rounds` forward passes), so that each normalizes its input
    to unit scale as a trained network's would. Only batch-norm layers switch to training mode;
    dropout and everything else stay in eval mode. Returns the number of layers calibrated."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative moving average
        m.train()
    try:
        with torch.no_grad():
            for _ in range(rounds):
                model(*[_calibration_input(x) for x in inputs])
    finally:
        for m in bns:
            m.eval()
    return len(bns)


def _flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return []


def float32_error(model, inputs):
    """How far the model's float32 result is from its float64 result, relative to the output's
    scale: max |f32 - f64| / max(1, max |f64|) over all outputs. This is the rounding error any
    float32 runtime must expect; a comparison tolerance below it cannot be met. None when the model
    cannot run in float64 (RAFT makes float32 tensors of its own inside forward)."""
    import copy
    with torch.no_grad():
        a = _flat(model(*inputs))
        d = copy.deepcopy(model).double()
        try:
            b = _flat(d(*[x.double() if x.is_floating_point() else x for x in inputs]))
        except RuntimeError:
            return None
    worst = 0.0
    for x, y in zip(a, b):
        if x.is_floating_point() and x.numel():
            scale = max(1.0, y.abs().max().item())
            worst = max(worst, (x.double() - y).abs().max().item() / scale)
    return worst


def condition(model, inputs, target=2e-5, factor=0.8, steps=12):
    """Random deep residual networks with calibrated batch norm are chaotic: each block adds its
    own full-scale branch, so rounding differences grow with depth (ResNet-152's float32 output
    differs from its float64 output by 4e-4 of its scale, 4x the verification tolerance). Trained
    networks are not like that. Scale every batch-norm layer's weight (gamma) by `factor` until
    the float32 rounding error is at most `target` (1/5 of the 1e-4 tolerance). A no-op for models
    that are already well-conditioned. Returns (total scale applied, final error)."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    scale = 1.0
    err = float32_error(model, inputs) if bns else 0.0
    for _ in range(steps):
        if err is None or err <= target or not bns:  # None: no float64 reference, left as it is
            break
        with torch.no_grad():
            for m in bns:
                if m.weight is not None:
                    m.weight.mul_(factor)
        scale *= factor
        err = float32_error(model, inputs)
    return scale, err


def prepare(model, inputs):
    """All of the above; the model is left in eval mode."""
    model.eval()
    randomize_zero_weights(model)
    calibrate_batchnorm(model, inputs)
    condition(model, inputs)
    return model
