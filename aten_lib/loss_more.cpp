// More loss functions: the elementwise regression and margin losses (l1, smooth_l1, huber,
// margin_ranking, hinge_embedding, soft_margin, cosine_embedding, triplet_margin), the multi-class
// margin losses, poisson_nll_loss and binary_cross_entropy. Each follows ATen's formula
// (aten/src/ATen/native/Loss.cpp) and reduces as loss.h's reduce_all.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/loss.h"

#include <algorithm>
#include <cmath>

namespace torch2onnx {

namespace {

// Tensor argument `name` in the loss dtype k.
Val in_k(const ConvertCtx &c, const char *name, DType k) {
  return cast_to(c.b, c.tensor(name), k);
}

// |self - target|
Val abs_diff(const ConvertCtx &c, DType k) {
  return op_t(c.b, k, "Abs", {op_t(c.b, k, "Sub", {in_k(c, "self", k), in_k(c, "target", k)})});
}

Val relu(GraphBuilder &b, DType k, const Val &x) {
  return op_t(b, k, "Relu", {x});
}

// Where(cond, x, 0)
Val where_or_zero(GraphBuilder &b, DType k, const Val &cond, const Val &x) {
  return op_t(b, k, "Where", {cond, x, scalar(b, k, 0)});
}

Val equals(GraphBuilder &b, DType k, const Val &x, double v) {
  return op_t(b, DType::Bool, "Equal", {x, scalar(b, k, v)});
}

// Classification losses on [N, C] inputs also take an unbatched [C] input with a 0-d (or [C])
// target: both get a batch dim of 1, which the unreduced loss drops again.
struct Rows {
  Val x, target;
  bool unbatched = false;
};

Rows rows(const ConvertCtx &c, DType k) {
  Rows r{in_k(c, "self", k), cast_to(c.b, c.tensor("target"), DType::Int64)};
  r.unbatched = rank_of(c, "self") == 1;
  if (r.unbatched) {
    r.x = unsqueeze(c.b, r.x, {0});
    r.target = unsqueeze(c.b, r.target, {0});
  }
  return r;
}

Val finish_rows(const ConvertCtx &c, DType k, const Rows &r, const Val &per_row) {
  int64_t reduction = reduction_arg(c);
  if (reduction == 0)
    return r.unbatched ? squeeze(c.b, per_row, {0}) : per_row;
  return reduce_all(c.b, k, per_row, reduction);
}

// 0, 1, ..., C - 1 for the classes of [N, C] x, as [1, C].
Val class_ids(GraphBuilder &b, const Val &x) {
  return unsqueeze(b, iota(b, dim_scalar(b, x, 1)), {0});
}

} // namespace

// l1_loss(Tensor self, Tensor target, int reduction=Mean)
void aten_l1_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  set_result(c, reduce_all(c.b, k, abs_diff(c, k), reduction_arg(c)));
}

// smooth_l1_loss(self, target, reduction, float beta=1.): d < beta ? 0.5 d^2 / beta : d - beta/2
// (plain l1 for beta 0). huber_loss(self, target, reduction, float delta=1.):
// d < delta ? 0.5 d^2 : delta (d - delta/2).
void aten_smooth_l1_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  bool huber = c.takes("delta");
  double beta = huber ? c.arg<double>("delta", 1.0) : c.arg<double>("beta", 1.0);
  Val d = abs_diff(c, k);
  Val loss = d;
  if (beta > 0) {
    Val quad = op_t(c.b, k, "Mul", {op_t(c.b, k, "Mul", {d, d}), scalar(c.b, k, 0.5)});
    Val lin = op_t(c.b, k, "Sub", {d, scalar(c.b, k, 0.5 * beta)});
    if (huber)
      lin = op_t(c.b, k, "Mul", {lin, scalar(c.b, k, beta)});
    else
      quad = op_t(c.b, k, "Div", {quad, scalar(c.b, k, beta)});
    Val small = op_t(c.b, DType::Bool, "Less", {d, scalar(c.b, k, beta)});
    loss = op_t(c.b, k, "Where", {small, quad, lin});
  }
  set_result(c, reduce_all(c.b, k, loss, reduction_arg(c)));
}

