// --dtype f16 / bf16: the float32 -> float16 (bfloat16) step on the finished graph (float16.h).
// Three passes: the element type of every value (from declarations, initializers and the ONNX
// schemas' type constraints), which reads of float32 initializers want the low type, then the
// rewrite of each graph with Casts made where a value is read in the other type.
#include "builder/float16.h"

#include "builder/error.h"
#include "builder/onnx_schemas.h"
#include "builder/optimize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <unordered_map>
#include <unordered_set>

namespace torch2onnx {

namespace {

using onnx::TensorProto;
constexpr int kFloat = TensorProto::FLOAT;

// A float32 constant is kept float32 when float16 cannot hold it to a unit roundoff of its
// largest magnitude: a finite value beyond the largest finite float16 (65504), or a nonzero tensor
// whose largest magnitude is below the smallest normal float16 (2^-14 = 6.1e-5), e.g. the eps of
// max(norm, 1e-12), which would become 0. (A subnormal element next to a normal one is off by at
// most 2^-25 = 2^-11 of 2^-14, i.e. within a unit roundoff of the tensor's largest magnitude, so
// ordinary weights convert.) The same for bfloat16 with its limits.
struct Range {
  float max, min_normal;
};
Range range_of(int to) {
  return to == TensorProto::FLOAT16 ? Range{65504.0F, 6.103515625e-05F}
                                    : Range{3.3895313892515355e38F, 1.1754943508222875e-38F};
}

// What a float32 value computed in float32 from such a constant carries to its readers unchanged
// (moves, selects, clips, takes the sign of): those stay float32 too, up to the first op that
// computes with it (that one in float32, its output in the low type). max(norm, 1e-12) -> Expand
// -> Div: Clip, Expand and Div compute in float32, the Div's output is float16.
const std::vector<std::string> kCarryOps = {
    "Abs",
    "Cast",
    "Clip",
    "Concat",
    "Expand",
    "Flatten",
    "Gather",
    "GatherElements",
    "GatherND",
    "Identity",
    "Max",
    "Min",
    "Neg",
    "Pad",
    "Relu",
    "Reshape",
    "ScatterElements",
    "ScatterND",
    "Slice",
    "Split",
    "Squeeze",
    "Tile",
    "Transpose",
    "Unsqueeze",
    "Where",
};

// Ops that keep computing in float32 when all their float inputs are integers made float (a Cast
// from an int or bool type, a float Range) or constants: index and position arithmetic written
// in float (T5's relative-position buckets: log(rel / 8) ... .long(); rotary angles:
// arange(T).float() * inv_freq, then cos/sin; masks: (1 - mask.float()) * -1e4). In float16,
// positions past 2048 are not whole numbers and a bucket boundary moves. The chain ends at the
// first op outside this list or with another float input; that op reads the value in float16.
const std::unordered_set<std::string> kIndexMathOps = {
    "Abs",   "Add",        "Cast",    "Ceil",   "Clip",    "Concat",    "Cos",       "Div",
    "Equal", "Erf",        "Exp",     "Expand", "Flatten", "Floor",     "Gather",    "Greater",
    "Less",  "Log",        "Max",     "Min",    "Mod",     "Mul",       "Neg",       "Pow",
    "Range", "Reciprocal", "Reshape", "Round",  "Sigmoid", "Sign",      "Sin",       "Slice",
    "Sqrt",  "Squeeze",    "Sub",     "Tanh",   "Tile",    "Transpose", "Unsqueeze", "Where"};

// Why each stays float32 (docs/float16.md): sums over many elements (float16 keeps 11 bits and
// overflows at 65504: a sum of squares of 700 values of 10 already does), exponentials and
// powers (exp overflows above 11.1), normalizations (a variance is a mean of squares).
// BatchNormalization (one not folded into a Conv): subtracting a running mean of large magnitude
// cancels, and float16's rounding of the mean is then a large part of the difference.
const std::vector<std::string> kFloat32Ops = {
    "BatchNormalization",
    "CumSum",
    "Exp",
    "GroupNormalization",
    "InstanceNormalization",
    "LayerNormalization",
    "Log",
    "LogSoftmax",
    "LpNormalization",
    "MeanVarianceNormalization",
    "Pow",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMean",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
    "Softmax",
    "Softplus",
};

// The element type a type string of a schema names, e.g. "tensor(float)" -> FLOAT; 0 otherwise.
int fixed_elem(const std::string &ts) {
  static const std::unordered_map<std::string, int> types = {
      {"tensor(float)", TensorProto::FLOAT},       {"tensor(float16)", TensorProto::FLOAT16},
      {"tensor(bfloat16)", TensorProto::BFLOAT16}, {"tensor(double)", TensorProto::DOUBLE},
      {"tensor(int64)", TensorProto::INT64},       {"tensor(int32)", TensorProto::INT32},
      {"tensor(int16)", TensorProto::INT16},       {"tensor(int8)", TensorProto::INT8},
      {"tensor(uint8)", TensorProto::UINT8},       {"tensor(bool)", TensorProto::BOOL},
      {"tensor(string)", TensorProto::STRING},
  };
  auto it = types.find(ts);
  return it == types.end() ? 0 : it->second;
}

const std::string *formal_type(const std::vector<onnx::OpSchema::FormalParameter> &params, int i) {
  if (params.empty())
    return nullptr;
  if (static_cast<size_t>(i) < params.size())
    return &params[static_cast<size_t>(i)].GetTypeStr();
  if (params.back().GetOption() == onnx::OpSchema::Variadic)
    return &params.back().GetTypeStr();
  return nullptr;
}

// The types a type parameter ("T") allows, or nullptr when `ts` is a fixed type.
const std::vector<std::string> *allowed_types(const onnx::OpSchema &s, const std::string &ts) {
  for (const auto &p : s.typeConstraintParams())
    if (p.type_param_str == ts)
      return &p.allowed_type_strs;
  return nullptr;
}

bool allows(const std::vector<std::string> &types, const std::string &t) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

const onnx::AttributeProto *find_attr(const onnx::NodeProto &n, const char *name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

onnx::AttributeProto *find_attr(onnx::NodeProto &n, const char *name) {
  for (auto &a : *n.mutable_attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

bool is_default_domain(const std::string &d) {
  return d.empty() || d == "ai.onnx";
}

int elem_of(const onnx::TypeProto &t) {
  if (t.has_tensor_type())
    return t.tensor_type().elem_type();
  if (t.has_sequence_type())
    return elem_of(t.sequence_type().elem_type());
  if (t.has_optional_type())
    return elem_of(t.optional_type().elem_type());
  return 0;
}

// FLOAT -> `to` in a declared type (tensors, sequences and optionals of them).
void convert_type(onnx::TypeProto &t, int to) {
  if (t.has_tensor_type() && t.tensor_type().elem_type() == kFloat)
    t.mutable_tensor_type()->set_elem_type(to);
  if (t.has_sequence_type())
    convert_type(*t.mutable_sequence_type()->mutable_elem_type(), to);
  if (t.has_optional_type())
    convert_type(*t.mutable_optional_type()->mutable_elem_type(), to);
}

// The ops whose `dtype` attribute sets a float output type, and what it is when absent (0: the
// type of input 0).
int dtype_default(const std::string &op) {
  static const std::unordered_map<std::string, int> ops = {
      {"RandomNormal", kFloat},  {"RandomUniform", kFloat},
      {"SequenceEmpty", kFloat}, {"RandomNormalLike", 0},
      {"RandomUniformLike", 0},  {"EyeLike", 0},
      {"Bernoulli", 0},          {"Multinomial", TensorProto::INT32},
  };
  auto it = ops.find(op);
  return it == ops.end() ? -1 : it->second;
}

std::vector<onnx::GraphProto *> subgraphs(onnx::NodeProto &n) {
  std::vector<onnx::GraphProto *> out;
  for (auto &a : *n.mutable_attribute()) {
    if (a.has_g())
      out.push_back(a.mutable_g());
    for (auto &g : *a.mutable_graphs())
      out.push_back(&g);
  }
  return out;
}

std::vector<const onnx::GraphProto *> subgraphs(const onnx::NodeProto &n) {
  std::vector<const onnx::GraphProto *> out;
  for (const auto &a : n.attribute()) {
    if (a.has_g())
      out.push_back(&a.g());
    for (const auto &g : a.graphs())
      out.push_back(&g);
  }
  return out;
}

// Where a node reads its inputs in float32, and which outputs it computes in float32.
struct Plan {
  bool keep = false; // computes in float32 (float32_ops() or its schema)
  std::vector<bool> in32, out32;
};

class Conversion {
public:
  Conversion(onnx::ModelProto &m, const FloatConversion &c);
  FloatConversionReport run();

private:
  // Pass 1: element types.
  void infer_graph(const onnx::GraphProto &g);
  void infer_node(const onnx::NodeProto &n);
  int output_type(const onnx::NodeProto &n, int k, const onnx::OpSchema *s) const;
  int type_of(const std::string &v) const;
  const onnx::OpSchema *schema_of(const onnx::NodeProto &n) const;
  // Pass 2: the constants kept float32 and what carries them, what each node reads and computes
  // in float32; the initializers read in `to_`.
  void collect_wide(const onnx::GraphProto &g);
  void collect_index_math(const onnx::GraphProto &g);
  bool out_of_range(const TensorProto &t, bool initializer, bool *only_tiny = nullptr) const;
  Plan plan(const onnx::NodeProto &n) const;
  void schema_plan(const onnx::NodeProto &n, const onnx::OpSchema &s, Plan &p) const;
  void collect_low_reads(const onnx::GraphProto &g);
  // Pass 3: the rewrite.
  void convert_graph(onnx::GraphProto &g, bool main);
  void convert_initializers(onnx::GraphProto &g);
  void convert_node(onnx::NodeProto &n, google::protobuf::RepeatedPtrField<onnx::NodeProto> &out,
                    std::unordered_map<std::string, std::string> &memo);
  void convert_attributes(onnx::NodeProto &n);
  void convert_tensor(TensorProto &t, bool initializer);
  void finish_main_io(onnx::GraphProto &g,
                      google::protobuf::RepeatedPtrField<onnx::NodeProto> &out);
  void finish_subgraph_io(onnx::GraphProto &g,
                          google::protobuf::RepeatedPtrField<onnx::NodeProto> &out,
                          std::unordered_map<std::string, std::string> &memo);
  void rename_main_outputs(const onnx::GraphProto &g);
  // `v` in element type `want`: `v` itself, or a Cast of it (made before the consumer `near`).
  std::string read_as(const std::string &v, int want, const std::string &near,
                      google::protobuf::RepeatedPtrField<onnx::NodeProto> &out,
                      std::unordered_map<std::string, std::string> &memo);
  void add_cast(const std::string &from, const std::string &to_name, int to, std::string node_name,
                google::protobuf::RepeatedPtrField<onnx::NodeProto> &out);
  std::string fresh_value(const std::string &hint);
  std::string fresh_node(const std::string &near);
  std::string renamed(const std::string &v) const;
  bool is_float(const std::string &v) const { return type_of(v) == kFloat && !seq_.count(v); }

  onnx::ModelProto &model_;
  FloatConversion c_;
  int opset_ = 0;
  std::string to_type_;                       // "tensor(float16)"
  std::unordered_map<std::string, int> type_; // element type of each value before the step
  std::unordered_set<std::string> seq_;       // values that are sequences
  std::unordered_set<std::string> float_inits_, low_reads_;
  std::unordered_set<std::string> wide_;     // float32 by a constant kept float32 (kCarryOps)
  std::unordered_set<std::string> index_;    // float32 index arithmetic (kIndexMathOps)
  std::unordered_set<std::string> consts_;   // float initializers and Constant outputs
  std::unordered_map<std::string, int> now_; // element type of each float value after it
  std::unordered_map<std::string, std::string> rename_;
  std::unordered_map<std::string, std::string> cast_from_; // a Cast's output -> its input
  std::unordered_set<std::string> names_, node_names_;
  size_t fresh_ = 0;
  FloatConversionReport report_;
};

Conversion::Conversion(onnx::ModelProto &m, const FloatConversion &c) : model_(m), c_(c) {
  T2O_CHECK(c.to == TensorProto::FLOAT16 || c.to == TensorProto::BFLOAT16,
            "internal error: float conversion to element type {}", c.to);
  to_type_ = c.to == TensorProto::FLOAT16 ? "tensor(float16)" : "tensor(bfloat16)";
  for (const auto &imp : m.opset_import())
    if (is_default_domain(imp.domain()))
      opset_ = static_cast<int>(imp.version());
  collect_names(m.graph(), names_, node_names_);
}

FloatConversionReport Conversion::run() {
  infer_graph(model_.graph());
  collect_wide(model_.graph());
  collect_index_math(model_.graph());
  collect_low_reads(model_.graph());
  rename_main_outputs(model_.graph());
  convert_graph(*model_.mutable_graph(), true);
  return report_;
}

int Conversion::type_of(const std::string &v) const {
  auto it = type_.find(v);
  return it == type_.end() ? 0 : it->second;
}

const onnx::OpSchema *Conversion::schema_of(const onnx::NodeProto &n) const {
  if (!is_default_domain(n.domain()))
    return nullptr;
  return onnx::OpSchemaRegistry::Schema(n.op_type(), std::min(opset_, kLibOnnxMaxOpset), "");
}

void Conversion::infer_graph(const onnx::GraphProto &g) {
  for (const auto &v : g.input()) {
    type_[v.name()] = elem_of(v.type());
    if (v.type().has_sequence_type())
      seq_.insert(v.name());
  }
  for (const auto &t : g.initializer()) {
    type_[t.name()] = t.data_type();
    if (t.data_type() == kFloat)
      float_inits_.insert(t.name());
  }
  for (const auto &vi : g.value_info()) {
    if (elem_of(vi.type()) != 0)
      type_.emplace(vi.name(), elem_of(vi.type()));
    if (vi.type().has_sequence_type())
      seq_.insert(vi.name());
  }
  for (const auto &n : g.node())
    infer_node(n);
  for (const auto &o : g.output())
    if (type_of(o.name()) == 0)
      type_[o.name()] = elem_of(o.type());
}

void Conversion::infer_node(const onnx::NodeProto &n) {
  for (const auto *sub : subgraphs(n))
    infer_graph(*sub);
  const onnx::OpSchema *s = schema_of(n);
  for (int k = 0; k < n.output_size(); ++k) {
    if (n.output(k).empty())
      continue;
    int t = output_type(n, k, s);
    if (t != 0 || !type_.count(n.output(k)))
      type_[n.output(k)] = t;
    const std::string *ts = s ? formal_type(s->outputs(), k) : nullptr;
    const auto *types = ts ? allowed_types(*s, *ts) : nullptr;
    if ((ts && ts->rfind("seq(", 0) == 0) ||
        (types && !types->empty() && types->front().rfind("seq(", 0) == 0) ||
        n.op_type() == "SequenceEmpty")
      seq_.insert(n.output(k));
  }
}

int Conversion::output_type(const onnx::NodeProto &n, int k, const onnx::OpSchema *s) const {
  const std::string &op = n.op_type();
  const auto *to = find_attr(n, "to");
  if (op == "Cast" && to)
    return static_cast<int>(to->i());
  if (op == "Constant" || op == "ConstantOfShape") {
    if (const auto *v = find_attr(n, "value"))
      return v->t().data_type();
    if (find_attr(n, "value_int") || find_attr(n, "value_ints"))
      return TensorProto::INT64;
    return op == "ConstantOfShape" || find_attr(n, "value_float") || find_attr(n, "value_floats")
               ? kFloat
               : 0;
  }
  auto subs = subgraphs(n);
  if ((op == "If" || op == "Loop" || op == "Scan") && !subs.empty()) {
    int at = op == "Loop" ? k + 1 : k;
    return at < subs[0]->output_size() ? elem_of(subs[0]->output(at).type()) : 0;
  }
  int dflt = dtype_default(op);
  if (dflt >= 0) {
    if (const auto *d = find_attr(n, "dtype"))
      return static_cast<int>(d->i());
    return dflt > 0 ? dflt : (n.input_size() > 0 ? type_of(n.input(0)) : 0);
  }
  if (!s)
    return n.input_size() > 0 ? type_of(n.input(0)) : 0;
  const std::string *ts = formal_type(s->outputs(), k);
  if (!ts)
    return 0;
  const auto *types = allowed_types(*s, *ts);
  if (!types)
    return fixed_elem(*ts);
  if (types->size() == 1) // e.g. Shape's T1: tensor(int64)
    return fixed_elem(types->front());
  for (int i = 0; i < n.input_size(); ++i) {
    const std::string *in = formal_type(s->inputs(), i);
    if (in && *in == *ts && !n.input(i).empty() && type_of(n.input(i)) != 0)
      return type_of(n.input(i));
  }
  // Sequence ops bind the element type through another parameter (S and T).
  const bool sequence_op = op.find("Sequence") != std::string::npos;
  return sequence_op && n.input_size() > 0 ? type_of(n.input(0)) : 0;
}

bool Conversion::out_of_range(const TensorProto &t, bool initializer, bool *only_tiny) const {
  const std::string_view raw = initializer ? initializer_raw_bytes(t) : t.raw_data();
  const size_t n = raw.empty() ? static_cast<size_t>(t.float_data_size()) : raw.size() / 4;
  const Range r = range_of(c_.to);
  float largest = 0;
  for (size_t i = 0; i < n; ++i) {
    float f = 0;
    if (raw.empty())
      f = t.float_data(static_cast<int>(i));
    else
      std::memcpy(&f, raw.data() + 4 * i, 4);
    if (!std::isfinite(f))
      continue;
    if (std::fabs(f) > r.max) {
      if (only_tiny)
        *only_tiny = false;
      return true;
    }
    largest = std::max(largest, std::fabs(f));
  }
  bool tiny = largest > 0 && largest < r.min_normal;
  if (only_tiny)
    *only_tiny = tiny;
  return tiny;
}

namespace {
// True when every read of `value` in `g` (its subgraphs included) is the bias of a Conv,
// ConvTranspose or Gemm (input 2). Such a bias only shifts each output by its own value: one
// whose largest magnitude is below float16's smallest normal changes by at most half the
// subnormal spacing (2^-25, 3e-8) when converted, far below the float16 tolerance, so it converts
// instead of keeping the whole convolution in float32 (BatchNorm folded into a Conv often leaves
// biases of 1e-8).
bool only_bias_reads(const onnx::GraphProto &g, const std::string &value) {
  bool read = false;
  std::function<bool(const onnx::GraphProto &)> walk = [&](const onnx::GraphProto &sub) {
    for (const auto &n : sub.node()) {
      bool bias_op =
          n.op_type() == "Conv" || n.op_type() == "ConvTranspose" || n.op_type() == "Gemm";
      for (int k = 0; k < n.input_size(); ++k)
        if (n.input(k) == value) {
          if (!(bias_op && k == 2 && is_default_domain(n.domain())))
            return false;
          read = true;
        }
      for (const auto *body : subgraphs(n))
        if (!walk(*body))
          return false;
    }
    return true;
  };
  return walk(g) && read;
}
} // namespace

void Conversion::collect_wide(const onnx::GraphProto &g) {
  for (const auto &t : g.initializer()) {
    bool only_tiny = false;
    if (t.data_type() == kFloat && out_of_range(t, true, &only_tiny) &&
        !(only_tiny && only_bias_reads(g, t.name()))) {
      wide_.insert(t.name());
      ++report_.float32_constants;
    }
  }
  static const std::unordered_set<std::string> carry(kCarryOps.begin(), kCarryOps.end());
  for (const auto &n : g.node()) {
    for (const auto *sub : subgraphs(n))
      collect_wide(*sub);
    if (!is_default_domain(n.domain()) || n.output_size() == 0)
      continue;
    const std::string &op = n.op_type();
    bool wide = false;
    if (op == "Constant" || op == "ConstantOfShape") {
      TensorProto t;
      if (const auto *v = find_attr(n, "value"); v && v->t().data_type() == kFloat)
        wide = out_of_range(v->t(), false);
      else if (const auto *f = find_attr(n, "value_float"))
        t.add_float_data(f->f());
      else if (const auto *fs = find_attr(n, "value_floats"))
        t.mutable_float_data()->CopyFrom(fs->floats());
      wide = wide || out_of_range(t, false);
      report_.float32_constants += wide ? 1 : 0;
    } else if (carry.count(op)) {
      wide = std::any_of(n.input().begin(), n.input().end(),
                         [&](const std::string &in) { return wide_.count(in) > 0; });
    }
    if (wide)
      for (const auto &o : n.output())
        if (is_float(o))
          wide_.insert(o);
  }
}

void Conversion::collect_index_math(const onnx::GraphProto &g) {
  for (const auto &t : g.initializer())
    consts_.insert(t.name());
  for (const auto &n : g.node()) {
    for (const auto *sub : subgraphs(n))
      collect_index_math(*sub);
    if (!is_default_domain(n.domain()) || n.output_size() == 0)
      continue;
    const std::string &op = n.op_type();
    if (op == "Constant") {
      consts_.insert(n.output(0));
      continue;
    }
    if (!kIndexMathOps.count(op) || !subgraphs(n).empty())
      continue;
    // A source: an integer or bool value made float, or a float Range.
    bool source =
        (op == "Cast" && n.input_size() == 1 && is_float(n.output(0)) && !is_float(n.input(0)) &&
         type_of(n.input(0)) != 0 && type_of(n.input(0)) != TensorProto::DOUBLE &&
         type_of(n.input(0)) != TensorProto::FLOAT16 &&
         type_of(n.input(0)) != TensorProto::BFLOAT16) ||
        (op == "Range" && is_float(n.output(0)));
    bool any = false, all = true;
    for (const auto &in : n.input()) {
      if (in.empty() || !is_float(in))
        continue;
      bool idx = index_.count(in) > 0;
      any = any || idx;
      all = all && (idx || consts_.count(in) > 0);
    }
    if (source || (any && all))
      for (const auto &o : n.output())
        if (is_float(o))
          index_.insert(o);
  }
}

namespace {
// ScatterElements / ScatterND with a reduction (scatter_add, index_add, scatter_reduce): sums and
// products of many updates, like the reductions of kFloat32Ops (and ONNX Runtime's CPU kernels
// of opset 16+ take no float16 when reduction is 'add').
bool reducing_scatter(const onnx::NodeProto &n) {
  if (n.op_type() != "ScatterElements" && n.op_type() != "ScatterND")
    return false;
  const onnx::AttributeProto *r = find_attr(n, "reduction");
  return r && r->s() != "none";
}
} // namespace

Plan Conversion::plan(const onnx::NodeProto &n) const {
  Plan p;
  p.in32.assign(static_cast<size_t>(n.input_size()), false);
  p.out32.assign(static_cast<size_t>(n.output_size()), false);
  const bool float_in = std::any_of(n.input().begin(), n.input().end(),
                                    [&](const std::string &in) { return is_float(in); });
  const auto &ops = float32_ops();
  // (Not If/Loop/Scan: their bodies are converted, so they read and write the low type.)
  auto is_wide = [&](const std::string &v) { return wide_.count(v) > 0; };
  auto is_index = [&](const std::string &v) { return index_.count(v) > 0; };
  const bool wide =
      subgraphs(n).empty() &&
      (std::any_of(n.input().begin(), n.input().end(), is_wide) ||
       std::any_of(n.output().begin(), n.output().end(), is_wide) ||
       std::any_of(n.output().begin(), n.output().end(), is_index) ||
       (n.op_type() == "Cast" && std::any_of(n.input().begin(), n.input().end(), is_index)));
  p.keep = wide || (float_in && (!is_default_domain(n.domain()) ||
                                 std::binary_search(ops.begin(), ops.end(), n.op_type()) ||
                                 reducing_scatter(n)));
  if (const onnx::OpSchema *s = schema_of(n); s && !p.keep)
    schema_plan(n, *s, p);
  for (int i = 0; i < n.input_size(); ++i)
    if (p.keep && is_float(n.input(i)))
      p.in32[static_cast<size_t>(i)] = true;
  for (int k = 0; k < n.output_size(); ++k)
    if (p.keep && is_float(n.output(k)))
      p.out32[static_cast<size_t>(k)] = true;
  return p;
}

void Conversion::schema_plan(const onnx::NodeProto &n, const onnx::OpSchema &s, Plan &p) const {
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty() || !is_float(n.input(i)))
      continue;
    const std::string *ts = formal_type(s.inputs(), i);
    if (!ts)
      continue;
    if (const auto *types = allowed_types(s, *ts)) {
      // A type parameter bound to float32 that cannot be `to` (Range's T): all of it float32.
      if (!allows(*types, to_type_) && allows(*types, "tensor(float)"))
        p.keep = true;
    } else if (*ts == "tensor(float)") {
      p.in32[static_cast<size_t>(i)] = true; // e.g. Resize's scales
    }
  }
  for (int k = 0; k < n.output_size(); ++k) {
    const std::string *ts = formal_type(s.outputs(), k);
    if (ts && !allowed_types(s, *ts) && *ts == "tensor(float)")
      p.out32[static_cast<size_t>(k)] = true;
  }
}

void Conversion::collect_low_reads(const onnx::GraphProto &g) {
  for (const auto &n : g.node()) {
    Plan p = plan(n);
    for (int i = 0; i < n.input_size(); ++i)
      if (float_inits_.count(n.input(i)) && !p.in32[static_cast<size_t>(i)])
        low_reads_.insert(n.input(i));
    for (const auto *sub : subgraphs(n)) {
      collect_low_reads(*sub);
      for (const auto &o : sub->output()) // subgraph outputs are converted
        if (float_inits_.count(o.name()) && !wide_.count(o.name()))
          low_reads_.insert(o.name());
    }
  }
}

std::string Conversion::renamed(const std::string &v) const {
  auto it = rename_.find(v);
  return it == rename_.end() ? v : it->second;
}

std::string Conversion::fresh_value(const std::string &hint) {
  std::string name = hint;
  while (!names_.insert(name).second)
    name = fmt::format("{}_{}", hint, ++fresh_);
  return name;
}

// A Cast is named in the scope of the node it serves ("layer1.0/aten::relu/Cast_7"), so the op
// table, `show` and --functions count it there.
std::string Conversion::fresh_node(const std::string &near) {
  size_t slash = near.rfind('/');
  std::string base = (slash == std::string::npos ? std::string("dtype") : near.substr(0, slash));
  std::string name;
  do
    name = fmt::format("{}/Cast_{}", base, ++fresh_);
  while (!node_names_.insert(name).second);
  return name;
}

void Conversion::add_cast(const std::string &from, const std::string &to_name, int to,
                          std::string node_name,
                          google::protobuf::RepeatedPtrField<onnx::NodeProto> &out) {
  auto *n = out.Add();
  n->set_op_type("Cast");
  n->set_name(std::move(node_name));
  n->add_input(from);
  n->add_output(to_name);
  auto *a = n->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(to);
  now_[to_name] = to;
  cast_from_[to_name] = from;
  ++report_.casts;
}

std::string Conversion::read_as(const std::string &v, int want, const std::string &near,
                                google::protobuf::RepeatedPtrField<onnx::NodeProto> &out,
                                std::unordered_map<std::string, std::string> &memo) {
  auto it = now_.find(v);
  if (it == now_.end() || it->second == want)
    return v;
  // A value this step cast from one already in `want` (no float16 -> float32 -> float16 pair).
  auto src = cast_from_.find(v);
  if (src != cast_from_.end() && now_.at(src->second) == want)
    return src->second;
  std::string key = fmt::format("{}\n{}", v, want);
  auto m = memo.find(key);
  if (m != memo.end())
    return m->second;
  const char *suffix = want == kFloat ? "_f32" : c_.to == TensorProto::FLOAT16 ? "_f16" : "_bf16";
  std::string name = fresh_value(v + suffix);
  add_cast(v, name, want, fresh_node(near), out);
  memo.emplace(key, name);
  return name;
}

void Conversion::convert_tensor(TensorProto &t, bool initializer) {
  const std::string_view raw = initializer ? initializer_raw_bytes(t) : t.raw_data();
  const bool borrowed = initializer && t.raw_data().empty() && !raw.empty();
  const size_t n = raw.empty() ? static_cast<size_t>(t.float_data_size()) : raw.size() / 4;
  std::string bytes(n * 2, '\0');
  for (size_t i = 0; i < n; ++i) {
    float f = 0;
    if (raw.empty())
      f = t.float_data(static_cast<int>(i));
    else
      std::memcpy(&f, raw.data() + 4 * i, 4);
    uint16_t h = c_.to == TensorProto::FLOAT16 ? float16_bits(f) : bfloat16_bits(f);
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  if (borrowed)
    release_borrowed(t); // the converted copy replaces LibTorch's memory
  t.clear_float_data();
  t.set_data_type(c_.to);
  t.set_raw_data(std::move(bytes));
  ++report_.initializers;
}

void Conversion::convert_initializers(onnx::GraphProto &g) {
  for (auto &t : *g.mutable_initializer()) {
    if (t.data_type() != kFloat)
      continue;
    const bool low = low_reads_.count(t.name()) > 0;
    if (low)
      convert_tensor(t, true);
    now_[t.name()] = low ? c_.to : kFloat;
  }
}

// Constant values, Cast targets and dtype attributes that make float32 make `to` instead.
void Conversion::convert_attributes(onnx::NodeProto &n) {
  const std::string &op = n.op_type();
  if (op == "Cast") {
    if (auto *to = find_attr(n, "to"); to && to->i() == kFloat)
      to->set_i(c_.to);
  } else if (op == "Constant" || op == "ConstantOfShape") {
    if (n.output_size() == 0 || type_of(n.output(0)) != kFloat)
      return;
    auto *v = find_attr(n, "value");
    auto *f = find_attr(n, "value_float");
    auto *fs = find_attr(n, "value_floats");
    if (!v && (f || fs || op == "ConstantOfShape")) {
      v = f ? f : fs ? fs : n.add_attribute();
      TensorProto t;
      t.set_data_type(kFloat);
      if (f)
        t.add_float_data(f->f());
      else if (fs)
        t.mutable_float_data()->CopyFrom(fs->floats());
      else
        t.add_float_data(0.0F); // ConstantOfShape's default value: float32 zero
      if (!f)
        t.add_dims(t.float_data_size());
      v->Clear();
      v->set_name("value");
      v->set_type(onnx::AttributeProto::TENSOR);
      *v->mutable_t() = std::move(t);
    }
    if (v && v->t().data_type() == kFloat)
      convert_tensor(*v->mutable_t(), false);
  } else if (dtype_default(op) >= 0 && n.output_size() > 0 && type_of(n.output(0)) == kFloat) {
    auto *d = find_attr(n, "dtype");
    if (!d) {
      d = n.add_attribute();
      d->set_name("dtype");
      d->set_type(onnx::AttributeProto::INT);
    }
    d->set_i(c_.to);
  }
}

void Conversion::convert_node(onnx::NodeProto &n,
                              google::protobuf::RepeatedPtrField<onnx::NodeProto> &out,
                              std::unordered_map<std::string, std::string> &memo) {
  const Plan p = plan(n); // on the names the types were inferred for
  for (int i = 0; i < n.input_size(); ++i) {
    const std::string orig = n.input(i);
    if (orig.empty())
      continue;
    std::string cur = renamed(orig);
    if (is_float(orig))
      cur = read_as(cur, p.in32[static_cast<size_t>(i)] ? kFloat : c_.to, n.name(), out, memo);
    n.set_input(i, cur);
  }
  for (auto *sub : subgraphs(n))
    convert_graph(*sub, false);
  if (!p.keep)
    convert_attributes(n);
  report_.kept += p.keep ? 1 : 0;
  for (int k = 0; k < n.output_size(); ++k) {
    const std::string orig = n.output(k);
    if (is_float(orig))
      now_[renamed(orig)] = p.out32[static_cast<size_t>(k)] ? kFloat : c_.to;
    n.set_output(k, renamed(orig));
  }
  out.Add()->Swap(&n);
}

// The main graph's float32 outputs that a converted node makes are renamed here, and a Cast back
// to float32 writes the output's own name at the end (finish_main_io).
void Conversion::rename_main_outputs(const onnx::GraphProto &g) {
  std::unordered_map<std::string, std::pair<const onnx::NodeProto *, int>> producer;
  for (const auto &n : g.node())
    for (int k = 0; k < n.output_size(); ++k)
      producer[n.output(k)] = {&n, k};
  for (const auto &o : g.output()) {
    auto it = producer.find(o.name());
    if (!is_float(o.name()) || it == producer.end())
      continue;
    if (!plan(*it->second.first).out32[static_cast<size_t>(it->second.second)])
      rename_[o.name()] = fresh_value(o.name() + "_low");
  }
}

void Conversion::finish_main_io(onnx::GraphProto &g,
                                google::protobuf::RepeatedPtrField<onnx::NodeProto> &out) {
  for (const auto &o : g.output()) {
    auto it = rename_.find(o.name());
    if (it != rename_.end())
      add_cast(it->second, o.name(), kFloat, fresh_node("output/" + o.name()), out);
  }
}

void Conversion::finish_subgraph_io(onnx::GraphProto &g,
                                    google::protobuf::RepeatedPtrField<onnx::NodeProto> &out,
                                    std::unordered_map<std::string, std::string> &memo) {
  for (auto &o : *g.mutable_output()) {
    std::string cur = renamed(o.name());
    if (is_float(o.name()))
      cur = read_as(cur, c_.to, g.name() + "/output", out, memo);
    o.set_name(cur);
    convert_type(*o.mutable_type(), c_.to);
  }
}

void Conversion::convert_graph(onnx::GraphProto &g, bool main) {
  std::unordered_map<std::string, std::string> memo; // casts made in this graph
  convert_initializers(g);
  for (auto &in : *g.mutable_input()) {
    const bool low = !main || c_.low_inputs.count(in.name()) > 0;
    if (low)
      convert_type(*in.mutable_type(), c_.to);
    if (is_float(in.name()))
      now_[in.name()] = low ? c_.to : kFloat;
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
  for (auto &n : *g.mutable_node())
    convert_node(n, out, memo);
  if (main)
    finish_main_io(g, out);
  else
    finish_subgraph_io(g, out, memo);
  g.mutable_node()->Swap(&out);
  for (auto &vi : *g.mutable_value_info()) {
    auto it = now_.find(vi.name());
    if (it != now_.end() && vi.type().has_tensor_type())
      vi.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
    else if (!vi.type().has_tensor_type())
      convert_type(*vi.mutable_type(), c_.to);
  }
}

} // namespace

const std::vector<std::string> &float32_ops() {
  static const std::vector<std::string> sorted = [] {
    auto v = kFloat32Ops;
    std::sort(v.begin(), v.end());
    return v;
  }();
  return sorted;
}

} // namespace torch2onnx

namespace torch2onnx {

FloatConversionReport convert_float_type(onnx::ModelProto &model, const FloatConversion &c) {
  return Conversion(model, c).run();
}

} // namespace torch2onnx
