// fold-constants: a node whose inputs are all initializers becomes an initializer, so the file
// carries no work a runtime would redo at every load (or every run, without constant folding):
// Cast (the f64 scalar a converter wrote, then cast to f32), Reshape / Squeeze / Unsqueeze /
// Flatten of a constant (only its dims change), ConstantOfShape and Range. Computed exactly as the
// ONNX operators define them (a Cast to an integer truncates; a value out of the target's range,
// or NaN, is left to the runtime: the node stays). A weight another node reads too is not copied:
// the output may hold at most kMaxNewElements elements unless its inputs have no other reader.
#include "builder/rewrites/rules.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace torch2onnx::rewrites {

namespace {

using onnx::TensorProto;

constexpr int64_t kMaxNewElements = 4096;
// A constant with no other reader is replaced, not copied; still, the rule reads its bytes twice
// (condition and apply), so it leaves larger ones (weights) to the runtime's load.
constexpr int64_t kMaxSoleElements = int64_t{1} << 20;

// The element types the rule computes with (element_size gives their bytes).
bool foldable_type(int t) {
  return t == TensorProto::FLOAT || t == TensorProto::INT32 || t == TensorProto::DOUBLE ||
         t == TensorProto::INT64 || t == TensorProto::BOOL || t == TensorProto::UINT8 ||
         t == TensorProto::INT8;
}

// A constant's dims, element type and little-endian bytes.
struct Const {
  std::vector<int64_t> dims;
  int type = 0;
  std::string bytes;
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : dims)
      n *= d;
    return n;
  }
};

std::optional<Const> read_const(const OptGraph &g, const std::string &name) {
  const auto *t = g.initializer(name);
  if (!t || t->data_location() == TensorProto::EXTERNAL || !foldable_type(t->data_type()))
    return std::nullopt;
  Const c;
  c.dims.assign(t->dims().begin(), t->dims().end());
  c.type = t->data_type();
  std::string_view raw = g.raw_bytes(*t);
  if (!raw.empty() || t->has_raw_data()) {
    c.bytes.assign(raw.data(), raw.size());
  } else {
    auto put = [&](const auto &field, auto as) {
      for (auto v : field) {
        decltype(as) x = static_cast<decltype(as)>(v);
        c.bytes.append(reinterpret_cast<const char *>(&x), sizeof x);
      }
    };
    switch (c.type) {
    case TensorProto::FLOAT:
      put(t->float_data(), float{});
      break;
    case TensorProto::DOUBLE:
      put(t->double_data(), double{});
      break;
    case TensorProto::INT64:
      put(t->int64_data(), int64_t{});
      break;
    case TensorProto::INT32:
      put(t->int32_data(), int32_t{});
      break;
    case TensorProto::BOOL:
    case TensorProto::UINT8:
      put(t->int32_data(), uint8_t{});
      break;
    case TensorProto::INT8:
      put(t->int32_data(), int8_t{});
      break;
    default:
      return std::nullopt;
    }
  }
  if (c.bytes.size() != static_cast<size_t>(c.numel()) * element_size(c.type))
    return std::nullopt;
  return c;
}

// Element i of c as a double (exact for every type here but int64 beyond 2^53, which is only
// read through as_i64).
double as_f64(const Const &c, int64_t i) {
  const char *p = c.bytes.data() + i * static_cast<int64_t>(element_size(c.type));
  switch (c.type) {
  case TensorProto::FLOAT: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case TensorProto::DOUBLE: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case TensorProto::INT64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  case TensorProto::INT32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case TensorProto::INT8:
    return static_cast<int8_t>(*p);
  default: // BOOL, UINT8
    return static_cast<uint8_t>(*p);
  }
}

int64_t as_i64(const Const &c, int64_t i) {
  if (c.type == TensorProto::INT64) {
    int64_t v;
    std::memcpy(&v, c.bytes.data() + i * 8, 8);
    return v;
  }
  return static_cast<int64_t>(as_f64(c, i));
}

bool is_int(int t) {
  return t == TensorProto::INT64 || t == TensorProto::INT32 || t == TensorProto::INT8 ||
         t == TensorProto::UINT8;
}

// Appends v converted to type `to` as ONNX Cast does; false when the result is undefined there.
bool put_cast(std::string &out, const Const &c, int64_t i, int to) {
  if (c.type == TensorProto::INT64 && to == TensorProto::INT64) {
    out.append(c.bytes.data() + i * 8, 8);
    return true;
  }
  double v = as_f64(c, i);
  if (c.type == TensorProto::INT64 && std::fabs(v) > 9007199254740992.0)
    return false; // beyond 2^53: a double would round it
  auto put = [&](auto x) { out.append(reinterpret_cast<const char *>(&x), sizeof x); };
  if (is_int(to)) {
    if (std::isnan(v))
      return false;
    v = std::trunc(v);
  }
  switch (to) {
  case TensorProto::FLOAT:
    put(static_cast<float>(v));
    return true;
  case TensorProto::DOUBLE:
    put(v);
    return true;
  case TensorProto::BOOL:
    put(static_cast<uint8_t>(v != 0));
    return true;
  case TensorProto::INT64:
    if (!(v >= -9.2e18 && v <= 9.2e18))
      return false;
    put(static_cast<int64_t>(v));
    return true;
  case TensorProto::INT32:
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      return false;
    put(static_cast<int32_t>(v));
    return true;
  case TensorProto::INT8:
    if (v < -128 || v > 127)
      return false;
    put(static_cast<int8_t>(v));
    return true;
  case TensorProto::UINT8:
    if (v < 0 || v > 255)
      return false;
    put(static_cast<uint8_t>(v));
    return true;
  default:
    return false;
  }
}

