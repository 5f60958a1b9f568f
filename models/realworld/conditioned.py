"""Well-conditioned torchvision models with random weights, for measuring --dtype f16
(docs/float16.md, models/zoo/f16.yaml).

A freshly initialized deep network is chaotic: its residual branches are as large as the skip
path, so a rounding anywhere grows layer by layer (rounding only resnet50's weights to float16
moves its output by 1.4% of the output's scale). Trained networks are not: their residual branches
add a fraction of the skip path. make(name, size=224) returns torchvision's `name` (random weights,
seed 0 from make_zoo.py, eval mode) conditioned like a trained network, traced, and one random
image [1, 3, size, size] (seed 0):

- ResNets (BasicBlock, Bottleneck): the BatchNorm statistics are the cumulative averages
  (momentum None) of 4 train-mode passes over 4 random images each, so every layer sees
  normalized activations; then the residual branch's last BatchNorm (bn3 of a Bottleneck, bn2 of a
  BasicBlock; not the downsample path's) has its weight and bias scaled by 0.3, so the branch
  adds 0.3 of a unit-variance activation to the skip path. The same as the quantized fixtures
  (models/realworld/quantized.py: _settle_batchnorm, _scale_residual_branches).
- ConvNeXt (CNBlock: x + layer_scale * block(x)): no BatchNorm, nothing to settle (its LayerNorms
  normalize the current activations). torchvision initializes layer_scale to 1e-6, which makes
  every branch vanish (the network is its stem, downsampling layers and head; below float16's
  normals, too). Instead each block's layer_scale is set per channel to 0.3 / rms_c(block(x)),
  the root mean square of the branch's channel c over a pass of 4 random images (seed 100),
  block by block in order (a forward hook on block sets it before the product reads it), so the
  branch adds 0.3 of a unit-scale activation, as the scaled BatchNorm does in a ResNet.
"""
import torch
import torchvision

# The quantized fixtures' recipe, shared (models/realworld is on the path of make_zoo.py).
from quantized import _images, _settle_batchnorm  # noqa: E402


FACTOR = 0.3


def _scale_resnet_branches(model):
    from torchvision.models.resnet import BasicBlock, Bottleneck

    n = 0
    with torch.no_grad():
        for m in model.modules():
            bn = (m.bn3 if isinstance(m, Bottleneck)
                  else m.bn2 if isinstance(m, BasicBlock) else None)
            if bn is not None:
                bn.weight.mul_(FACTOR)
                bn.bias.mul_(FACTOR)
                n += 1
    return n


def _set_layer_scales(model, size):
    from torchvision.models.convnext import CNBlock

    hooks = []

    def hook(block):
        def set_scale(_mod, _inp, out):
            rms = out.detach().square().mean(dim=(0, 2, 3)).sqrt().clamp_min(1e-6)  # NCHW
            block.layer_scale.copy_((FACTOR / rms).reshape(block.layer_scale.shape))
        return set_scale

    for m in model.modules():
        if isinstance(m, CNBlock):
            hooks.append(m.block.register_forward_hook(hook(m)))
    with torch.no_grad():
        model(_images(size, 4, seed=100))
    for h in hooks:
        h.remove()
    return len(hooks)


def make(name, size=224):
    model = torchvision.models.get_model(name, weights=None).eval()
    if name.startswith(("resnet", "resnext", "wide_resnet")):
        _settle_batchnorm(model, size)
        if _scale_resnet_branches(model) == 0:
            raise ValueError(f"{name}: no residual blocks found")
    elif name.startswith("convnext"):
        if _set_layer_scales(model, size) == 0:
            raise ValueError(f"{name}: no CNBlock found")
    else:
        raise ValueError(f"{name}: conditioned.py knows ResNets and ConvNeXts")
    x = _images(size)
    with torch.no_grad():
        return torch.jit.trace(model, x), [x]
