// `torch2onnx show`: reads any ONNX file with the ONNX protobuf (never its weights) and lists it.
// describe() builds the JSON document (docs/show.md); text() prints the same for people.
#include "apps/show.h"

#include "apps/cli_parse.h"
#include "apps/report.h"
#include "builder/error.h"
#include "builder/file_io.h"
#include "builder/printable.h"
#include "builder/provenance.h"
#include "builder/types.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace torch2onnx::show {

namespace {

// The file mapped read-only (a regular file only: a FIFO would block, a device never end); its
// pages are read as protobuf parses them, never copied whole.
class MappedFile {
public:
  explicit MappedFile(const std::string &path) {
    int fd = open_regular_file(path, "ONNX file", size_);
    if (size_ > static_cast<uint64_t>(INT_MAX)) {
      ::close(fd);
      throw Error(fmt::format("'{}' is {} bytes: an ONNX model file is at most 2 GB (protobuf's "
                              "limit; larger models keep their weights in external data)",
                              path, size_));
    }
    if (size_ > 0)
      data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (data_ == MAP_FAILED)
      throw Error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  ~MappedFile() {
    if (data_ != nullptr && data_ != MAP_FAILED)
      ::munmap(data_, size_);
  }
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  const char *data() const { return static_cast<const char *>(data_); }
  size_t size() const { return size_; }

private:
  void *data_ = nullptr;
  uint64_t size_ = 0;
};

onnx::ModelProto load(const std::string &path) {
  MappedFile f(path);
  const char *kHint =
      "torch2onnx show reads .onnx files; for TorchScript run `torch2onnx MODEL.pt`";
  // ir_version, producer_name, producer_version, domain, model_version, doc_string, graph: a
  // second one would be merged into (or replace) the first without a word from protobuf.
  static const std::vector<int> kSingular = {1, 2, 3, 4, 5, 6, 7};
  const int twice = repeated_singular_field(f.data(), f.size(), kSingular);
  onnx::ModelProto m;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(f.data()),
                                            static_cast<int>(f.size()));
  in.SetTotalBytesLimit(INT_MAX); // the protobuf limit of a model file (2 GB)
  if (twice < 0 || !m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage() ||
      m.ir_version() <= 0 || !m.has_graph())
    throw Error(
        fmt::format("'{}' is not an ONNX model (no ModelProto with a graph could be read)", path),
        kHint);
  if (twice > 0)
    throw Error(fmt::format("'{}' is damaged: it gives the ModelProto field {} twice (a second "
                            "{} would silently replace or merge into the first)",
                            path, twice, twice == 7 ? "graph" : "value"),
                kHint);
  return m;
}

std::string dtype_text(int32_t t) {
  if (t >= 0 && t <= static_cast<int32_t>(DType::BFloat16))
    return dtype_name(static_cast<DType>(t));
  return fmt::format("type{}", t);
}

json dims_json(const onnx::TensorShapeProto &shape) {
  json dims = json::array();
  for (const auto &d : shape.dim()) {
    if (d.has_dim_value())
      dims.push_back(d.dim_value());
    else if (d.has_dim_param() && !d.dim_param().empty())
      dims.push_back(d.dim_param());
    else
      dims.push_back(nullptr);
  }
  return dims;
}

// {"dtype": "f32", "dims": [...]} for a tensor (no "dims" when the rank is unknown); sequences
// and optionals as "seq(f32)" / "optional(f32)" with the element's dims.
json type_json(const onnx::TypeProto &t) {
  switch (t.value_case()) {
  case onnx::TypeProto::kTensorType: {
    json j = {{"dtype", dtype_text(t.tensor_type().elem_type())}};
    if (t.tensor_type().has_shape())
      j["dims"] = dims_json(t.tensor_type().shape());
    return j;
  }
  case onnx::TypeProto::kSequenceType: {
    json j = type_json(t.sequence_type().elem_type());
    j["dtype"] = fmt::format("seq({})", j.value("dtype", std::string("?")));
    return j;
  }
  case onnx::TypeProto::kOptionalType: {
    json j = type_json(t.optional_type().elem_type());
    j["dtype"] = fmt::format("optional({})", j.value("dtype", std::string("?")));
    return j;
  }
  case onnx::TypeProto::kMapType:
    return {{"dtype", fmt::format("map({},?)", dtype_text(t.map_type().key_type()))}};
  default:
    return json::object();
  }
}

template <typename Repeated> json array_of(const Repeated &r) {
  json a = json::array();
  for (const auto &x : r)
    a.push_back(x);
  return a;
}

// The element count of a tensor's dims, without overflow (a double), or -1 when a dim is
// negative (a damaged file).
double numel(const onnx::TensorProto &t) {
  double n = 1;
  for (auto d : t.dims()) {
    if (d < 0)
      return -1;
    n *= static_cast<double>(d);
  }
  return n;
}

// A small tensor's values as text ("0,-1"); empty when they are not stored inline or too many.
std::string tensor_values_text(const onnx::TensorProto &t, size_t max_values = 8) {
  const double count = numel(t);
  if (count < 0 || count > static_cast<double>(max_values) ||
      t.data_location() == onnx::TensorProto::EXTERNAL)
    return "";
  const auto n = static_cast<int64_t>(count);
  std::vector<std::string> v;
  const std::string &raw = t.raw_data();
  auto from_raw = [&](auto sample) {
    using T = decltype(sample);
    if (raw.size() != static_cast<size_t>(n) * sizeof(T))
      return false;
    for (int64_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, raw.data() + i * sizeof(T), sizeof(T));
      if constexpr (std::is_floating_point_v<T>)
        v.push_back(fmt::format("{:g}", x));
      else
        v.push_back(fmt::format("{}", static_cast<int64_t>(x)));
    }
    return true;
  };
  using TP = onnx::TensorProto;
  bool ok = false;
  if (!raw.empty()) {
    switch (t.data_type()) {
    case TP::FLOAT:
      ok = from_raw(float{});
      break;
    case TP::DOUBLE:
      ok = from_raw(double{});
      break;
    case TP::INT64:
      ok = from_raw(int64_t{});
      break;
    case TP::INT32:
      ok = from_raw(int32_t{});
      break;
    case TP::INT8:
      ok = from_raw(int8_t{});
      break;
    case TP::UINT8:
    case TP::BOOL:
      ok = from_raw(uint8_t{});
      break;
    default:
      break;
    }
    return ok ? fmt::format("{}", fmt::join(v, ",")) : "";
  }
  for (auto x : t.float_data())
    v.push_back(fmt::format("{:g}", x));
  for (auto x : t.double_data())
    v.push_back(fmt::format("{:g}", x));
  for (auto x : t.int64_data())
    v.push_back(fmt::format("{}", x));
  for (auto x : t.int32_data())
    v.push_back(fmt::format("{}", x));
  return static_cast<int64_t>(v.size()) == n ? fmt::format("{}", fmt::join(v, ",")) : "";
}

