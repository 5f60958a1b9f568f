"""Well-conditioned torchvision models with random weights, for measuring --dtype f16
(docs/float16.md, models/zoo/f16.yaml).

A freshly initialized deep network is chaotic: its residual branches are as large as the skip
path and its BatchNorm statistics (mean 0, variance 1) are not those of its activations, so a
rounding anywhere grows layer by layer (rounding only resnet50's weights to float16 moves its
output by 1.4% of the output's scale). Trained networks are not: their activations are normalized
and their residual branches add a fraction of the skip path. make(name, size=224, frames=None,
**kwargs) returns torchvision's `name` (get_model(name, weights=None, **kwargs), random weights,
seed 0 from make_zoo.py, eval mode) conditioned like a trained network, traced, and one random
input (seed 0): an image [1, 3, size, size], or with `frames` a video [1, 3, frames, size, size].

- Every network with BatchNorm (2-D or 3-D): its statistics are the cumulative averages
  (momentum None) of 4 train-mode passes over 4 random inputs of that shape each (seeds 100-103),
  so every layer sees normalized activations — the quantized fixtures' recipe
  (models/realworld/quantized.py: _settle_batchnorm, which makes images only; _settle_batchnorm
  below takes any input shape and gives the same statistics for images).
- Networks with residual additions, x + branch(x) (x possibly projected): after settling, the
  branch's last BatchNorm (not the projection's) has its weight and bias scaled by FACTOR = 0.3,
  so the branch adds 0.3 of a unit-variance activation to the skip path. The blocks, found by
  type (_RESIDUAL_BRANCHES), and the branch whose last BatchNorm is scaled:
  ResNet, ResNeXt, Wide ResNet: BasicBlock bn2, Bottleneck bn3 (downsample untouched);
  video ResNets (r3d, mc3, r2plus1d): BasicBlock conv2, Bottleneck conv3 (for R(2+1)D the
  BatchNorm after the (2+1)D convolution, not the one inside it);
  RegNet: ResBottleneckBlock f (its BatchNorm c, after the squeeze-excitation of RegNetY);
  MobileNetV2, MobileNetV3 (also the LRASPP backbone), MNASNet: the inverted residuals that add
  their input (use_res_connect, apply_residual); the others have no skip path and are only
  settled.
- Networks without residual additions (_PLAIN: DenseNet's concatenations, GoogLeNet's inception
  branches, ShuffleNetV2's channel split and shuffle): settled BatchNorm only. That is not
  enough to make them behave like trained networks: googlenet and shufflenet_v2_x0_5 still amplify
  float16 rounding beyond the tolerance (docs/float16.md, "CI subset").
- ConvNeXt (CNBlock: x + layer_scale * block(x)): no BatchNorm, nothing to settle (its LayerNorms
  normalize the current activations). torchvision initializes layer_scale to 1e-6, which makes
  every branch vanish (the network is its stem, downsampling layers and head; below float16's
  normals, too). Instead each block's layer_scale is set per channel to 0.3 / rms_c(block(x)),
  the root mean square of the branch's channel c over a pass of 4 random images (seed 100),
  block by block in order (a forward hook on block sets it before the product reads it), so the
  branch adds 0.3 of a unit-scale activation, as the scaled BatchNorm does in a ResNet.

Other architectures are refused, those with BatchNorm too (EfficientNet's MBConv adds its input
but is not in _RESIDUAL_BRANCHES: settling alone would leave its branches full size).
"""
import torch
import torch.nn as nn
import torchvision
from torchvision.models import mnasnet, mobilenetv2, mobilenetv3, regnet, resnet
from torchvision.models.convnext import CNBlock
from torchvision.models.densenet import DenseNet
from torchvision.models.googlenet import GoogLeNet
from torchvision.models.shufflenetv2 import ShuffleNetV2
from torchvision.models.video import resnet as video_resnet


FACTOR = 0.3

# Residual blocks: type -> (attribute holding the residual branch, attribute that must be true
# for the block to add its input, or None when it always does).
_RESIDUAL_BRANCHES = {
    resnet.BasicBlock: ("bn2", None),
    resnet.Bottleneck: ("bn3", None),
    video_resnet.BasicBlock: ("conv2", None),
    video_resnet.Bottleneck: ("conv3", None),
    regnet.ResBottleneckBlock: ("f", None),
    mobilenetv2.InvertedResidual: ("conv", "use_res_connect"),
    mobilenetv3.InvertedResidual: ("block", "use_res_connect"),
    mnasnet._InvertedResidual: ("layers", "apply_residual"),
}
# Networks with BatchNorm and no residual additions.
_PLAIN = (DenseNet, GoogLeNet, ShuffleNetV2)


def _inputs(shape, n=1, seed=0):
    """n random inputs of shape[1:] (seeded); images the same as quantized._images."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, *shape[1:], generator=g)


def _settle_batchnorm(model, shape, passes=4):
    """quantized._settle_batchnorm for inputs of any shape: reset statistics, momentum None
    (cumulative averages), `passes` train-mode passes over 4 random inputs each. Returns the
    number of BatchNorm layers."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        for k in range(passes):
            model(_inputs(shape, 4, seed=100 + k))
    model.eval()
    return len(bns)


def _scale_residual_branches(model):
    """Scales the last BatchNorm of each residual branch by FACTOR. Returns (blocks of a known
    type, branches scaled)."""
    blocks = scaled = 0
    with torch.no_grad():
        for m in model.modules():
            kind = next((v for t, v in _RESIDUAL_BRANCHES.items() if isinstance(m, t)), None)
            if kind is None:
                continue
            blocks += 1
            branch, flag = kind
            if flag is not None and not getattr(m, flag):
                continue
            bn = [b for b in getattr(m, branch).modules()
                  if isinstance(b, nn.modules.batchnorm._BatchNorm)][-1]
            bn.weight.mul_(FACTOR)
            bn.bias.mul_(FACTOR)
            scaled += 1
    return blocks, scaled


def _set_layer_scales(model, shape):
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
        model(_inputs(shape, 4, seed=100))
    for h in hooks:
        h.remove()
    return len(hooks)


def make(name, size=224, frames=None, **kwargs):
    model = torchvision.models.get_model(name, weights=None, **kwargs).eval()
    shape = [1, 3, size, size] if frames is None else [1, 3, frames, size, size]
    if any(isinstance(m, CNBlock) for m in model.modules()):
        _set_layer_scales(model, shape)
    else:
        if _settle_batchnorm(model, shape) == 0:
            raise ValueError(f"{name}: no BatchNorm and no CNBlock (conditioned.py knows BatchNorm "
                             "networks and ConvNeXts)")
        blocks, scaled = _scale_residual_branches(model)
        if not scaled and not isinstance(model, _PLAIN):
            raise ValueError(f"{name}: no residual block of a known type ({blocks} found), and not "
                             "a network known to have none (_PLAIN)")
    x = _inputs(shape)
    with torch.no_grad():  # strict=False: segmentation models return a dict
        return torch.jit.trace(model, x, strict=False), [x]
