// Loss functions: mse_loss, nll_loss (and its 2d/nd/forward forms), cross_entropy_loss,
// binary_cross_entropy_with_logits, kl_div. `reduction` is ATen's enum: 0 none, 1 mean, 2 sum.
#include "aten_lib/loss.h"

#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <string>

namespace torch2onnx {

DType loss_type(const ConvertCtx &c) {
  return out_dtype(c) == DType::Double ? DType::Double : DType::Float;
}

int64_t reduction_arg(const ConvertCtx &c) {
  int64_t r = c.arg<int64_t>("reduction", 1);
  T2O_CHECK(r >= 0 && r <= 2, "{}: unknown reduction {} (0 none, 1 mean, 2 sum)", c.op(), r);
  return r;
}

Val reduce_all(GraphBuilder &b, DType k, const Val &x, int64_t reduction) {
  if (reduction == 0)
    return x;
  if (reduction == 2)
    return op_t(b, k, "ReduceSum", {x}, {{"keepdims", 0}});
  return op_t(b, k, "ReduceMean", {x}, {{"keepdims", 0}});
}

namespace {

const char *reduction_name(int64_t r) {
  return r == 0 ? "none" : r == 1 ? "mean" : "sum";
}

// log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)), stable for large |x|.
Val log_sigmoid(GraphBuilder &b, DType k, const Val &x) {
  Val e = op_t(b, k, "Exp", {op_t(b, k, "Neg", {op_t(b, k, "Abs", {x})})});
  Val l = op_t(b, k, "Log", {op_t(b, k, "Add", {e, scalar(b, k, 1)})});
  return op_t(b, k, "Sub", {op_t(b, k, "Min", {x, scalar(b, k, 0)}), l});
}

// Inputs without a batch dim ([C] with a 0-d target) get one, as ONNX needs (N, C, ...).
struct Batched {
  Val input, target;
  bool unbatched = false;
};

Batched batched(ConvertCtx &c, DType k) {
  Batched r;
  r.input = cast_to(c.b, c.tensor("self"), k);
  r.target = c.tensor("target");
  r.unbatched = c.info("self").rank() == 1;
  if (r.unbatched) {
    r.input = unsqueeze(c.b, r.input, {0});
    r.target = unsqueeze(c.b, r.target, {0});
  }
  return r;
}

// The optional per-class "weight", in dtype k.
Val class_weight(ConvertCtx &c, DType k) {
  return c.has("weight") ? cast_to(c.b, c.tensor("weight"), k) : Val{};
}

} // namespace

// mse_loss(Tensor self, Tensor target, int reduction=Mean)
void aten_mse_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  Val d =
      op_t(c.b, k, "Sub", {cast_to(c.b, c.tensor("self"), k), cast_to(c.b, c.tensor("target"), k)});
  set_result(c, reduce_all(c.b, k, op_t(c.b, k, "Mul", {d, d}), reduction_arg(c)));
}

// nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//          int ignore_index=-100)
// cross_entropy_loss(... the same five ..., float label_smoothing=0.0)
// nll_loss_forward also returns the total weight of the counted targets (0 for reduction none,
// as ATen).
void aten_nll_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  int64_t reduction = reduction_arg(c);
  int64_t ignore = c.arg<int64_t>("ignore_index", -100);
  Batched in = batched(c, k);
  Val target = cast_to(c.b, in.target, DType::Int64);
  Val w = class_weight(c, k);
  std::vector<Val> inputs = {in.input, target};
  if (w.valid())
    inputs.push_back(w);
  Val loss = op_t(c.b, k, "NegativeLogLikelihoodLoss", inputs,
                  {{"reduction", reduction_name(reduction)}, {"ignore_index", ignore}});
  if (in.unbatched && reduction == 0)
    loss = squeeze(c.b, loss, {0});
  set_result(c, loss);
  if (c.num_outputs() < 2)
    return;
  // total_weight = sum of w[target] over targets != ignore_index.
  Val keep =
      op_t(c.b, DType::Bool, "Not",
           {op_t(c.b, DType::Bool, "Equal", {target, c.b.const_scalar(DType::Int64, ignore)})});
  Val tw;
  if (reduction == 0) {
    tw = scalar(c.b, k, 0);
  } else if (w.valid()) {
    Val safe = op_t(c.b, DType::Int64, "Where", {keep, target, c.b.const_scalar(DType::Int64, 0)});
    Val picked = op_t(c.b, k, "Gather", {w, safe}, {{"axis", int64_t{0}}});
    picked = op_t(c.b, k, "Where", {keep, picked, scalar(c.b, k, 0)});
    tw = op_t(c.b, k, "ReduceSum", {picked}, {{"keepdims", 0}});
  } else {
    tw = op_t(c.b, k, "ReduceSum", {cast_to(c.b, keep, k)}, {{"keepdims", 0}});
  }
  set_result(c, tw, 1);
}