std::string shape_text(const json &v); // "f32[batch,3]"

std::string tensor_text(const onnx::TensorProto &t) {
  json j = {{"dtype", dtype_text(t.data_type())}, {"dims", array_of(t.dims())}};
  std::string vals = tensor_values_text(t);
  return fmt::format("<{}{}>", shape_text(j), vals.empty() ? "" : ": " + vals);
}

template <typename List> std::string list_text(const List &items, bool quote = false) {
  std::vector<std::string> parts;
  for (const auto &x : items) {
    if (parts.size() == 8) {
      parts.push_back(fmt::format("...({})", items.size()));
      break;
    }
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>)
      parts.push_back(quote ? "'" + x + "'" : x);
    else if constexpr (std::is_floating_point_v<std::decay_t<decltype(x)>>)
      parts.push_back(fmt::format("{:g}", x));
    else
      parts.push_back(fmt::format("{}", x));
  }
  return fmt::format("[{}]", fmt::join(parts, ","));
}

// An attribute in short form: "axis=1", "pads=[1,1,1,1]", "value=<i64[2]: 0,-1>".
std::string attr_text(const onnx::AttributeProto &a) {
  using A = onnx::AttributeProto;
  if (!a.ref_attr_name().empty())
    return "@" + a.ref_attr_name(); // a function's attribute reference
  switch (a.type()) {
  case A::INT:
    return fmt::format("{}", a.i());
  case A::FLOAT:
    return fmt::format("{:g}", a.f());
  case A::STRING: {
    std::string s = a.s();
    return "'" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "'";
  }
  case A::INTS:
    return list_text(a.ints());
  case A::FLOATS:
    return list_text(a.floats());
  case A::STRINGS:
    return list_text(a.strings(), true);
  case A::TENSOR:
    return tensor_text(a.t());
  case A::GRAPH:
    return fmt::format("<graph {}>", a.g().name());
  case A::GRAPHS:
    return fmt::format("<{} graphs>", a.graphs_size());
  case A::SPARSE_TENSOR:
    return "<sparse tensor>";
  case A::TYPE_PROTO:
  case A::TYPE_PROTOS:
    return "<type>";
  default:
    return "<?>";
  }
}

