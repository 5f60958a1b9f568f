// The one place where a node's form follows the target opset. Converters write each operator in
// one form (axes of Squeeze/Unsqueeze/ReduceSum and Split's sizes as inputs, as from opset 13;
// axes of the other Reduce* ops as an attribute, as through opset 17); the builder rewrites a node
// to the form its opset defines:
//   opset 11-12  Squeeze, Unsqueeze, ReduceSum: constant axes input -> `axes` attribute
//                Split: constant sizes input -> `split` attribute
//                Softmax, LogSoftmax, Hardmax: coerce to 2-D around `axis`, so any axis other
//                  than the last goes through a Transpose to the last axis and back
//                Resize: an omitted roi or scales input becomes an empty tensor (required there)
//   opset 11     GreaterOrEqual/LessOrEqual -> Or(Greater/Less, Equal); Max/Min of two integer
//                  tensors -> Where(Greater/Less); Clip on other dtypes than float32 -> Where;
//                  Pow of an integer base or of mixed types -> Cast, Pow in float/double, Cast;
//                  NegativeLogLikelihoodLoss -> GatherElements, Gather, Neg, Mul, Reduce*
//   opset 11-12  Cast to bfloat16: an error (bfloat16 arrives in 13)
//   opset 18+    Reduce* other than ReduceSum: `axes` attribute -> constant axes input
//                Split without sizes: `num_outputs` attribute
//   opset 20+    GridSample: mode bilinear/bicubic -> linear/cubic
// and, at every opset, ops on bool tensors in forms every runtime runs (ONNX Runtime's CPU
// provider has no bool Where, Max, Min, ArgMax/ArgMin, nor ReduceMax/ReduceMin below opset 20):
//                Where of bools -> Or(And(c, x), And(Not(c), y)); Max/Min -> Or/And;
//                ReduceMax/ReduceMin below 20, ArgMax/ArgMin -> on a Cast to int32
#include "builder/error.h"
#include "builder/graph_builder.h"

#include <algorithm>
#include <onnx/onnx_pb.h>

namespace torch2onnx {

namespace {

const Attr *find_attr(const std::vector<Attr> &attrs, const std::string &name) {
  for (const auto &a : attrs)
    if (a.name == name)
      return &a;
  return nullptr;
}

std::vector<Attr> without(const std::vector<Attr> &attrs, const std::string &name) {
  std::vector<Attr> out;
  for (const auto &a : attrs)
    if (a.name != name)
      out.push_back(a);
  return out;
}

bool is_reduce_with_axes_attribute(const std::string &op) {
  static const char *const kOps[] = {"ReduceL1",        "ReduceL2",   "ReduceLogSum",
                                     "ReduceLogSumExp", "ReduceMax",  "ReduceMean",
                                     "ReduceMin",       "ReduceProd", "ReduceSumSquare"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

} // namespace

std::optional<std::vector<Val>> GraphBuilder::adapt_form(const std::string &op,
                                                         const std::vector<Val> &inputs,
                                                         const std::vector<Attr> &attrs,
                                                         int num_outputs, std::string_view domain) {
  if (!domain.empty() && domain != "ai.onnx")
    return std::nullopt;
  if (auto adapted = adapt_bool_form(op, inputs, attrs, num_outputs))
    return adapted;
  if (opset_ < 13)
    return adapt_form_below_13(op, inputs, attrs, num_outputs);
  if (opset_ >= 18 && is_reduce_with_axes_attribute(op)) {
    const Attr *axes = find_attr(attrs, "axes");
    if (axes == nullptr)
      return std::nullopt;
    Val axes_in = const_i64(std::get<std::vector<int64_t>>(axes->value));
    return op_impl(op, {inputs.at(0), axes_in}, without(attrs, "axes"), num_outputs);
  }
  if (opset_ >= 18 && op == "Split" && (inputs.size() < 2 || !inputs[1].valid()) &&
      find_attr(attrs, "num_outputs") == nullptr) {
    std::vector<Attr> a = attrs;
    a.emplace_back("num_outputs", int64_t{num_outputs});
    return op_impl(op, {inputs.at(0)}, a, num_outputs);
  }
  if (opset_ >= 20 && op == "GridSample") {
    const Attr *mode = find_attr(attrs, "mode");
    if (mode == nullptr) // the default, bilinear, is called linear from opset 20
      return std::nullopt;
    const std::string &m = std::get<std::string>(mode->value);
    if (m != "bilinear" && m != "bicubic")
      return std::nullopt;
    std::vector<Attr> a = without(attrs, "mode");
    a.emplace_back("mode", m == "bilinear" ? "linear" : "cubic");
    return op_impl(op, inputs, a, num_outputs);
  }
  return std::nullopt;
}

std::optional<std::vector<Val>> GraphBuilder::adapt_bool_form(const std::string &op,
                                                              const std::vector<Val> &inputs,
                                                              const std::vector<Attr> &attrs,
                                                              int num_outputs) {
  auto is_bool = [&](size_t i) {
    return i < inputs.size() && inputs[i].valid() && has_info(inputs[i]) &&
           info(inputs[i]).dtype == DType::Bool;
  };
  if (op == "Where" && is_bool(1) && is_bool(2)) { // (c and x) or (not c and y)
    Val then_part = op1("And", {inputs[0], inputs[1]});
    Val else_part = op1("And", {op1("Not", {inputs[0]}), inputs[2]});
    return std::vector<Val>{op1("Or", {then_part, else_part})};
  }
  if ((op == "Max" || op == "Min") && !inputs.empty() && num_outputs == 1) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!is_bool(i))
        return std::nullopt;
    Val out = inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i)
      out = op1(op == "Max" ? "Or" : "And", {out, inputs[i]});
    return std::vector<Val>{out};
  }
  bool reduce = (op == "ReduceMax" || op == "ReduceMin") && opset_ < 20;
  if ((reduce || op == "ArgMax" || op == "ArgMin") && is_bool(0)) {
    std::vector<Val> ins = inputs;
    ins[0] = op1("Cast", {inputs[0]}, {{"to", int64_t{onnx::TensorProto::INT32}}});
    std::vector<Val> outs = this->op(op, ins, attrs, num_outputs);
    if (reduce)
      outs[0] = op1("Cast", {outs[0]}, {{"to", int64_t{onnx::TensorProto::BOOL}}});
    return outs;
  }
  return std::nullopt;
}