// margin_ranking_loss(input1, input2, target, float margin=0., int reduction=Mean):
// max(0, -target (input1 - input2) + margin)
void aten_margin_ranking_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  Val d = op_t(c.b, k, "Sub", {in_k(c, "input1", k), in_k(c, "input2", k)});
  Val l = op_t(c.b, k, "Sub",
               {scalar(c.b, k, c.arg<double>("margin", 0.0)),
                op_t(c.b, k, "Mul", {in_k(c, "target", k), d})});
  set_result(c, reduce_all(c.b, k, relu(c.b, k, l), reduction_arg(c)));
}

// hinge_embedding_loss(self, target, float margin=1., reduction): ATen adds
// max(0, margin - self) where target != 1 and self where target != -1.
void aten_hinge_embedding_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  Val x = in_k(c, "self", k), t = in_k(c, "target", k);
  Val m = relu(c.b, k, op_t(c.b, k, "Sub", {scalar(c.b, k, c.arg<double>("margin", 1.0)), x}));
  Val not_pos = op_t(c.b, DType::Bool, "Not", {equals(c.b, k, t, 1)});
  Val not_neg = op_t(c.b, DType::Bool, "Not", {equals(c.b, k, t, -1)});
  Val l =
      op_t(c.b, k, "Add", {where_or_zero(c.b, k, not_pos, m), where_or_zero(c.b, k, not_neg, x)});
  set_result(c, reduce_all(c.b, k, l, reduction_arg(c)));
}

// soft_margin_loss(self, target, reduction): log(1 + exp(-target self)), as Softplus.
void aten_soft_margin_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  Val z = op_t(c.b, k, "Neg", {op_t(c.b, k, "Mul", {in_k(c, "self", k), in_k(c, "target", k)})});
  set_result(c, reduce_all(c.b, k, op_t(c.b, k, "Softplus", {z}), reduction_arg(c)));
}

// cosine_embedding_loss(input1, input2, target, float margin=0., reduction): with
// cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12)) over the last dim,
// 1 - cos where target == 1 and max(0, cos - margin) where target == -1.
void aten_cosine_embedding_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  Val a = in_k(c, "input1", k), b = in_k(c, "input2", k), t = in_k(c, "target", k);
  Val axis = c.b.const_i64({-1});
  auto sum = [&](const Val &u, const Val &v) {
    return op_t(c.b, k, "ReduceSum", {op_t(c.b, k, "Mul", {u, v}), axis}, {{"keepdims", 0}});
  };
  Val eps = scalar(c.b, k, 1e-12);
  Val m1 = op_t(c.b, k, "Add", {sum(a, a), eps}), m2 = op_t(c.b, k, "Add", {sum(b, b), eps});
  Val cos = op_t(c.b, k, "Div", {sum(a, b), op_t(c.b, k, "Sqrt", {op_t(c.b, k, "Mul", {m1, m2})})});
  Val pos = op_t(c.b, k, "Sub", {scalar(c.b, k, 1), cos});
  Val neg = relu(c.b, k, op_t(c.b, k, "Sub", {cos, scalar(c.b, k, c.arg<double>("margin", 0.0))}));
  Val l = op_t(c.b, k, "Add",
               {where_or_zero(c.b, k, equals(c.b, k, t, 1), pos),
                where_or_zero(c.b, k, equals(c.b, k, t, -1), neg)});
  set_result(c, reduce_all(c.b, k, l, reduction_arg(c)));
}

