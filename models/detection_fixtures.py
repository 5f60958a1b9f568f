"""torchvision detection models as fixtures (used by models/make_zoo.py's `detection` wrapper).

Two problems make a freshly initialized detection model a poor test subject:
- It takes a list of images and returns a list of dicts; torch2onnx's --input and outputs are
  tensors. DetectionOutputs takes one batched tensor and returns the detections as flat tensors.
- Its scores are nearly all equal. RetinaNet's and FCOS's classifiers start at the prior (every
  score ~0.01, thousands of them equal to the last float bit); SSD300 (VGG, no batch norm)
  saturates every score at exactly 1.0 and regresses degenerate boxes. Detections are sorted by
  score, so ties (exact, or closer than float rounding) make their order, and which of two
  overlapping boxes NMS keeps, arbitrary: LibTorch and ONNX Runtime then list different boxes
  although both compute the same thing. calibrate_heads() scales the weights of each prediction
  layer so its output (before the bias) stays within a fixed range on random inputs, as the
  heads of a trained model roughly do: scores spread out without saturating at 1.0 (the top
  detections are the extremes of up to a million candidates, so it is the largest value that is
  bounded), and boxes have sensible sizes.
"""
import torch

import fixture_weights

# The last layer of each prediction head (its qualified name ends with one of these), and the
# largest absolute value its output (less the bias) gets: class logits 8, box regression 2.
HEAD_LAYERS = {"cls_logits": 8.0, "cls_score": 8.0, "mask_fcn_logits": 8.0, "kps_score_lowres": 8.0,
               "bbox_ctrness": 8.0, "bbox_reg": 2.0, "bbox_pred": 2.0}
# float32 rounding error allowed at the backbone's output (fixture_weights.condition). The heads
# amplify it: box positions move RoIAlign's sampling points, and the keypoint positions are an
# argmax over upsampled heatmaps.
CONDITION_TARGET = 2e-5
LAYER_TYPES = (torch.nn.Conv2d, torch.nn.ConvTranspose2d, torch.nn.Linear)
# SSD's heads are lists of per-feature-map layers; the last conv of each is a prediction layer.
SSD_HEADS = {"head.classification_head.module_list": 8.0, "head.regression_head.module_list": 2.0}


def head_layers(model):
    """(module, target largest value) of every prediction layer of a torchvision detection model."""
    found = []
    for name, m in model.named_modules():
        last = name.rsplit(".", 1)[-1]
        if last in HEAD_LAYERS and isinstance(m, LAYER_TYPES):
            found.append((m, HEAD_LAYERS[last]))
        for path, limit in SSD_HEADS.items():
            if name.endswith(path):
                for branch in m:
                    convs = [c for c in branch.modules() if isinstance(c, torch.nn.Conv2d)]
                    found.append((convs[-1], limit))
    return found


def calibrate_heads(model, inputs, rounds=3):
    """Scales each prediction layer's weight so that the largest absolute value of its output
    minus its bias is the target on `inputs`. Layers are measured together and the pass repeated:
    scaling the region proposal head changes what the box head sees, and the mask and keypoint
    heads see boxes only once the box head scores above its threshold. Returns the layers scaled."""
    layers = head_layers(model)
    for _ in range(rounds):
        stats = {}

        def hook(m, _inp, out, key=None):
            b = m.bias
            y = out if b is None else out - b.view(*([1, -1] + [1] * (out.dim() - 2)))
            # RetinaNet and FCOS run one head on every feature map: keep the largest of all. The
            # mask and keypoint heads see no box until the box head is calibrated (empty output).
            if y.numel():
                stats[id(m)] = max(stats.get(id(m), 0.0), y.float().abs().max().item())

        handles = [m.register_forward_hook(hook) for m, _ in layers]
        try:
            with torch.no_grad():
                model(*inputs)
        finally:
            for h in handles:
                h.remove()
        with torch.no_grad():
            for m, target in layers:
                s = stats.get(id(m))
                if s and s > 0:
                    m.weight.mul_(target / s)
    return len(layers)


class DetectionOutputs(torch.nn.Module):
    """A torchvision detection model (which takes a list of [3, H, W] images and returns a list of
    dicts) as one that takes a batched tensor [N, 3, H, W] and returns flat tensors: the image's
    dict (boxes, labels, scores, and masks or keypoints, keypoints_scores) for N == 1, otherwise
    one dict with the keys numbered (boxes_0, labels_0, ..., boxes_1, ...)."""

    # Part of the fixture recipe: a new version remakes the files.
    VERSION = ("detection v6 (backbone conditioned on the transformed images, heads calibrated: "
               "max |logit| 8, max |delta| 2)")

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images):
        detections = self.model(list(images.unbind(0)))
        if len(detections) == 1:
            return detections[0]
        return {f"{k}_{i}": v for i, d in enumerate(detections) for k, v in d.items()}

    def prepare(self, inputs):
        """Instead of fixture_weights.prepare: its steps, with the float32 conditioning (when
        fixture_weights has it) applied to the backbone alone, since a detection model's output
        (which boxes, in which order) is not a smooth function of its weights; then
        calibrate_heads."""
        self.eval()
        fixture_weights.randomize_zero_weights(self)
        fixture_weights.calibrate_batchnorm(self, inputs)
        condition = getattr(fixture_weights, "condition", None)
        if condition is not None:
            # The backbone sees the model's own transform of the images (normalized, resized).
            with torch.no_grad():
                images = self.model.transform(list(inputs[0].unbind(0)))[0].tensors
            condition(self.model.backbone, (images,), target=CONDITION_TARGET)
        calibrate_heads(self, inputs)
        return self