std::optional<std::vector<Val>> GraphBuilder::adapt_form_below_13(const std::string &op,
                                                                  const std::vector<Val> &inputs,
                                                                  const std::vector<Attr> &attrs,
                                                                  int num_outputs) {
  // The constant a second input holds, which the opset-11 form takes as an attribute.
  auto constant_ints = [&](const char *what) {
    const TensorData *d = constant_data(inputs.at(1));
    if (d == nullptr)
      throw Error(fmt::format("{} with {} computed at run time needs opset 13 (target opset {})",
                              op, what, opset_),
                  "use --opset 13 or newer");
    return d->as_ints();
  };
  if (opset_ < 12)
    if (auto adapted = adapt_form_below_12(op, inputs, attrs, num_outputs))
      return adapted;
  if (op == "Cast") {
    const Attr *to = find_attr(attrs, "to");
    if (to && std::get<int64_t>(to->value) == static_cast<int64_t>(DType::BFloat16))
      throw Error(fmt::format("bfloat16 tensors need opset 13 (target opset {})", opset_),
                  "use --opset 13 or newer, or convert the model to float32 first");
  }
  const bool axes_input = inputs.size() >= 2 && inputs[1].valid();
  if ((op == "Squeeze" || op == "Unsqueeze" || op == "ReduceSum") && axes_input) {
    std::vector<Attr> a = without(attrs, "noop_with_empty_axes");
    std::vector<int64_t> axes = constant_ints("axes");
    const Attr *noop = find_attr(attrs, "noop_with_empty_axes");
    if (axes.empty() && noop && std::get<int64_t>(noop->value) != 0)
      return op_impl("Identity", {inputs[0]}, {}, num_outputs);
    if (!axes.empty())
      a.emplace_back("axes", axes);
    return op_impl(op, {inputs[0]}, a, num_outputs);
  }
  if (op == "Split" && axes_input) {
    std::vector<Attr> a = attrs;
    a.emplace_back("split", constant_ints("sizes"));
    return op_impl(op, {inputs[0]}, a, num_outputs);
  }
  if (op == "Resize") {
    std::vector<Val> in = inputs;
    in.resize(std::max<size_t>(in.size(), 3));
    bool filled = false;
    for (size_t i = 1; i < 3; ++i)
      if (!in[i].valid()) {
        in[i] = constant(TensorData::f32({}, {0}), i == 1 ? "roi" : "scales");
        filled = true;
      }
    if (!filled)
      return std::nullopt;
    return op_impl(op, in, attrs, num_outputs);
  }
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    const Attr *axis_attr = find_attr(attrs, "axis");
    int64_t axis = axis_attr ? std::get<int64_t>(axis_attr->value) : -1;
    if (axis == -1) // the default axis is 1 below opset 13: always write it
      return axis_attr ? std::nullopt
                       : std::optional(op_impl(op, inputs, {{"axis", int64_t{-1}}}, num_outputs));
    return softmax_below_13(op, inputs, axis, num_outputs);
  }
  return std::nullopt;
}