// triplet_margin_loss(anchor, positive, negative, float margin=1., float p=2., float eps=1e-6,
// bool swap=False, reduction): max(0, margin + d(a, p) - d(a, n)) with pairwise_distance d;
// swap takes min(d(a, n), d(p, n)).
void aten_triplet_margin_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  auto dist = [&](const char *x1, const char *x2) {
    TensorInfo info = c.out_info(0);
    info.shape.reset();
    Val d = c.call("aten::pairwise_distance",
                   {{"x1", in_k(c, x1, k)},
                    {"x2", in_k(c, x2, k)},
                    {"p", Arg::of_float(c.arg<double>("p", 2.0))},
                    {"eps", Arg::of_float(c.arg<double>("eps", 1e-6))},
                    {"keepdim", Arg::of_bool(false)}},
                   {info})[0]
                .t();
    return cast_to(c.b, d, k);
  };
  Val dp = dist("anchor", "positive"), dn = dist("anchor", "negative");
  if (c.arg<bool>("swap", false))
    dn = op_t(c.b, k, "Min", {dn, dist("positive", "negative")});
  Val l = op_t(c.b, k, "Add",
               {scalar(c.b, k, c.arg<double>("margin", 1.0)), op_t(c.b, k, "Sub", {dp, dn})});
  set_result(c, reduce_all(c.b, k, relu(c.b, k, l), reduction_arg(c)));
}

// multi_margin_loss(self, target, Scalar p=1, Scalar margin=1, Tensor? weight=None, reduction):
// per row, sum over j != y of max(0, margin - x[y] + x[j])^p (times weight[y]), divided by C.
void aten_multi_margin_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  double p = c.arg<double>("p", 1.0);
  T2O_CHECK(p == 1 || p == 2, "{}: p must be 1 or 2, got {}", c.op(), p);
  Rows r = rows(c, k);
  Val y = unsqueeze(c.b, r.target, {1}); // [N, 1]
  Val xy = op_t(c.b, k, "GatherElements", {r.x, y}, {{"axis", int64_t{1}}});
  Val z =
      relu(c.b, k,
           op_t(c.b, k, "Add",
                {op_t(c.b, k, "Sub", {scalar(c.b, k, c.arg<double>("margin", 1.0)), xy}), r.x}));
  if (p == 2)
    z = op_t(c.b, k, "Mul", {z, z});
  if (c.has("weight")) {
    Val wy = op_t(c.b, k, "Gather", {in_k(c, "weight", k), y}, {{"axis", int64_t{0}}});
    z = op_t(c.b, k, "Mul", {z, wy});
  }
  Val is_y = op_t(c.b, DType::Bool, "Equal", {class_ids(c.b, r.x), y});
  z = op_t(c.b, k, "Where", {is_y, scalar(c.b, k, 0), z});
  Val per_row =
      op_t(c.b, k, "ReduceMean", {z}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", 0}});
  set_result(c, finish_rows(c, k, r, per_row));
}

// multilabel_margin_loss(self, target, reduction): the targets of a row are its leading
// non-negative entries (up to the first -1); per row,
// sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])), divided by C.
void aten_multilabel_margin_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  GraphBuilder &b = c.b;
  Rows r = rows(c, k);
  Val neg = cast_to(b, op_t(b, DType::Bool, "Less", {r.target, b.const_i64_scalar(0)}), k);
  Val seen_neg = op_t(b, k, "CumSum", {neg, b.const_i64_scalar(1)});
  Val valid = equals(b, k, seen_neg, 0); // [N, J]
  Val safe = op_t(b, DType::Int64, "Where", {valid, r.target, b.const_i64_scalar(0)});
  // is_target[n, i]: class i is one of row n's targets.
  Val hit = op_t(b, DType::Bool, "And",
                 {op_t(b, DType::Bool, "Equal",
                       {unsqueeze(b, safe, {2}), unsqueeze(b, class_ids(b, r.x), {0})}),
                  unsqueeze(b, valid, {2})}); // [N, J, C]
  Val is_target = op_t(b, k, "ReduceMax", {cast_to(b, hit, k)},
                       {{"axes", std::vector<int64_t>{1}}, {"keepdims", 0}});
  Val xj = op_t(b, k, "GatherElements", {r.x, safe}, {{"axis", int64_t{1}}}); // [N, J]
  Val h = relu(b, k,
               op_t(b, k, "Add",
                    {op_t(b, k, "Sub", {scalar(b, k, 1), unsqueeze(b, xj, {2})}),
                     unsqueeze(b, r.x, {1})})); // [N, J, C]
  Val w = op_t(b, k, "Mul",
               {unsqueeze(b, cast_to(b, valid, k), {2}),
                unsqueeze(b, op_t(b, k, "Sub", {scalar(b, k, 1), is_target}), {1})});
  Val s =
      op_t(b, k, "ReduceSum", {op_t(b, k, "Mul", {h, w}), b.const_i64({1, 2})}, {{"keepdims", 0}});
  Val per_row = op_t(b, k, "Div", {s, cast_to(b, dim_scalar(b, r.x, 1), k)});
  set_result(c, finish_rows(c, k, r, per_row));
}

