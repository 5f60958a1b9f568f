#include "builder/onnx_schemas.h"

#include "builder/error.h"

#include <fmt/format.h>
#include <map>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <sstream>

namespace torch2onnx {

namespace {

// One row per operator version, from the ONNX operator documentation (onnx.ai/onnx/operators).
// inputs/outputs: names in order; "?" marks an optional one, "*" a variadic one. attributes:
// name:type with type i, f, s, ints, floats, strings; "!" after the type marks it required;
// "=a|b|c" after a string type lists the allowed values.
struct Row {
  const char *op;
  int since;
  const char *inputs, *outputs, *attributes;
};

#define REDUCE_18(name)                                                                            \
  { name, 18, "data axes?", "reduced", "keepdims:i noop_with_empty_axes:i" }

constexpr const char *kResize18Attrs =
    "antialias:i axes:ints "
    "coordinate_transformation_mode:s=half_pixel|pytorch_half_pixel|align_corners|asymmetric|"
    "tf_crop_and_resize cubic_coeff_a:f exclude_outside:i extrapolation_value:f "
    "keep_aspect_ratio_policy:s=stretch|not_larger|not_smaller mode:s=nearest|linear|cubic "
    "nearest_mode:s=round_prefer_floor|round_prefer_ceil|floor|ceil";
constexpr const char *kResize19Attrs =
    "antialias:i axes:ints "
    "coordinate_transformation_mode:s=half_pixel|half_pixel_symmetric|pytorch_half_pixel|"
    "align_corners|asymmetric|tf_crop_and_resize cubic_coeff_a:f exclude_outside:i "
    "extrapolation_value:f keep_aspect_ratio_policy:s=stretch|not_larger|not_smaller "
    "mode:s=nearest|linear|cubic nearest_mode:s=round_prefer_floor|round_prefer_ceil|floor|ceil";
constexpr const char *kPool19Attrs = "auto_pad:s=NOTSET|SAME_UPPER|SAME_LOWER|VALID ceil_mode:i "
                                     "count_include_pad:i dilations:ints kernel_shape:ints! "
                                     "pads:ints strides:ints";

const Row kRows[] = {
    // opset 18
    REDUCE_18("ReduceL1"),
    REDUCE_18("ReduceL2"),
    REDUCE_18("ReduceLogSum"),
    REDUCE_18("ReduceLogSumExp"),
    REDUCE_18("ReduceMax"),
    REDUCE_18("ReduceMean"),
    REDUCE_18("ReduceMin"),
    REDUCE_18("ReduceProd"),
    REDUCE_18("ReduceSumSquare"),
    {"BitwiseAnd", 18, "A B", "C", ""},
    {"BitwiseOr", 18, "A B", "C", ""},
    {"BitwiseXor", 18, "A B", "C", ""},
    {"BitwiseNot", 18, "X", "Y", ""},
    {"CenterCropPad", 18, "input_data shape", "output_data", "axes:ints"},
    {"Col2Im", 18, "input image_shape block_shape", "output",
     "dilations:ints pads:ints strides:ints"},
    {"GroupNormalization", 18, "X scale bias", "Y", "epsilon:f num_groups:i!"},
    {"LpPool", 18, "X", "Y",
     "auto_pad:s=NOTSET|SAME_UPPER|SAME_LOWER|VALID ceil_mode:i dilations:ints kernel_shape:ints! "
     "p:i pads:ints strides:ints"},
    {"Mish", 18, "X", "Y", ""},
    {"OptionalGetElement", 18, "input", "output", ""},
    {"OptionalHasElement", 18, "input?", "output", ""},
    {"Pad", 18, "data pads constant_value? axes?", "output", "mode:s=constant|reflect|edge"},
    {"Resize", 18, "X roi? scales? sizes?", "Y", kResize18Attrs},
    {"ScatterElements", 18, "data indices updates", "output",
     "axis:i reduction:s=none|add|mul|max|min"},
    {"ScatterND", 18, "data indices updates", "output", "reduction:s=none|add|mul|max|min"},
    {"Split", 18, "input split?", "outputs*", "axis:i num_outputs:i"},
    // opset 19
    {"AveragePool", 19, "X", "Y", kPool19Attrs},
    {"Cast", 19, "input", "output", "saturate:i to:i!"},
    {"CastLike", 19, "input target_type", "output", "saturate:i"},
    {"DeformConv", 19, "X W offset B? mask?", "Y",
     "dilations:ints group:i kernel_shape:ints offset_group:i pads:ints strides:ints"},
    {"Pad", 19, "data pads constant_value? axes?", "output", "mode:s=constant|reflect|edge|wrap"},
    {"Resize", 19, "X roi? scales? sizes?", "Y", kResize19Attrs},
    // opset 20
    {"AffineGrid", 20, "theta size", "grid", "align_corners:i"},
    {"DFT", 20, "input dft_length? axis?", "output", "inverse:i onesided:i"},
    {"Gelu", 20, "X", "Y", "approximate:s=none|tanh"},
    {"GridSample", 20, "X grid", "Y",
     "align_corners:i mode:s=linear|nearest|cubic padding_mode:s=zeros|border|reflection"},
    {"ReduceMax", 20, "data axes?", "reduced", "keepdims:i noop_with_empty_axes:i"},
    {"ReduceMin", 20, "data axes?", "reduced", "keepdims:i noop_with_empty_axes:i"},
    // opset 21
    {"Cast", 21, "input", "output", "saturate:i to:i!"},
    {"CastLike", 21, "input target_type", "output", "saturate:i"},
    {"GroupNormalization", 21, "X scale bias", "Y", "epsilon:f num_groups:i! stash_type:i"},
    {"Pad", 21, "data pads constant_value? axes?", "output", "mode:s=constant|reflect|edge|wrap"},
};
#undef REDUCE_18

std::vector<std::string> words(const char *text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

std::vector<OwnSchema::Param> parse_params(const char *text) {
  std::vector<OwnSchema::Param> out;
  for (std::string w : words(text)) {
    OwnSchema::Param p;
    if (w.back() == '?' || w.back() == '*') {
      p.optional = w.back() == '?';
      p.variadic = w.back() == '*';
      w.pop_back();
    }
    p.name = w;
    out.push_back(p);
  }
  return out;
}

int attribute_type(const std::string &t) {
  static const std::map<std::string, int> kTypes = {
      {"i", onnx::AttributeProto::INT},         {"f", onnx::AttributeProto::FLOAT},
      {"s", onnx::AttributeProto::STRING},      {"ints", onnx::AttributeProto::INTS},
      {"floats", onnx::AttributeProto::FLOATS}, {"strings", onnx::AttributeProto::STRINGS},
  };
  auto it = kTypes.find(t);
  T2O_CHECK(it != kTypes.end(), "internal error: schema table attribute type '{}'", t);
  return it->second;
}

std::vector<OwnSchema::Attribute> parse_attributes(const char *text) {
  std::vector<OwnSchema::Attribute> out;
  for (const std::string &w : words(text)) {
    OwnSchema::Attribute a;
    size_t colon = w.find(':');
    a.name = w.substr(0, colon);
    std::string type = w.substr(colon + 1);
    size_t eq = type.find('=');
    if (eq != std::string::npos) {
      std::string values = type.substr(eq + 1);
      type = type.substr(0, eq);
      for (size_t start = 0;;) {
        size_t bar = values.find('|', start);
        a.values.push_back(values.substr(start, bar - start));
        if (bar == std::string::npos)
          break;
        start = bar + 1;
      }
    }
    if (!type.empty() && type.back() == '!') {
      a.required = true;
      type.pop_back();
    }
    a.type = attribute_type(type);
    out.push_back(a);
  }
  return out;
}

// op -> since_version -> schema
const std::map<std::string, std::map<int, OwnSchema>> &table() {
  static const auto t = [] {
    std::map<std::string, std::map<int, OwnSchema>> m;
    for (const Row &r : kRows) {
      OwnSchema s{r.op, r.since, parse_params(r.inputs), parse_params(r.outputs),
                  parse_attributes(r.attributes)};
      T2O_CHECK(m[r.op].emplace(r.since, std::move(s)).second,
                "internal error: {} version {} is in the schema table twice", r.op, r.since);
    }
    return m;
  }();
  return t;
}

// How many of `params` a node may give: [min, max] (max -1: unbounded).
std::pair<int, int> arity(const std::vector<OwnSchema::Param> &params) {
  int min = 0, max = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].variadic) {
      min = static_cast<int>(i) + 1;
      return {min, -1};
    }
    ++max;
    if (!params[i].optional)
      min = static_cast<int>(i) + 1;
  }
  return {min, max};
}