std::vector<Val> GraphBuilder::softmax_below_13(const std::string &op,
                                                const std::vector<Val> &inputs, int64_t axis,
                                                int num_outputs) {
  T2O_CHECK(has_info(inputs.at(0)) && info(inputs[0]).shape,
            "{} over axis {} at opset {} needs the input's rank (unknown for '{}'); use --opset "
            "13",
            op, axis, opset_, inputs[0].name);
  const int64_t r = rank(inputs[0]);
  if (axis < 0)
    axis += r;
  if (axis == r - 1) // the 2-D coercion around the last axis is the softmax over it
    return op_impl(op, inputs, {{"axis", axis}}, num_outputs);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d)
    perm.push_back(d);
  std::swap(perm[static_cast<size_t>(axis)], perm.back());
  Val t = op_impl("Transpose", {inputs[0]}, {{"perm", perm}}, 1)[0];
  if (has_info(inputs[0])) {
    TensorInfo ti = info(inputs[0]);
    std::swap((*ti.shape)[static_cast<size_t>(axis)], ti.shape->back());
    set_info(t, ti);
  }
  Val y = op_impl(op, {t}, {{"axis", r - 1}}, 1)[0];
  return op_impl("Transpose", {y}, {{"perm", perm}}, num_outputs);
}

std::optional<std::vector<Val>> GraphBuilder::adapt_form_below_12(const std::string &op,
                                                                  const std::vector<Val> &inputs,
                                                                  const std::vector<Attr> &attrs,
                                                                  int num_outputs) {
  if (op == "GreaterOrEqual" || op == "LessOrEqual") {
    // Both arrive in opset 12; Or(Greater, Equal) keeps NaN comparisons false.
    Val strict = op_impl(op == "GreaterOrEqual" ? "Greater" : "Less", inputs, {}, 1)[0];
    Val eq = op_impl("Equal", inputs, {}, 1)[0];
    return op_impl("Or", {strict, eq}, {}, num_outputs);
  }
  // The element type of the inputs (converters give both the same), from whichever has info.
  auto in_type = [&] {
    for (const Val &v : inputs)
      if (has_info(v))
        return dtype(v);
    return DType::Undefined;
  };
  if ((op == "Max" || op == "Min") && inputs.size() == 2 && in_type() != DType::Undefined &&
      !is_floating(in_type())) {
    // Max/Min take integers only from opset 12.
    Val first = op_impl(op == "Max" ? "Greater" : "Less", inputs, {}, 1)[0];
    std::vector<Val> out = op_impl("Where", {first, inputs[0], inputs[1]}, {}, num_outputs);
    TensorInfo known; // so that a Max/Min of this result finds its dtype too
    known.dtype = in_type();
    set_info(out[0], known);
    return out;
  }
  if (op == "Clip" && has_info(inputs.at(0)) && dtype(inputs[0]) != DType::Float) {
    // Clip-11 takes float32 only (ONNX Runtime's kernel too): Where(x < lo, lo, x) and so on.
    Val y = inputs[0];
    for (size_t i = 1; i < inputs.size() && i < 3; ++i) {
      if (!inputs[i].valid())
        continue;
      Val out_of_range = op_impl(i == 1 ? "Less" : "Greater", {y, inputs[i]}, {}, 1)[0];
      y = op_impl("Where", {out_of_range, inputs[i], y}, {}, 1)[0];
    }
    return op_impl("Identity", {y}, {}, num_outputs);
  }
  if (op == "Pow" && has_info(inputs.at(0))) {
    // Pow-7 takes float16/float/double for both inputs, of one type; integer bases and exponents
    // of another type arrive in 12. Compute in double (float for float32/16 bases) and cast back.
    const DType x = dtype(inputs[0]);
    const DType k = x == DType::Float || x == DType::Float16 ? x : DType::Double;
    const bool y_same = has_info(inputs.at(1)) && dtype(inputs[1]) == k;
    if (x == k && y_same)
      return std::nullopt;
    auto cast = [&](const Val &v, DType to) {
      return op_impl("Cast", {v}, {{"to", static_cast<int64_t>(to)}}, 1)[0];
    };
    Val exponent = y_same ? inputs[1] : cast(inputs[1], k);
    if (x == k)
      return op_impl("Pow", {inputs[0], exponent}, {}, num_outputs);
    Val y = op_impl("Pow", {cast(inputs[0], k), exponent}, {}, 1)[0];
    return op_impl("Cast", {y}, {{"to", static_cast<int64_t>(x)}}, num_outputs);
  }
  if (op == "NegativeLogLikelihoodLoss")
    return nll_loss_below_12(inputs, attrs, num_outputs);
  return std::nullopt;
}