// poisson_nll_loss(input, target, bool log_input, bool full, float eps, int reduction):
// exp(input) - target input, or input - target log(input + eps); `full` adds Stirling's term
// target log(target) - target + 0.5 log(2 pi target) where target > 1.
void aten_poisson_nll_loss(ConvertCtx &c) {
  DType k = loss_type(c);
  GraphBuilder &b = c.b;
  Val x = in_k(c, "input", k), t = in_k(c, "target", k);
  Val l;
  if (c.arg<bool>("log_input"))
    l = op_t(b, k, "Sub", {op_t(b, k, "Exp", {x}), op_t(b, k, "Mul", {t, x})});
  else
    l = op_t(b, k, "Sub",
             {x, op_t(b, k, "Mul",
                      {t, op_t(b, k, "Log",
                               {op_t(b, k, "Add", {x, scalar(b, k, c.arg<double>("eps"))})})})});
  if (c.arg<bool>("full")) {
    Val st = op_t(b, k, "Sub", {op_t(b, k, "Mul", {t, op_t(b, k, "Log", {t})}), t});
    Val half_log = op_t(
        b, k, "Mul",
        {scalar(b, k, 0.5), op_t(b, k, "Log", {op_t(b, k, "Mul", {t, scalar(b, k, 2 * M_PI)})})});
    st = op_t(b, k, "Add", {st, half_log});
    l = op_t(b, k, "Add",
             {l, where_or_zero(b, k, op_t(b, DType::Bool, "Greater", {t, scalar(b, k, 1)}), st)});
  }
  set_result(c, reduce_all(b, k, l, reduction_arg(c)));
}

// binary_cross_entropy(self, target, Tensor? weight=None, reduction):
// -(t log(x) + (1 - t) log(1 - x)) with both logs clamped at -100, as ATen.
void aten_binary_cross_entropy(ConvertCtx &c) {
  DType k = loss_type(c);
  GraphBuilder &b = c.b;
  Val x = in_k(c, "self", k), t = in_k(c, "target", k);
  auto clamped_log = [&](const Val &v) {
    return op_t(b, k, "Max", {op_t(b, k, "Log", {v}), scalar(b, k, -100)});
  };
  Val one = scalar(b, k, 1);
  Val l = op_t(
      b, k, "Add",
      {op_t(b, k, "Mul", {t, clamped_log(x)}),
       op_t(b, k, "Mul", {op_t(b, k, "Sub", {one, t}), clamped_log(op_t(b, k, "Sub", {one, x}))})});
  l = op_t(b, k, "Neg", {l});
  if (c.has("weight"))
    l = op_t(b, k, "Mul", {l, in_k(c, "weight", k)});
  set_result(c, reduce_all(b, k, l, reduction_arg(c)));
}