// Value types visible in a graph: its own, then its enclosing graphs' (a subgraph may read any
// outer value by name).
class Scopes {
public:
  void push(const onnx::GraphProto &g) {
    auto &m = stack_.emplace_back();
    auto add = [&](const onnx::ValueInfoProto &vi) {
      if (vi.has_type())
        m[vi.name()] = type_json(vi.type());
    };
    for (const auto &vi : g.input())
      add(vi);
    for (const auto &vi : g.output())
      add(vi);
    for (const auto &vi : g.value_info())
      add(vi);
    for (const auto &t : g.initializer()) {
      json v = {{"dtype", dtype_text(t.data_type())}, {"dims", array_of(t.dims())}};
      // Small constants (axes, shapes, scalars) are part of what a node does: show them.
      if (std::string vals = tensor_values_text(t); !vals.empty())
        v["value"] = vals;
      m[t.name()] = v;
    }
  }
  void pop() { stack_.pop_back(); }
  json value(const std::string &name) const {
    json v = {{"name", name}};
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) {
        v.update(f->second);
        break;
      }
    }
    return v;
  }

private:
  std::vector<std::unordered_map<std::string, json>> stack_;
};

json graph_json(const onnx::GraphProto &g, Scopes &scopes, bool ours);

json node_json(const onnx::NodeProto &n, Scopes &scopes, bool ours) {
  json j = {{"op", n.op_type()}};
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    j["domain"] = n.domain();
  if (!n.name().empty())
    j["name"] = n.name();
  json ins = json::array(), outs = json::array();
  for (const auto &i : n.input())
    ins.push_back(i.empty() ? json{{"name", ""}} : scopes.value(i));
  for (const auto &o : n.output())
    outs.push_back(o.empty() ? json{{"name", ""}} : scopes.value(o));
  j["inputs"] = ins;
  j["outputs"] = outs;
  json attrs = json::object();
  json subgraphs = json::object();
  for (const auto &a : n.attribute()) {
    attrs[a.name()] = attr_text(a);
    if (a.has_g())
      subgraphs[a.name()] = graph_json(a.g(), scopes, ours);
    for (int k = 0; k < a.graphs_size(); ++k)
      subgraphs[fmt::format("{}[{}]", a.name(), k)] = graph_json(a.graphs(k), scopes, ours);
  }
  j["attributes"] = attrs;
  if (ours) {
    NodeOrigin o = origin_of_node_name(n.name());
    if (!o.op.empty()) {
      j["aten"] = o.op;
      j["scope"] = o.scope;
    }
  }
  if (!subgraphs.empty())
    j["subgraphs"] = subgraphs;
  return j;
}

json graph_json(const onnx::GraphProto &g, Scopes &scopes, bool ours) {
  scopes.push(g);
  json j = {{"name", g.name()}};
  std::unordered_map<std::string, bool> is_init;
  for (const auto &t : g.initializer())
    is_init[t.name()] = true;
  json ins = json::array(), outs = json::array(), nodes = json::array();
  for (const auto &vi : g.input())
    if (!is_init.count(vi.name())) // IR < 4 lists initializers as inputs too
      ins.push_back(scopes.value(vi.name()));
  for (const auto &vi : g.output())
    outs.push_back(scopes.value(vi.name()));
  for (const auto &n : g.node())
    nodes.push_back(node_json(n, scopes, ours));
  j["inputs"] = ins;
  j["outputs"] = outs;
  j["nodes"] = nodes;
  scopes.pop();
  return j;
}

// The bytes a tensor's dims and type say it holds (0 when a dim is negative).
double tensor_bytes(const onnx::TensorProto &t) {
  const double size =
      static_cast<double>(dtype_size(static_cast<DType>(std::clamp(t.data_type(), 0, 16))));
  return std::max(0.0, numel(t)) * size;
}