int64_t int_attr(const onnx::NodeProto &n, const char *name, int64_t fallback) {
  const auto *a = attr(n, name);
  return a ? a->i() : fallback;
}

// The axes of Squeeze/Unsqueeze: the second input from opset 13, the attribute before.
std::optional<std::vector<int64_t>> axes_of(const OptGraph &g, const onnx::NodeProto &n) {
  std::vector<int64_t> axes;
  if (n.input_size() > 1 && !n.input(1).empty()) {
    if (!g.int_values(n.input(1), axes))
      return std::nullopt;
  } else if (const auto *a = attr(n, "axes")) {
    axes.assign(a->ints().begin(), a->ints().end());
  }
  return axes;
}

// The dims a Reshape with a constant target gives a constant of dims `in` (numel elements).
std::optional<std::vector<int64_t>> reshape_dims(const OptGraph &g, const onnx::NodeProto &n,
                                                 const std::vector<int64_t> &in, int64_t numel) {
  auto rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> shape;
  if (n.input_size() < 2 || !g.int_values(n.input(1), shape))
    return std::nullopt;
  bool allowzero = int_attr(n, "allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allowzero) {
      if (static_cast<int64_t>(k) >= rank)
        return std::nullopt;
      shape[k] = in[k];
    }
    if (shape[k] == -1) {
      if (infer >= 0)
        return std::nullopt;
      infer = static_cast<int64_t>(k);
    } else if (shape[k] < 0) {
      return std::nullopt;
    } else {
      known *= shape[k];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return std::nullopt;
    shape[static_cast<size_t>(infer)] = numel / known;
  } else if (known != numel) {
    return std::nullopt;
  }
  return shape;
}

// The dims a data-movement op gives its constant input, or nullopt.
std::optional<std::vector<int64_t>> moved_dims(const OptGraph &g, const onnx::NodeProto &n,
                                               const std::vector<int64_t> &in) {
  const std::string &op = n.op_type();
  auto rank = static_cast<int64_t>(in.size());
  int64_t numel = 1;
  for (auto d : in)
    numel *= d;
  if (op == "Reshape")
    return reshape_dims(g, n, in, numel);
  if (op == "Flatten") {
    int64_t axis = int_attr(n, "axis", 1);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank)
      return std::nullopt;
    int64_t a = 1;
    for (int64_t k = 0; k < axis; ++k)
      a *= in[static_cast<size_t>(k)];
    return std::vector<int64_t>{a, a == 0 ? 0 : numel / a};
  }
  auto axes = axes_of(g, n);
  if (!axes)
    return std::nullopt;
  if (op == "Unsqueeze") {
    int64_t out_rank = rank + static_cast<int64_t>(axes->size());
    std::vector<bool> at(static_cast<size_t>(out_rank), false);
    for (auto a : *axes) {
      if (a < 0)
        a += out_rank;
      if (a < 0 || a >= out_rank || at[static_cast<size_t>(a)])
        return std::nullopt;
      at[static_cast<size_t>(a)] = true;
    }
    std::vector<int64_t> out;
    size_t next = 0;
    for (int64_t k = 0; k < out_rank; ++k)
      out.push_back(at[static_cast<size_t>(k)] ? 1 : in[next++]);
    return out;
  }
  // Squeeze: the listed dims of size 1, or every dim of size 1.
  std::vector<bool> drop(in.size(), axes->empty());
  for (auto a : *axes) {
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank || in[static_cast<size_t>(a)] != 1)
      return std::nullopt;
    drop[static_cast<size_t>(a)] = true;
  }
  std::vector<int64_t> out;
  for (size_t k = 0; k < in.size(); ++k)
    if (!(drop[k] && in[k] == 1))
      out.push_back(in[k]);
  return out;
}