namespace {

// log(sum(exp(v))) of same-shaped tensors, -inf when all are -inf.
Val log_sum_exp(GraphBuilder &b, DType k, const std::vector<Val> &v) {
  Val ninf = scalar(b, k, -INFINITY);
  Val m = v.size() == 1 ? v[0] : op_t(b, k, "Max", v);
  m = op_t(b, k, "Where", {op_t(b, DType::Bool, "Equal", {m, ninf}), scalar(b, k, 0), m});
  Val sum;
  for (const Val &x : v) {
    Val e = op_t(b, k, "Exp", {op_t(b, k, "Sub", {x, m})});
    sum = sum.valid() ? op_t(b, k, "Add", {sum, e}) : e;
  }
  return op_t(b, k, "Add", {m, op_t(b, k, "Log", {sum})});
}

// Elements [from, to) of x along dim 1.
Val slice1(GraphBuilder &b, DType k, const Val &x, int64_t from, int64_t to) {
  return op_t(b, k, "Slice", {x, b.const_i64({from}), b.const_i64({to}), b.const_i64({1})});
}

// x [N, L] moved `by` places along dim 1, -inf shifted in.
Val shift_right(GraphBuilder &b, DType k, const Val &x, int64_t by, int64_t len) {
  Val padded = op_t(b, k, "Pad", {x, b.const_i64({0, by, 0, 0}), scalar(b, k, -INFINITY)});
  return slice1(b, k, padded, 0, len);
}

// The targets of ctc_loss as [N, S] int64 (a 1-D concatenation is split by the constant target
// lengths) and the lengths as [N] int64.
struct CtcTargets {
  Val targets, input_lengths, target_lengths;
  int64_t s = 0;
};

// An unbatched call (log_probs [T, C], targets [S], one length each) is a batch of one.
CtcTargets ctc_targets(const ConvertCtx &c, int64_t batch, bool unbatched) {
  GraphBuilder &b = c.b;
  CtcTargets r;
  bool constant = !c.arg("target_lengths").is_tensor();
  auto lengths = [&](const char *name) {
    Val v = constant ? b.const_i64(c.ints(name)) : cast_to(b, c.tensor(name), DType::Int64);
    return unbatched ? reshape(b, v, {1}) : v;
  };
  r.input_lengths = lengths("input_lengths");
  r.target_lengths = lengths("target_lengths");
  Val t = cast_to(b, c.tensor("targets"), DType::Int64);
  if (rank_of(c, "targets") == 2 || unbatched) {
    r.targets = unbatched ? unsqueeze(b, t, {0}) : t;
    r.s = static_dim(c, "targets", unbatched ? 0 : 1);
    return r;
  }
  T2O_CHECK(constant, "{} with 1-D (concatenated) targets needs constant target lengths", c.op());
  std::vector<int64_t> len = c.ints("target_lengths");
  T2O_CHECK(static_cast<int64_t>(len.size()) == batch, "{}: {} target lengths for a batch of {}",
            c.op(), len.size(), batch);
  r.s = std::max<int64_t>(1, *std::max_element(len.begin(), len.end()));
  std::vector<int64_t> idx; // padded with the first target of the row (never read)
  int64_t offset = 0;
  for (int64_t n : len) {
    for (int64_t j = 0; j < r.s; ++j)
      idx.push_back(n == 0 ? 0 : offset + std::min(j, n - 1));
    offset += n;
  }
  r.targets = op_t(b, DType::Int64, "Gather", {t, b.constant(TensorData::i64(idx, {batch, r.s}))},
                   {{"axis", int64_t{0}}});
  return r;
}

} // namespace