// The bytes of data a tensor holds in the file (raw_data or its typed fields), or its external
// data's stated length; -1 when that is not stated.
double stored_bytes(const onnx::TensorProto &t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    for (const auto &e : t.external_data())
      if (e.key() == "length") {
        char *end = nullptr;
        double v = std::strtod(e.value().c_str(), &end);
        return end && *end == '\0' && !e.value().empty() && v >= 0 ? v : -1;
      }
    return -1;
  }
  if (t.has_raw_data())
    return static_cast<double>(t.raw_data().size());
  const double size =
      static_cast<double>(dtype_size(static_cast<DType>(std::clamp(t.data_type(), 0, 16))));
  const double typed =
      static_cast<double>(t.float_data_size() + t.int32_data_size() + t.int64_data_size() +
                          t.double_data_size() + t.uint64_data_size());
  if (t.data_type() == onnx::TensorProto::STRING)
    return static_cast<double>(t.string_data_size()) == numel(t) ? 0 : -2;
  // int32_data holds one 8- or 16-bit element per value
  return typed * size;
}

// What is wrong with an initializer's dims or data, or "".
std::string initializer_problem(const onnx::TensorProto &t) {
  for (auto d : t.dims())
    if (d < 0)
      return fmt::format("has a negative dim ({})", d);
  const double want = tensor_bytes(t), have = stored_bytes(t);
  if (t.data_type() == onnx::TensorProto::STRING || t.data_type() == onnx::TensorProto::UNDEFINED)
    return have == -2 ? "holds another number of strings than its dims say" : "";
  if (have == -1)
    return t.data_location() == onnx::TensorProto::EXTERNAL
               ? "keeps its data in an external file without stating its length"
               : "";
  if (have != want)
    return fmt::format("should hold {} of data by its dims, but {} {}", report::human_bytes(want),
                       t.data_location() == onnx::TensorProto::EXTERNAL ? "its external data is"
                                                                        : "the file holds",
                       report::human_bytes(have));
  return "";
}

// A count as a JSON integer, or a number when it is past int64 (dims of a damaged file).
json count_json(double v) {
  return v < 9.2e18 ? json(static_cast<int64_t>(v)) : json(v);
}

void collect_initializers(const onnx::GraphProto &g, std::vector<const onnx::TensorProto *> &out) {
  for (const auto &t : g.initializer())
    out.push_back(&t);
  for (const auto &n : g.node())
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        collect_initializers(a.g(), out);
      for (const auto &sub : a.graphs())
        collect_initializers(sub, out);
    }
}

json initializers_json(const onnx::ModelProto &m, json &warnings) {
  std::vector<const onnx::TensorProto *> inits;
  collect_initializers(m.graph(), inits);
  double elements = 0, bytes = 0;
  int64_t external = 0;
  for (const auto *t : inits) {
    elements += std::max(0.0, numel(*t));
    bytes += tensor_bytes(*t);
    external += t->data_location() == onnx::TensorProto::EXTERNAL;
    if (std::string why = initializer_problem(*t); !why.empty())
      warnings.push_back(fmt::format("initializer '{}' {}[{}] {}", t->name(),
                                     dtype_text(t->data_type()), fmt::join(t->dims(), ","), why));
  }
  std::stable_sort(inits.begin(), inits.end(), [](const auto *a, const auto *b) {
    return tensor_bytes(*a) > tensor_bytes(*b);
  });
  json largest = json::array();
  for (size_t i = 0; i < inits.size() && i < 3; ++i)
    largest.push_back({{"name", inits[i]->name()},
                       {"dtype", dtype_text(inits[i]->data_type())},
                       {"dims", array_of(inits[i]->dims())},
                       {"bytes", count_json(tensor_bytes(*inits[i]))}});
  return {{"count", inits.size()},
          {"elements", count_json(elements)},
          {"bytes", count_json(bytes)},
          {"external", external},
          {"largest", largest}};
}

json functions_json(const onnx::ModelProto &m, bool ours) {
  json out = json::array();
  for (const auto &f : m.functions()) {
    onnx::GraphProto g; // a function body as a graph without types, to reuse the node listing
    Scopes scopes;
    scopes.push(g);
    json nodes = json::array();
    for (const auto &n : f.node())
      nodes.push_back(node_json(n, scopes, ours));
    out.push_back({{"domain", f.domain()},
                   {"name", f.name()},
                   {"inputs", array_of(f.input())},
                   {"outputs", array_of(f.output())},
                   {"attributes", array_of(f.attribute())},
                   {"nodes", nodes}});
  }
  return out;
}