// NegativeLogLikelihoodLoss arrives in opset 12; below it: loss[n, d...] = -input[n, target[n,
// d...], d...] * weight[target], 0 where target == ignore_index, reduced as `reduction` says
// (mean divides by the summed weights of the counted targets, as the operator does).
std::vector<Val> GraphBuilder::nll_loss_below_12(const std::vector<Val> &inputs,
                                                 const std::vector<Attr> &attrs, int num_outputs) {
  const Attr *reduction_attr = find_attr(attrs, "reduction");
  const std::string reduction =
      reduction_attr ? std::get<std::string>(reduction_attr->value) : std::string("mean");
  const Attr *ignore = find_attr(attrs, "ignore_index");
  const DType k = has_info(inputs.at(0)) ? dtype(inputs[0]) : DType::Float;
  const Val &target = inputs.at(1);
  Val safe = target, keep;
  if (ignore != nullptr) {
    Val ignored = op_impl(
        "Equal", {target, constant(TensorData::i64_scalar(std::get<int64_t>(ignore->value)))}, {},
        1)[0];
    keep = op_impl("Not", {ignored}, {}, 1)[0];
    safe = op_impl("Where", {keep, target, constant(TensorData::i64_scalar(0))}, {}, 1)[0];
  }
  Val index = op_impl("Unsqueeze", {safe}, {{"axes", std::vector<int64_t>{1}}}, 1)[0];
  Val picked = op_impl("GatherElements", {inputs[0], index}, {{"axis", int64_t{1}}}, 1)[0];
  picked = op_impl("Squeeze", {picked}, {{"axes", std::vector<int64_t>{1}}}, 1)[0];
  Val w; // the weight of each target, 0 where ignored; invalid when every target counts 1
  if (inputs.size() > 2 && inputs[2].valid())
    w = op_impl("Gather", {inputs[2], safe}, {{"axis", int64_t{0}}}, 1)[0];
  if (keep.valid()) {
    Val mask = op_impl("Cast", {keep}, {{"to", static_cast<int64_t>(k)}}, 1)[0];
    w = w.valid() ? op_impl("Mul", {w, mask}, {}, 1)[0] : mask;
  }
  Val loss = op_impl("Neg", {picked}, {}, 1)[0];
  if (w.valid())
    loss = op_impl("Mul", {loss, w}, {}, 1)[0];
  const std::vector<Attr> all = {{"keepdims", int64_t{0}}};
  if (reduction == "none")
    return op_impl("Identity", {loss}, {}, num_outputs);
  if (reduction == "sum")
    return op_impl("ReduceSum", {loss}, all, num_outputs);
  T2O_CHECK(reduction == "mean", "NegativeLogLikelihoodLoss: unknown reduction '{}'", reduction);
  if (!w.valid())
    return op_impl("ReduceMean", {loss}, all, num_outputs);
  Val total = op_impl("ReduceSum", {loss}, all, 1)[0];
  return op_impl("Div", {total, op_impl("ReduceSum", {w}, all, 1)[0]}, {}, num_outputs);
}

void GraphBuilder::check_subgraph_form(
    std::string_view op_type, const std::vector<std::pair<std::string, Subgraph>> &graphs) const {
  if (opset_ >= 13)
    return;
  // If and Loop carry tensors only below 13 (sequences arrive in If-13 and Loop-13).
  for (const auto &[name, g] : graphs)
    for (const auto &out : g->output())
      if (out.type().has_sequence_type())
        throw Error(fmt::format("{} carrying a list (an ONNX sequence, '{}' of its {}) needs "
                                "opset 13 (target opset {})",
                                op_type, out.name(), name, opset_),
                    "use --opset 13 or newer");
}

} // namespace torch2onnx