std::string count_text(std::pair<int, int> r) {
  if (r.second < 0)
    return fmt::format("at least {}", r.first);
  return r.first == r.second ? std::to_string(r.first) : fmt::format("{} to {}", r.first, r.second);
}

} // namespace

const OwnSchema *own_schema(const std::string &op, int opset) {
  const auto &t = table();
  auto it = t.find(op);
  if (it == t.end())
    return nullptr;
  auto v = it->second.upper_bound(opset);
  if (v == it->second.begin())
    return nullptr;
  return &std::prev(v)->second;
}

bool is_onnx_op(const std::string &op) {
  return own_schema(op, 21) != nullptr ||
         onnx::OpSchemaRegistry::Schema(op, kLibOnnxMaxOpset, "") != nullptr;
}

void verify_own_schema(const OwnSchema &s, const onnx::NodeProto &node) {
  const std::string where = fmt::format("{}-{}", s.op, s.since_version);
  auto in = arity(s.inputs), out = arity(s.outputs);
  const int n_in = node.input_size(), n_out = node.output_size();
  T2O_CHECK(n_in >= in.first && (in.second < 0 || n_in <= in.second), "{} takes {} inputs, got {}",
            where, count_text(in), n_in);
  T2O_CHECK(n_out >= out.first && (out.second < 0 || n_out <= out.second),
            "{} has {} outputs, got {}", where, count_text(out), n_out);
  for (int i = 0; i < n_in; ++i) {
    const auto &p = s.inputs[std::min<size_t>(static_cast<size_t>(i), s.inputs.size() - 1)];
    T2O_CHECK(!node.input(i).empty() || p.optional, "{}: input {} ('{}') is required", where, i,
              p.name);
  }
  for (const auto &a : node.attribute()) {
    const OwnSchema::Attribute *spec = nullptr;
    for (const auto &cand : s.attributes)
      if (cand.name == a.name())
        spec = &cand;
    T2O_CHECK(spec != nullptr, "{} has no attribute '{}'", where, a.name());
    T2O_CHECK(a.type() == spec->type, "{}: attribute '{}' has type {}, expected {}", where,
              a.name(), onnx::AttributeProto::AttributeType_Name(a.type()),
              onnx::AttributeProto::AttributeType_Name(
                  static_cast<onnx::AttributeProto::AttributeType>(spec->type)));
    if (!spec->values.empty()) {
      bool known = false;
      for (const auto &v : spec->values)
        known = known || v == a.s();
      T2O_CHECK(known, "{}: attribute {}='{}' is not one of {}", where, a.name(), a.s(),
                fmt::join(spec->values, ", "));
    }
  }
  for (const auto &spec : s.attributes) {
    if (!spec.required)
      continue;
    bool found = false;
    for (const auto &a : node.attribute())
      found = found || a.name() == spec.name;
    T2O_CHECK(found, "{}: required attribute '{}' is missing", where, spec.name);
  }
}

int ir_version_for_opset(int opset) {
  if (opset >= 21)
    return 10;
  if (opset >= 19)
    return 9;
  return 8; // opsets up to 18 (libonnx 1.12 writes IR 8)
}

} // namespace torch2onnx