std::string shape_text(const json &v) {
  if (!v.contains("dtype"))
    return "?";
  std::string s = v["dtype"].get<std::string>();
  if (!v.contains("dims"))
    return s + "[?]";
  std::vector<std::string> parts;
  for (const auto &d : v["dims"])
    parts.push_back(d.is_null() ? "?" : d.is_string() ? d.get<std::string>() : d.dump());
  return fmt::format("{}[{}]", s, fmt::join(parts, ","));
}

std::string value_text(const json &v) {
  const std::string &name = v["name"].get_ref<const std::string &>();
  if (name.empty())
    return "-"; // an omitted optional input
  std::string s = v.contains("dtype") ? name + ": " + shape_text(v) : name;
  return v.contains("value") ? s + " = " + v["value"].get<std::string>() : s;
}

std::string values_text(const json &vs) {
  std::vector<std::string> parts;
  for (const auto &v : vs)
    parts.push_back(value_text(v));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void graph_text(const json &g, int indent, std::string &o);

void node_text(const json &n, size_t index, int indent, std::string &o) {
  std::string pad(indent, ' ');
  std::string op = n.contains("domain") ? n["domain"].get<std::string>() + "." : "";
  op += n["op"].get<std::string>();
  std::vector<std::string> attrs;
  for (const auto &[k, v] : n["attributes"].items())
    attrs.push_back(fmt::format("{}={}", k, v.get<std::string>()));
  o += fmt::format("{}{:>3} {}({}) -> {}", pad, index, op, values_text(n["inputs"]),
                   values_text(n["outputs"]));
  if (!attrs.empty())
    o += fmt::format("  {{{}}}", fmt::join(attrs, ", "));
  if (n.contains("aten"))
    o += fmt::format(
        "  # {}{}", n["aten"].get<std::string>(),
        n["scope"].get<std::string>().empty() ? "" : " in " + n["scope"].get<std::string>());
  o += "\n";
  if (n.contains("subgraphs"))
    for (const auto &[attr, g] : n["subgraphs"].items()) {
      o += fmt::format("{}      {}: graph {} ({}) -> ({})\n", pad, attr,
                       g["name"].get<std::string>(), values_text(g["inputs"]),
                       values_text(g["outputs"]));
      graph_text(g, indent + 8, o);
    }
}

void graph_text(const json &g, int indent, std::string &o) {
  size_t i = 0;
  for (const auto &n : g["nodes"])
    node_text(n, i++, indent, o);
}

} // namespace

json describe(const std::string &path) {
  onnx::ModelProto m = load(path);
  const bool ours = m.producer_name() == "torch2onnx";
  json j;
  j["file"] = path;
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (!ec)
    j["file_bytes"] = size;
  j["ir_version"] = m.ir_version();
  j["producer"] = {{"name", m.producer_name()}, {"version", m.producer_version()}};
  json opsets = json::object();
  for (const auto &imp : m.opset_import())
    opsets[imp.domain().empty() ? "ai.onnx" : imp.domain()] = imp.version();
  j["opsets"] = opsets;
  json meta = json::object();
  for (const auto &p : m.metadata_props())
    meta[p.key()] = p.value();
  if (!meta.empty())
    j["metadata"] = meta;
  Scopes scopes;
  json g = graph_json(m.graph(), scopes, ours);
  j["inputs"] = g["inputs"];
  j["outputs"] = g["outputs"];
  json warnings = json::array();
  j["initializers"] = initializers_json(m, warnings);
  if (!warnings.empty())
    j["warnings"] = warnings;
  j["graph"] = {{"name", g["name"]}, {"nodes", g["nodes"]}};
  j["functions"] = functions_json(m, ours);
  return j;
}

namespace {

// `j` with every string and key escaped for a terminal (builder/printable.h): names, attribute
// strings and doc strings of a file are printed as they are only in --json.
json escaped(const json &j) {
  if (j.is_string())
    return printable(j.get<std::string>());
  if (j.is_array()) {
    json out = json::array();
    for (const auto &e : j)
      out.push_back(escaped(e));
    return out;
  }
  if (j.is_object()) {
    json out = json::object();
    for (const auto &[k, v] : j.items())
      out[printable(k)] = escaped(v);
    return out;
  }
  return j;
}

} // namespace