namespace {

// The extended labels [N, 2S + 1] of CTC (blank, t0, blank, t1, ..., blank), and in `skip`
// where the recursion may come from two places back: a label other than blank and than the
// label two places before it.
Val ctc_labels(GraphBuilder &b, const CtcTargets &tg, int64_t batch, int64_t blank, Val *skip) {
  constexpr DType i64 = DType::Int64;
  Val blank_v = b.const_i64_scalar(blank);
  Val tt = unsqueeze(b, tg.targets, {2}); // [N, S, 1]
  Val blanks = op_t(b, i64, "Add", {op_t(b, i64, "Mul", {tt, b.const_i64_scalar(0)}), blank_v});
  Val ext =
      reshape(b, op_t(b, i64, "Concat", {blanks, tt}, {{"axis", int64_t{2}}}), {batch, 2 * tg.s});
  ext = op_t(b, i64, "Pad", {ext, b.const_i64({0, 0, 0, 1}), blank_v});
  Val before2 = op_t(b, i64, "Pad", {ext, b.const_i64({0, 2, 0, 0}), blank_v});
  before2 = slice1(b, i64, before2, 0, 2 * tg.s + 1);
  auto differs = [&](const Val &x, const Val &y) {
    return op_t(b, DType::Bool, "Not", {op_t(b, DType::Bool, "Equal", {x, y})});
  };
  *skip = op_t(b, DType::Bool, "And", {differs(ext, blank_v), differs(ext, before2)});
  return ext;
}

// log p of each target from the last alphas [N, L]: the paths ending in its last label or the
// blank after it.
Val ctc_end(GraphBuilder &b, DType k, const Val &alpha, const Val &target_lengths) {
  Val tl = unsqueeze(b, target_lengths, {1});
  Val last = op_t(b, DType::Int64, "Mul", {tl, b.const_i64_scalar(2)});
  Val prev =
      op_t(b, DType::Int64, "Max",
           {op_t(b, DType::Int64, "Sub", {last, b.const_i64_scalar(1)}), b.const_i64_scalar(0)});
  auto at = [&](const Val &i) {
    return op_t(b, k, "GatherElements", {alpha, i}, {{"axis", int64_t{1}}});
  };
  Val has_label = op_t(b, DType::Bool, "Greater", {tl, b.const_i64_scalar(0)});
  Val a_prev = op_t(b, k, "Where", {has_label, at(prev), scalar(b, k, -INFINITY)});
  return squeeze(b, log_sum_exp(b, k, {at(last), a_prev}), {1});
}

} // namespace

// ctc_loss(log_probs [T, N, C] (or [T, C]), targets [N, S] or concatenated (or [S]),
// input_lengths, target_lengths,
// int blank=0, int reduction=Mean, bool zero_infinity=False) (.IntList and .Tensor): the CTC
// forward recursion (alpha, in log space) over the extended labels, unrolled over the static T;
// a sample's alphas stop at its input length. Per sample -log p, divided by its target length
// for the mean.
void aten_ctc_loss(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = loss_type(c);
  int64_t rank = rank_of(c, "log_probs");
  T2O_CHECK(rank == 2 || rank == 3, "{}: expected log_probs [T, N, C] or [T, C], got {}", c.op(),
            c.info("log_probs").str());
  bool unbatched = rank == 2;
  int64_t steps = static_dim(c, "log_probs", 0);
  int64_t batch = unbatched ? 1 : static_dim(c, "log_probs", 1);
  CtcTargets tg = ctc_targets(c, batch, unbatched);
  int64_t len = 2 * tg.s + 1;
  Val skip;
  Val ext = ctc_labels(b, tg, batch, c.arg<int64_t>("blank", 0), &skip);
  Val lp = cast_to(b, c.tensor("log_probs"), k);
  lp = unbatched ? unsqueeze(b, lp, {0}) : transpose(b, lp, {1, 0, 2}); // [N, T, C]
  Val index =
      op_t(b, DType::Int64, "Expand", {unsqueeze(b, ext, {1}), b.const_i64({batch, steps, len})});
  Val emit = op_t(b, k, "GatherElements", {lp, index}, {{"axis", int64_t{2}}}); // [N, T, L]
  auto at_step = [&](int64_t t) { return squeeze(b, slice1(b, k, emit, t, t + 1), {1}); };
  Val ninf = scalar(b, k, -INFINITY);
  Val pos = b.constant(TensorData::i64(int_range(0, len), {1, len}));
  Val alpha = op_t(b, k, "Where",
                   {op_t(b, DType::Bool, "Less", {pos, b.const_i64_scalar(2)}), at_step(0), ninf});
  Val in_len = unsqueeze(b, tg.input_lengths, {1}); // [N, 1]
  for (int64_t t = 1; t < steps; ++t) {
    Val a2 = op_t(b, k, "Where", {skip, shift_right(b, k, alpha, 2, len), ninf});
    Val next = op_t(b, k, "Add",
                    {log_sum_exp(b, k, {alpha, shift_right(b, k, alpha, 1, len), a2}), at_step(t)});
    alpha = op_t(b, k, "Where",
                 {op_t(b, DType::Bool, "Less", {b.const_i64_scalar(t), in_len}), next, alpha});
  }
  Val loss = op_t(b, k, "Neg", {ctc_end(b, k, alpha, tg.target_lengths)}); // [N]
  if (c.arg<bool>("zero_infinity", false))
    loss = op_t(
        b, k, "Where",
        {op_t(b, DType::Bool, "Equal", {loss, scalar(b, k, INFINITY)}), scalar(b, k, 0), loss});
  int64_t reduction = reduction_arg(c);
  if (reduction == 1) {
    Val denom = op_t(b, DType::Int64, "Max", {tg.target_lengths, b.const_i64_scalar(1)});
    loss = op_t(b, k, "Div", {loss, cast_to(b, denom, k)});
  }
  if (unbatched && reduction == 0)
    loss = squeeze(b, loss, {0});
  set_result(c, reduce_all(b, k, loss, reduction));
}