// The folded value of node i, or nullopt.
std::optional<Const> evaluate(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  const std::string &op = n.op_type();
  auto x = read_const(g, n.input(0));
  if (!x)
    return std::nullopt;
  if (op == "Cast") {
    Const out{x->dims, static_cast<int>(int_attr(n, "to", 0)), {}};
    if (!foldable_type(out.type))
      return std::nullopt;
    for (int64_t k = 0; k < x->numel(); ++k)
      if (!put_cast(out.bytes, *x, k, out.type))
        return std::nullopt;
    return out;
  }
  if (op == "ConstantOfShape") {
    Const out;
    for (int64_t k = 0; k < x->numel(); ++k)
      out.dims.push_back(as_i64(*x, k));
    Const fill{{}, TensorProto::FLOAT, std::string(4, '\0')};
    if (const auto *v = attr(n, "value"); v && v->has_t()) {
      onnx::TensorProto t = v->t();
      fill.type = t.data_type();
      fill.bytes = t.raw_data();
      if (fill.bytes.empty() && t.data_type() == TensorProto::FLOAT && t.float_data_size() == 1) {
        float f = t.float_data(0);
        fill.bytes.assign(reinterpret_cast<const char *>(&f), 4);
      }
      if (fill.bytes.empty() && t.data_type() == TensorProto::INT64 && t.int64_data_size() == 1) {
        int64_t l = t.int64_data(0);
        fill.bytes.assign(reinterpret_cast<const char *>(&l), 8);
      }
      if (!foldable_type(fill.type) || fill.bytes.size() != element_size(fill.type))
        return std::nullopt;
    }
    out.type = fill.type;
    int64_t numel = out.numel();
    if (numel < 0 || numel > kMaxNewElements)
      return std::nullopt;
    for (int64_t k = 0; k < numel; ++k)
      out.bytes += fill.bytes;
    return out;
  }
  if (op == "Range") {
    auto limit = read_const(g, n.input(1)), delta = read_const(g, n.input(2));
    if (!limit || !delta || !is_int(x->type) || x->type != limit->type || x->type != delta->type ||
        x->type != TensorProto::INT64)
      return std::nullopt; // int64 ranges only: float ranges round step by step
    int64_t start = as_i64(*x, 0), stop = as_i64(*limit, 0), step = as_i64(*delta, 0);
    if (step == 0)
      return std::nullopt;
    int64_t count = std::max<int64_t>(0, (stop - start + step + (step > 0 ? -1 : 1)) / step);
    if (count > kMaxNewElements)
      return std::nullopt;
    Const out{{count}, TensorProto::INT64, {}};
    for (int64_t k = 0; k < count; ++k) {
      int64_t v = start + k * step;
      out.bytes.append(reinterpret_cast<const char *>(&v), 8);
    }
    return out;
  }
  auto dims = moved_dims(g, n, x->dims);
  if (!dims)
    return std::nullopt;
  x->dims = *dims;
  return x;
}

bool foldable_op(const std::string &op) {
  return op == "Cast" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" ||
         op == "Flatten" || op == "ConstantOfShape" || op == "Range";
}

// Whether every input is an initializer of at most kMaxSoleElements elements; `sole_reader`:
// the node is the only reader of each.
bool all_inputs_constant(const OptGraph &g, const onnx::NodeProto &n, bool &sole_reader) {
  sole_reader = true;
  for (const auto &in : n.input()) {
    if (in.empty())
      continue;
    const auto *t = g.initializer(in);
    if (!t)
      return false;
    int64_t numel = 1;
    for (auto d : t->dims())
      numel *= d;
    if (numel > kMaxSoleElements)
      return false;
    sole_reader = sole_reader && g.uses(in) == 1;
  }
  return n.input_size() > 0;
}

bool matches(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  bool sole = false;
  if (!foldable_op(n.op_type()) || !n.domain().empty() || n.output_size() != 1 ||
      g.is_graph_output(n.output(0)) || !all_inputs_constant(g, n, sole))
    return false;
  auto v = evaluate(g, i);
  // An empty result stays a node: an initializer without data is not a valid TensorProto.
  return v && v->numel() > 0 && (sole || v->numel() <= kMaxNewElements);
}

// Identical folded values share one initializer: a second node of the same value reads the
// first's (so cse, which runs after this rule, still sees the readers of both as the same).
std::string content_key(const Const &v) {
  std::string key = std::to_string(v.type);
  for (auto d : v.dims)
    key += "," + std::to_string(d);
  return key + "|" + v.bytes;
}

void apply(OptGraph &g, int i) {
  auto v = evaluate(g, i);
  const auto &n = g.node(i);
  std::string out = n.output(0);
  std::vector<std::string> ins(n.input().begin(), n.input().end());
  std::string key = v->numel() <= kMaxNewElements ? content_key(*v) : std::string();
  auto &seen = g.scratch("fold-constants");
  auto it = key.empty() ? seen.end() : seen.find(key);
  std::string name;
  // The first one's initializer, unless nothing reads it any more: then its data is released
  // (folded on into another constant) and this one gets its own.
  if (it != seen.end() && g.uses(g.resolve(g.node(it->second).output(0))) > 0) {
    name = g.resolve(g.node(it->second).output(0));
  } else {
    if (it != seen.end())
      seen.erase(it);
    name = g.add_initializer_raw(out + "_folded", v->dims, v->type, std::move(v->bytes));
    if (!key.empty())
      seen.emplace(std::move(key), i);
  }
  g.remove(i);
  g.alias(out, name);
  for (const auto &in : ins)
    if (!in.empty())
      g.release_if_unused(in);
}

} // namespace

RewriteRule fold_constants_rule() {
  RewriteRule r;
  r.name = "fold-constants";
  r.target_op = "*";
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