// cross_entropy_loss with class indices or class probabilities as the target.
void aten_cross_entropy_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  int64_t reduction = reduction_arg(c);
  int64_t ignore = c.arg<int64_t>("ignore_index", -100);
  double eps = c.arg<double>("label_smoothing", 0.0);
  Batched in = batched(c, k);
  Val w = class_weight(c, k);
  int64_t rank = c.info("self").rank() + (in.unbatched ? 1 : 0);
  const TensorInfo &xi = c.info("self");
  const Dim &classes = (*xi.shape)[in.unbatched ? 0 : 1];
  // Weights broadcast along the class dim (1) of the (N, C, ...) input.
  std::vector<int64_t> wshape = {-1};
  for (int64_t i = 2; i < rank; ++i)
    wshape.push_back(1);
  Val wb = w.valid() ? reshape(c.b, w, wshape) : Val{};
  Val logp = op_t(c.b, k, "LogSoftmax", {in.input}, {{"axis", int64_t{1}}});
  Val loss;
  if (is_floating(c.info("target").dtype)) { // class probabilities
    Val t = cast_to(c.b, in.target, k);
    if (eps > 0) {
      T2O_CHECK(classes.is_static(), "label smoothing needs a static class count, got {}",
                xi.str());
      t = op_t(c.b, k, "Add",
               {op_t(c.b, k, "Mul", {t, scalar(c.b, k, 1 - eps)}),
                scalar(c.b, k, eps / static_cast<double>(classes.value))});
    }
    Val prod = op_t(c.b, k, "Mul", {logp, t});
    if (wb.valid())
      prod = op_t(c.b, k, "Mul", {prod, wb});
    Val per = op_t(c.b, k, "Neg",
                   {op_t(c.b, k, "ReduceSum", {prod, c.b.const_i64({1})}, {{"keepdims", 0}})});
    loss = reduce_all(c.b, k, per, reduction);
  } else {
    Val target = cast_to(c.b, in.target, DType::Int64);
    std::vector<Val> inputs = {logp, target};
    if (w.valid())
      inputs.push_back(w);
    loss = op_t(c.b, k, "NegativeLogLikelihoodLoss", inputs,
                {{"reduction", reduction_name(reduction)}, {"ignore_index", ignore}});
    if (eps > 0) {
      T2O_CHECK(classes.is_static(), "label smoothing needs a static class count, got {}",
                xi.str());
      // ATen: (1 - eps) * nll + eps / C * smooth, smooth = -sum_c w_c logp_c (0 where ignored),
      // reduced like nll.
      Val prod = wb.valid() ? op_t(c.b, k, "Mul", {logp, wb}) : logp;
      Val smooth = op_t(c.b, k, "Neg",
                        {op_t(c.b, k, "ReduceSum", {prod, c.b.const_i64({1})}, {{"keepdims", 0}})});
      Val ignored =
          op_t(c.b, DType::Bool, "Equal", {target, c.b.const_scalar(DType::Int64, ignore)});
      Val zero = scalar(c.b, k, 0);
      smooth = op_t(c.b, k, "Where", {ignored, zero, smooth});
      if (reduction == 1) { // divided by the counted weight (or count) of the targets
        Val picked = cast_to(c.b, op_t(c.b, DType::Bool, "Not", {ignored}), k);
        if (w.valid()) {
          Val safe = op_t(c.b, DType::Int64, "Where",
                          {ignored, c.b.const_scalar(DType::Int64, 0), target});
          picked = op_t(c.b, k, "Gather", {w, safe}, {{"axis", int64_t{0}}});
          picked = op_t(c.b, k, "Where", {ignored, zero, picked});
        }
        smooth = op_t(c.b, k, "Div",
                      {op_t(c.b, k, "ReduceSum", {smooth}, {{"keepdims", 0}}),
                       op_t(c.b, k, "ReduceSum", {picked}, {{"keepdims", 0}})});
      } else {
        smooth = reduce_all(c.b, k, smooth, reduction);
      }
      loss = op_t(c.b, k, "Add",
                  {op_t(c.b, k, "Mul", {loss, scalar(c.b, k, 1 - eps)}),
                   op_t(c.b, k, "Mul", {smooth, scalar(c.b, k, eps / classes.value)})});
    }
  }
  if (in.unbatched && reduction == 0)
    loss = squeeze(c.b, loss, {0});
  set_result(c, loss);
}

// binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
//                                  Tensor? pos_weight=None, int reduction=Mean)
// = (1 - t) x - log_sigmoid(x) * (1 + (pos_weight - 1) t), times weight, reduced.
void aten_binary_cross_entropy_with_logits(ConvertCtx &c) {
  DType k = loss_type(c);
  Val x = cast_to(c.b, c.tensor("self"), k), t = cast_to(c.b, c.tensor("target"), k);
  Val ls = log_sigmoid(c.b, k, x);
  if (c.has("pos_weight")) {
    Val pw = cast_to(c.b, c.tensor("pos_weight"), k);
    Val lw = op_t(c.b, k, "Add",
                  {op_t(c.b, k, "Mul", {op_t(c.b, k, "Sub", {pw, scalar(c.b, k, 1)}), t}),
                   scalar(c.b, k, 1)});
    ls = op_t(c.b, k, "Mul", {ls, lw});
  }
  Val one_minus_t = op_t(c.b, k, "Sub", {scalar(c.b, k, 1), t});
  Val loss = op_t(c.b, k, "Sub", {op_t(c.b, k, "Mul", {one_minus_t, x}), ls});
  if (c.has("weight"))
    loss = op_t(c.b, k, "Mul", {loss, cast_to(c.b, c.tensor("weight"), k)});
  set_result(c, reduce_all(c.b, k, loss, reduction_arg(c)));
}

// kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False):
// target * (log target - input), with 0 where target == 0; or exp(target) * (target - input)
// when the target is given as log-probabilities.
void aten_kl_div(ConvertCtx &c) {
  DType k = loss_type(c);
  Val x = cast_to(c.b, c.tensor("self"), k), t = cast_to(c.b, c.tensor("target"), k);
  bool log_target = c.arg<bool>("log_target", false);
  Val loss;
  if (log_target) {
    loss = op_t(c.b, k, "Mul", {op_t(c.b, k, "Exp", {t}), op_t(c.b, k, "Sub", {t, x})});
  } else {
    // xlogy(t, t): 0 at t == 0 (unless t is nan).
    Val tlogt = op_t(c.b, k, "Mul", {t, op_t(c.b, k, "Log", {t})});
    Val zero = scalar(c.b, k, 0);
    tlogt = op_t(c.b, k, "Where", {op_t(c.b, DType::Bool, "Equal", {t, zero}), zero, tlogt});
    loss = op_t(c.b, k, "Sub", {tlogt, op_t(c.b, k, "Mul", {t, x})});
  }
  set_result(c, reduce_all(c.b, k, loss, reduction_arg(c)));
}

void register_loss_ops(Registry &r) {
  r.add("aten::mse_loss", 11, aten_mse_loss, {"Sub", "Mul", "ReduceMean", "ReduceSum"});
  for (const char *op :
       {"aten::nll_loss", "aten::nll_loss2d", "aten::nll_loss_nd", "aten::nll_loss_forward"})
    r.add(op, 11, aten_nll_loss,
          {"NegativeLogLikelihoodLoss", "Cast", "Div", "Equal", "Gather", "GatherElements",
           "Identity", "Mul", "Neg", "Not", "ReduceSum", "Squeeze", "Unsqueeze", "Where"});
  r.add("aten::cross_entropy_loss", 11, aten_cross_entropy_loss,
        {"LogSoftmax", "NegativeLogLikelihoodLoss", "Add", "Cast", "Div", "Equal", "Gather",
         "GatherElements", "Identity", "Mul", "Neg", "Not", "ReduceMean", "ReduceSum", "Reshape",
         "Squeeze", "Transpose", "Unsqueeze", "Where"});
  r.add("aten::binary_cross_entropy_with_logits", 11, aten_binary_cross_entropy_with_logits,
        {"Exp", "Log", "Mul", "ReduceMean", "Abs", "Add", "Min", "Neg", "ReduceSum", "Sub"});
  r.add("aten::kl_div", 11, aten_kl_div,
        {"Log", "Mul", "Sub", "ReduceMean", "Equal", "Exp", "ReduceSum", "Where"});
}

} // namespace torch2onnx