void register_loss_more_ops(Registry &r) {
  r.add("aten::l1_loss", 11, aten_l1_loss, {"Abs", "Sub", "ReduceMean", "ReduceSum"});
  for (const char *op : {"aten::smooth_l1_loss", "aten::huber_loss"})
    r.add(op, 11, aten_smooth_l1_loss,
          {"Abs", "Sub", "Mul", "Div", "Less", "Where", "ReduceMean", "ReduceSum"});
  r.add("aten::margin_ranking_loss", 11, aten_margin_ranking_loss,
        {"Sub", "Mul", "Relu", "ReduceMean", "ReduceSum"});
  r.add("aten::hinge_embedding_loss", 11, aten_hinge_embedding_loss,
        {"Sub", "Relu", "Equal", "Not", "Where", "Add", "ReduceMean", "ReduceSum"});
  r.add("aten::soft_margin_loss", 11, aten_soft_margin_loss,
        {"Mul", "Neg", "Softplus", "ReduceMean", "ReduceSum"});
  r.add("aten::cosine_embedding_loss", 11, aten_cosine_embedding_loss,
        {"Mul", "ReduceSum", "Add", "Sqrt", "Div", "Sub", "Relu", "Equal", "Where", "ReduceMean"});
  r.add("aten::triplet_margin_loss", 11, aten_triplet_margin_loss,
        {"Sub", "Add", "Abs", "Mul", "ReduceSum", "Sqrt", "Pow", "ReduceMax", "ReduceMin", "Cast",
         "Equal", "Not", "Min", "Relu", "ReduceMean"});
  r.add("aten::multi_margin_loss", 11, aten_multi_margin_loss,
        {"Cast", "Unsqueeze", "Squeeze", "GatherElements", "Gather", "Sub", "Add", "Relu", "Mul",
         "Shape", "Range", "Equal", "Where", "ReduceMean", "ReduceSum"});
  r.add("aten::multilabel_margin_loss", 11, aten_multilabel_margin_loss,
        {"Cast", "Unsqueeze", "Squeeze", "Less",           "CumSum", "Equal",     "Where",
         "And",  "ReduceMax", "Gather",  "GatherElements", "Sub",    "Add",       "Relu",
         "Mul",  "ReduceSum", "Shape",   "Range",          "Div",    "ReduceMean"});
  r.add("aten::poisson_nll_loss", 11, aten_poisson_nll_loss,
        {"Exp", "Mul", "Sub", "Add", "Log", "Greater", "Where", "ReduceMean", "ReduceSum"});
  r.add(
      "aten::ctc_loss", 11, aten_ctc_loss,
      {"Cast",  "Transpose",  "Unsqueeze", "Squeeze", "Mul", "Add",    "Concat",         "Reshape",
       "Pad",   "Slice",      "Equal",     "Not",     "And", "Expand", "GatherElements", "Gather",
       "Where", "Less",       "Max",       "Sub",     "Exp", "Log",    "Greater",        "Neg",
       "Div",   "ReduceMean", "ReduceSum"});
  r.add("aten::binary_cross_entropy", 11, aten_binary_cross_entropy,
        {"Log", "Max", "Mul", "Sub", "Add", "Neg", "ReduceMean", "ReduceSum"});
}

} // namespace torch2onnx
