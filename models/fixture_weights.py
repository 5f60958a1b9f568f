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


def prepare(model, inputs):
    """Both of the above; the model is left in eval mode."""
    model.eval()
    randomize_zero_weights(model)
    calibrate_batchnorm(model, inputs)
    return model