std::string text(const json &document) {
  const json m = escaped(document);
  std::string o;
  std::vector<std::string> opsets;
  for (const auto &[d, v] : m["opsets"].items())
    opsets.push_back(fmt::format("{} {}", d, v.get<int64_t>()));
  std::string producer = m["producer"]["name"].get<std::string>();
  if (!m["producer"]["version"].get<std::string>().empty())
    producer += " " + m["producer"]["version"].get<std::string>();
  o += fmt::format(
      "{}: ONNX IR {}, opset {}, producer {}{}\n", m["file"].get<std::string>(),
      m["ir_version"].get<int64_t>(), fmt::join(opsets, ", "),
      producer.empty() ? "(none)" : producer,
      m.contains("file_bytes") ? ", " + report::human_bytes(m["file_bytes"].get<double>()) : "");
  o += "inputs:\n";
  for (const auto &v : m["inputs"])
    o += "  " + value_text(v) + "\n";
  o += "outputs:\n";
  for (const auto &v : m["outputs"])
    o += "  " + value_text(v) + "\n";
  const auto &in = m["initializers"];
  o += fmt::format("initializers: {} ({} elements, {}{})", in["count"].get<int64_t>(),
                   report::human_count(in["elements"].get<double>()),
                   report::human_bytes(in["bytes"].get<double>()),
                   in["external"].get<int64_t>() > 0
                       ? fmt::format(", {} in external data", in["external"].get<int64_t>())
                       : "");
  std::vector<std::string> largest;
  for (const auto &t : in["largest"])
    largest.push_back(fmt::format("{} {} ({})", t["name"].get<std::string>(), shape_text(t),
                                  report::human_bytes(t["bytes"].get<double>())));
  if (!largest.empty())
    o += fmt::format("; largest: {}", fmt::join(largest, ", "));
  if (m.contains("warnings"))
    for (const auto &w : m["warnings"])
      o += "\nwarning: " + w.get<std::string>();
  o += fmt::format("\nnodes: {}\n", m["graph"]["nodes"].size());
  graph_text(m["graph"], 2, o);
  if (!m["functions"].empty()) {
    o += fmt::format("functions: {}\n", m["functions"].size());
    for (const auto &f : m["functions"]) {
      o += fmt::format("  {}.{}({}) -> ({})\n", f["domain"].get<std::string>(),
                       f["name"].get<std::string>(),
                       fmt::join(f["inputs"].get<std::vector<std::string>>(), ", "),
                       fmt::join(f["outputs"].get<std::vector<std::string>>(), ", "));
      graph_text(f, 4, o);
    }
  }
  return o;
}

int run_show(int argc, char **argv) {
  CLI::App app{"torch2onnx show: list an ONNX file, one line per node (any exporter's file)"};
  app.footer(R"(
Each node line: index, op(inputs with dtype and shape) -> outputs, {attributes}, and for files
torch2onnx wrote "# aten op in module scope". Subgraphs (If, Loop, Scan) follow their node,
indented; local functions come last. Weights are not read (external data may be absent).

Examples:
  torch2onnx show resnet50.onnx
  torch2onnx show model.onnx --json | jq '.graph.nodes[] | select(.op == "Conv") | .name'
)");
  std::string path;
  bool as_json = false;
  app.add_option("model", path, "the ONNX file, e.g. model.onnx")->required();
  app.add_flag("--json", as_json, "print JSON for tools (docs/show.md)");
  if (auto rc = parse_flags(app, argc, argv, "show"))
    return *rc;
  try {
    json m = describe(path);
    if (as_json)
      fmt::print("{}\n", m.dump(2, ' ', false, json::error_handler_t::replace));
    else
      fmt::print("{}", text(m));
    return 0;
  } catch (const Error &e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", printable(e.what(), true));
    if (!e.hint().empty())
      fmt::print(stderr, "  hint: {}\n", printable(e.hint(), true));
    return 1;
  } catch (const std::exception &e) {
    fmt::print(stderr, "torch2onnx: error: cannot read '{}': {}\n", printable(path),
               printable(e.what()));
    return 1;
  }
}

} // namespace torch2onnx::show
