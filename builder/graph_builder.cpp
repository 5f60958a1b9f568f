#include "builder/graph_builder.h"

#include "builder/error.h"
#include "builder/onnx_schemas.h"
#include "builder/optimize.h"
#include "builder/process.h"
#include "builder/progress.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>

namespace torch2onnx {

namespace {

onnx::TensorProto to_proto(const TensorData &d, const std::string &name) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(static_cast<int32_t>(d.dtype));
  for (auto dim : d.dims)
    t.add_dims(dim);
  t.set_raw_data(d.raw);
  return t;
}

void set_type(onnx::ValueInfoProto *vi, const TensorInfo &info) {
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(info.dtype));
  if (!info.shape)
    return;
  auto *shape = tt->mutable_shape();
  for (const Dim &d : *info.shape) {
    auto *pd = shape->add_dim();
    if (!d.symbol.empty())
      pd->set_dim_param(d.symbol);
    else if (d.value >= 0)
      pd->set_dim_value(d.value);
  }
}

void set_value_type(onnx::ValueInfoProto *vi, const std::string &name, const ValueType &t) {
  vi->set_name(name);
  if (t.dtype == DType::Undefined)
    return;
  TensorInfo info{t.dtype, t.shape};
  if (!t.sequence) {
    set_type(vi, info);
    return;
  }
  onnx::ValueInfoProto elem;
  set_type(&elem, info);
  *vi->mutable_type()->mutable_sequence_type()->mutable_elem_type() = elem.type();
}

// Every value name a node reads, including those its subgraphs read from enclosing scopes.
void collect_reads(const onnx::NodeProto &n, std::unordered_set<std::string> &out) {
  for (const auto &in : n.input())
    if (!in.empty())
      out.insert(in);
  for (const auto &a : n.attribute()) {
    if (a.has_g())
      for (const auto &sub : a.g().node())
        collect_reads(sub, out);
    for (const auto &g : a.graphs())
      for (const auto &sub : g.node())
        collect_reads(sub, out);
  }
}

void collect_op_types(const onnx::GraphProto &g, std::vector<std::string> &out) {
  for (const auto &n : g.node()) {
    out.push_back(n.op_type());
    for (const auto &a : n.attribute())
      if (a.has_g())
        collect_op_types(a.g(), out);
  }
}

void fill_attr(onnx::AttributeProto *a, const Attr &attr) {
  a->set_name(attr.name);
  std::visit(
      [&](const auto &v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(v);
        } else if constexpr (std::is_same_v<T, double>) {
          a->set_type(onnx::AttributeProto::FLOAT);
          a->set_f(static_cast<float>(v));
        } else if constexpr (std::is_same_v<T, std::string>) {
          a->set_type(onnx::AttributeProto::STRING);
          a->set_s(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          a->set_type(onnx::AttributeProto::INTS);
          for (auto x : v)
            a->add_ints(x);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          a->set_type(onnx::AttributeProto::FLOATS);
          for (auto x : v)
            a->add_floats(static_cast<float>(x));
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          a->set_type(onnx::AttributeProto::STRINGS);
          for (const auto &x : v)
            a->add_strings(x);
        } else if constexpr (std::is_same_v<T, TensorData>) {
          a->set_type(onnx::AttributeProto::TENSOR);
          *a->mutable_t() = to_proto(v, "");
        }
      },
      attr.value);
}

std::string sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
            c == ':' || c == '-')
               ? c
               : '_';
  return out.empty() ? std::string("v") : out;
}

} // namespace

std::string to_string(const Attr &a) {
  return std::visit(
      [&](const auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>)
          return fmt::format("{}={}", a.name, v);
        else if constexpr (std::is_same_v<T, std::string>)
          return fmt::format("{}='{}'", a.name, v);
        else if constexpr (std::is_same_v<T, TensorData>)
          return fmt::format("{}=<tensor {}>", a.name, dtype_name(v.dtype));
        else
          return fmt::format("{}=[{}]", a.name, fmt::join(v, ","));
      },
      a.value);
}

GraphBuilder::GraphBuilder(int opset, std::string graph_name)
    : opset_(opset), model_(std::make_unique<onnx::ModelProto>()) {
  model_->mutable_graph()->set_name(std::move(graph_name));
}

GraphBuilder::~GraphBuilder() = default;

onnx::ModelProto &GraphBuilder::model() {
  return *model_;
}

std::string GraphBuilder::fresh_name(std::string_view hint) {
  std::string base = sanitize(hint);
  int &n = name_counts_[base];
  std::string name = n == 0 ? base : fmt::format("{}_{}", base, n);
  ++n;
  // A generated "x_1" may collide with a hint that was literally "x_1".
  while (n > 1 && name_counts_.count(name))
    name = fmt::format("{}_{}", base, n++);
  if (name != base)
    name_counts_[name] = 1;
  return name;
}

Val GraphBuilder::add_input(const std::string &name, const TensorInfo &info) {
  std::string n = fresh_name(name);
  T2O_CHECK(n == sanitize(name), "graph input name '{}' is used twice", name);
  inputs_.emplace_back(n, info);
  infos_[n] = info;
  return Val{n};
}

void GraphBuilder::add_output(const Val &v, const std::string &name) {
  T2O_CHECK(v.valid(), "graph output '{}' has no value", name);
  outputs_.emplace_back(v.name, name);
}

std::vector<std::string> GraphBuilder::output_names() const {
  std::vector<std::string> out;
  for (const auto &o : outputs_)
    out.push_back(o.second);
  return out;
}

namespace {
// A hash of a constant's bytes for deduplication. Large weights are sampled (both ends and 256
// strided slices) instead of hashed whole: hashing every byte of a ViT's weights cost ~0.3 s.
// A match is always confirmed by comparing all bytes.
size_t content_hash(std::string_view raw) {
  constexpr size_t kWhole = 64 << 10, kEnd = 4 << 10, kSlices = 256, kSlice = 16;
  if (raw.size() <= kWhole)
    return std::hash<std::string_view>{}(raw);
  std::string sample;
  sample.reserve(2 * kEnd + kSlices * kSlice + 16);
  sample.append(raw.substr(0, kEnd));
  sample.append(raw.substr(raw.size() - kEnd, kEnd));
  size_t step = (raw.size() - kSlice) / kSlices;
  for (size_t i = 0; i < kSlices; ++i)
    sample.append(raw.substr(i * step, kSlice));
  sample += std::to_string(raw.size());
  return std::hash<std::string>{}(sample);
}

std::string content_key(DType dtype, const std::vector<int64_t> &dims, std::string_view bytes) {
  return fmt::format("{}|{}|{}", static_cast<int>(dtype), fmt::join(dims, ","),
                     content_hash(bytes));
}
} // namespace

Val GraphBuilder::find_constant(const std::string &key, std::string_view bytes) const {
  auto it = constant_by_hash_.find(key);
  if (it == constant_by_hash_.end())
    return Val{};
  const auto &init = model_->graph().initializer(constants_.at(it->second));
  return initializer_bytes(init) == bytes ? Val{it->second} : Val{};
}

std::string_view GraphBuilder::initializer_bytes(const onnx::TensorProto &init) const {
  if (!borrowed_.empty() && init.raw_data().empty()) {
    auto it = borrowed_.find(init.name());
    if (it != borrowed_.end())
      return {it->second.data, it->second.size};
  }
  return init.raw_data();
}

Val GraphBuilder::add_initializer(DType dtype, const std::vector<int64_t> &dims, std::string &&raw,
                                  const BorrowedBytes *lent, std::string key,
                                  std::string_view hint) {
  std::string name = fresh_name(hint);
  TensorInfo info;
  info.dtype = dtype;
  info.shape.emplace();
  for (auto d : dims)
    info.shape->push_back(Dim::known(d));
  infos_[name] = info;
  auto *graph = model_->mutable_graph();
  auto *init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(static_cast<int32_t>(dtype));
  for (auto d : dims)
    init->add_dims(d);
  if (lent)
    borrowed_.emplace(name, *lent);
  else
    init->set_raw_data(std::move(raw)); // moved: weights are copied once on their way to the file
  constants_.emplace(name, graph->initializer_size() - 1);
  constant_by_hash_.emplace(std::move(key), name);
  return Val{name};
}

Val GraphBuilder::constant(TensorData data, std::string_view hint) {
  T2O_CHECK(!finished_, "the graph is already serialized");
  T2O_CHECK(data.raw.size() == static_cast<size_t>(data.numel()) * dtype_size(data.dtype),
            "constant '{}' has {} bytes for {} elements of {}", hint, data.raw.size(), data.numel(),
            dtype_name(data.dtype));
  std::string key = content_key(data.dtype, data.dims, data.raw);
  Val same = find_constant(key, data.raw);
  if (same.valid())
    return same;
  return add_initializer(data.dtype, data.dims, std::move(data.raw), nullptr, std::move(key), hint);
}

Val GraphBuilder::constant_borrowed(DType dtype, std::vector<int64_t> dims, BorrowedBytes bytes,
                                    std::string_view hint) {
  T2O_CHECK(!finished_, "the graph is already serialized");
  int64_t n = 1;
  for (auto d : dims)
    n *= d;
  T2O_CHECK(bytes.size == static_cast<size_t>(n) * dtype_size(dtype) &&
                (bytes.data != nullptr || bytes.size == 0),
            "constant '{}' has {} bytes for {} elements of {}", hint, bytes.size, n,
            dtype_name(dtype));
  std::string_view view(bytes.data, bytes.size);
  std::string key = content_key(dtype, dims, view);
  Val same = find_constant(key, view);
  if (same.valid())
    return same;
  if (bytes.size == 0) // nothing to borrow; an empty raw_data is the tensor
    return add_initializer(dtype, dims, std::string(), nullptr, std::move(key), hint);
  return add_initializer(dtype, dims, std::string(), &bytes, std::move(key), hint);
}

const TensorData *GraphBuilder::constant_data(const Val &v) const {
  auto cached = constant_cache_.find(v.name);
  if (cached != constant_cache_.end())
    return &cached->second;
  auto it = constants_.find(v.name);
  if (it == constants_.end())
    return nullptr;
  const auto &init = model_->graph().initializer(it->second);
  TensorData d;
  d.dtype = static_cast<DType>(init.data_type());
  d.dims.assign(init.dims().begin(), init.dims().end());
  d.raw = std::string(initializer_bytes(init));
  return &constant_cache_.emplace(v.name, std::move(d)).first->second;
}

std::vector<Val> GraphBuilder::op(std::string_view op_type, const std::vector<Val> &inputs,
                                  const std::vector<Attr> &attrs, int num_outputs,
                                  std::string_view domain) {
  return add_node(op_type, inputs, attrs, {}, num_outputs, domain);
}

std::vector<Val>
GraphBuilder::op_with_subgraphs(std::string_view op_type, const std::vector<Val> &inputs,
                                const std::vector<std::pair<std::string, Subgraph>> &graphs,
                                int num_outputs, const std::vector<Attr> &attrs) {
  return add_node(op_type, inputs, attrs, graphs, num_outputs, "");
}

std::vector<Val> GraphBuilder::add_node(std::string_view op_type, const std::vector<Val> &inputs,
                                        const std::vector<Attr> &attrs,
                                        const std::vector<std::pair<std::string, Subgraph>> &graphs,
                                        int num_outputs, std::string_view domain) {
  if (graphs.empty()) {
    if (auto adapted = adapt_form(std::string(op_type), inputs, attrs, num_outputs, domain))
      return *adapted;
  } else {
    check_subgraph_form(op_type, graphs);
  }
  return add_node_as_is(op_type, inputs, attrs, graphs, num_outputs, domain);
}

std::vector<Val>
GraphBuilder::add_node_as_is(std::string_view op_type, const std::vector<Val> &inputs,
                             const std::vector<Attr> &attrs,
                             const std::vector<std::pair<std::string, Subgraph>> &graphs,
                             int num_outputs, std::string_view domain) {
  T2O_CHECK(!finished_, "the graph is already serialized");
  std::string type(op_type);
  std::string node_name = fresh_name(scope_.empty() ? type : fmt::format("{}/{}", scope_, type));
  onnx::NodeProto node;
  node.set_op_type(type);
  node.set_name(node_name);
  if (!domain.empty())
    node.set_domain(std::string(domain));
  for (const auto &v : inputs)
    node.add_input(v.name);
  for (const auto &a : attrs)
    fill_attr(node.add_attribute(), a);
  for (const auto &[name, g] : graphs) {
    T2O_CHECK(g != nullptr, "subgraph attribute '{}' of {} is empty", name, type);
    auto *a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *g;
  }
  std::vector<Val> outs;
  for (int i = 0; i < num_outputs; ++i) {
    std::string vname = num_outputs == 1 ? node_name : fmt::format("{}:{}", node_name, i);
    name_counts_.emplace(vname, 1);
    node.add_output(vname);
    outs.push_back(Val{vname});
  }
  verify_node(node, attrs);
  *current_graph()->add_node() = std::move(node);
  return outs;
}

void GraphBuilder::verify_node(const onnx::NodeProto &node, const std::vector<Attr> &attrs) const {
  const std::string &type = node.op_type();
  const std::string dom = node.domain().empty() ? std::string(onnx::ONNX_DOMAIN) : node.domain();
  // A custom domain (--fallback-domain) has no schema: its nodes are the back end's to define.
  if (is_custom_domain(dom))
    return;
  // Above the opsets libonnx knows: our own table for the operators that changed in 18-21, else
  // libonnx's newest schema, which still describes the operator (see builder/onnx_schemas.h).
  const OwnSchema *own = opset_ > kLibOnnxMaxOpset ? own_schema(type, opset_) : nullptr;
  const onnx::OpSchema *schema =
      own ? nullptr : onnx::OpSchemaRegistry::Schema(type, std::min(opset_, kLibOnnxMaxOpset), dom);
  T2O_CHECK(own != nullptr || schema != nullptr, "ONNX has no operator '{}' at opset {} (node {})",
            type, opset_, node.name());
  T2O_CHECK(own != nullptr || !schema->Deprecated(),
            "ONNX operator '{}' is deprecated at opset {} (node {})", type, opset_, node.name());
  try {
    if (own)
      verify_own_schema(*own, node);
    else
      schema->Verify(node);
  } catch (const std::exception &e) {
    std::vector<std::string> attr_text;
    for (const auto &a : attrs)
      attr_text.push_back(to_string(a));
    throw Error(fmt::format(
        "invalid ONNX node {} ({} at opset {}, inputs [{}], attributes [{}]): {}", node.name(),
        type, opset_, fmt::join(node.input(), ", "), fmt::join(attr_text, ", "), e.what()));
  }
}

bool is_custom_domain(const std::string &domain) {
  return !domain.empty() && domain != onnx::ONNX_DOMAIN && domain != "ai.onnx" &&
         domain != onnx::AI_ONNX_ML_DOMAIN && domain != onnx::AI_ONNX_TRAINING_DOMAIN &&
         domain != onnx::AI_ONNX_PREVIEW_TRAINING_DOMAIN;
}

namespace {

void collect_domains(const onnx::GraphProto &g, std::set<std::string> &out) {
  for (const auto &n : g.node()) {
    if (is_custom_domain(n.domain()))
      out.insert(n.domain());
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        collect_domains(a.g(), out);
      for (const auto &sub : a.graphs())
        collect_domains(sub, out);
    }
  }
}

} // namespace

void import_custom_domains(onnx::ModelProto &m) {
  std::set<std::string> used;
  collect_domains(m.graph(), used);
  for (const auto &imp : m.opset_import())
    used.erase(imp.domain());
  for (const auto &d : used) {
    auto *imp = m.add_opset_import();
    imp->set_domain(d);
    imp->set_version(1);
  }
}

onnx::GraphProto *GraphBuilder::current_graph() {
  return open_graphs_.empty() ? model_->mutable_graph() : open_graphs_.back().get();
}

void GraphBuilder::begin_subgraph(std::string_view name) {
  T2O_CHECK(!finished_, "the graph is already serialized");
  auto g = std::make_unique<onnx::GraphProto>();
  g->set_name(fresh_name(name));
  open_graphs_.push_back(std::move(g));
}

Val GraphBuilder::add_subgraph_input(std::string_view hint, const ValueType &type) {
  T2O_CHECK(!open_graphs_.empty(), "add_subgraph_input outside a subgraph");
  std::string n = fresh_name(hint);
  set_value_type(open_graphs_.back()->add_input(), n, type);
  if (!type.sequence)
    infos_[n] = TensorInfo{type.dtype, type.shape};
  return Val{n};
}

Subgraph GraphBuilder::end_subgraph(const std::vector<Val> &outputs,
                                    const std::vector<ValueType> &types) {
  T2O_CHECK(!open_graphs_.empty(), "end_subgraph without begin_subgraph");
  T2O_CHECK(outputs.size() == types.size(), "subgraph: {} outputs but {} types", outputs.size(),
            types.size());
  onnx::GraphProto *g = open_graphs_.back().get();
  std::unordered_set<std::string> made_here, used;
  for (const auto &n : g->node())
    for (const auto &o : n.output())
      made_here.insert(o);
  std::string scope = scope_;
  scope_ = g->name();
  for (size_t i = 0; i < outputs.size(); ++i) {
    T2O_CHECK(outputs[i].valid(), "subgraph output {} has no value", i);
    Val out = outputs[i];
    // An output must be made inside the subgraph, once: outer values, inputs and constants (and
    // a value returned twice) get a copy. Identity takes sequences only from opset 14; before,
    // inserting and erasing a placeholder element copies one.
    if (!made_here.count(out.name) || !used.insert(out.name).second) {
      if (types[i].sequence && opset_ < 14) {
        Val dummy = constant(TensorData::scalar(types[i].dtype, 0), "placeholder");
        out = op1("SequenceErase", {op1("SequenceInsert", {out, dummy})});
      } else {
        out = op1("Identity", {out});
      }
      used.insert(out.name);
    }
    set_value_type(g->add_output(), out.name, types[i]);
  }
  scope_ = scope;
  Subgraph done(open_graphs_.back().release());
  open_graphs_.pop_back();
  return done;
}

void GraphBuilder::set_info(const Val &v, const TensorInfo &info) {
  infos_[v.name] = info;
}

bool GraphBuilder::has_info(const Val &v) const {
  return infos_.count(v.name) != 0;
}

const TensorInfo &GraphBuilder::info(const Val &v) const {
  auto it = infos_.find(v.name);
  T2O_CHECK(it != infos_.end(), "no shape/dtype is known for value '{}'", v.name);
  return it->second;
}

void GraphBuilder::set_companion(const Val &v, const std::string &role, const Val &companion) {
  companions_[{v.name, role}] = companion;
}

Val GraphBuilder::companion(const Val &v, const std::string &role) const {
  auto it = companions_.find({v.name, role});
  return it == companions_.end() ? Val{} : it->second;
}

std::vector<std::string> GraphBuilder::model_op_types() const {
  std::vector<std::string> out;
  collect_op_types(model_->graph(), out);
  return out;
}

size_t GraphBuilder::node_count() const {
  return model_->graph().node_size();
}

GraphStats GraphBuilder::stats() const {
  GraphStats s;
  s.nodes = node_count();
  for (const auto &init : model_->graph().initializer()) {
    size_t n = 1;
    for (auto d : init.dims())
      n *= static_cast<size_t>(d);
    s.parameters += n;
    s.parameter_bytes += initializer_bytes(init).size();
    for (const auto &e : init.external_data())
      if (e.key() == "length")
        s.parameter_bytes += std::stoull(e.value());
  }
  return s;
}

void GraphBuilder::finish_graph(const SerializeOptions &opts) {
  if (finished_)
    return;
  T2O_CHECK(open_graphs_.empty(), "internal error: {} subgraph(s) were never finished",
            open_graphs_.size());
  add_header_and_io(opts);
  finished_ = true;
  remove_dead_nodes();
}

void GraphBuilder::rewrite(const std::function<void(onnx::ModelProto &)> &step) {
  T2O_CHECK(finished_ && !checked_, "internal error: rewrite() runs between finish_graph() and "
                                    "save()");
  ScopedInitializerBytes lookup([this](const onnx::TensorProto &t) { return initializer_bytes(t); },
                                [this](const onnx::TensorProto &t) { borrowed_.erase(t.name()); });
  step(*model_);
}

void GraphBuilder::finish(const SerializeOptions &opts) {
  finish_graph(opts);
  if (checked_)
    return;
  checked_ = true;
  release_dropped_borrowed();
  import_custom_domains(*model_);
  // The checker and shape inference see the borrowed weights as external data: they read their
  // types and shapes, never their bytes.
  mark_borrowed(true);
  struct Unmark {
    GraphBuilder *b;
    ~Unmark() { b->mark_borrowed(false); }
  } unmark{this};
  check_and_infer(opts);
}

void GraphBuilder::add_header_and_io(const SerializeOptions &opts) {
  auto &m = *model_;
  m.set_ir_version(ir_version_for_opset(opset_));
  m.set_producer_name("torch2onnx");
  m.set_producer_version(opts.producer_version);
  auto *imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset_);
  auto *g = m.mutable_graph();
  for (const auto &[name, info] : inputs_) {
    auto *vi = g->add_input();
    vi->set_name(name);
    set_type(vi, info);
  }
  std::set<std::string> used_output_names;
  for (const auto &[value, out_name] : outputs_) {
    T2O_CHECK(used_output_names.insert(out_name).second, "graph output name '{}' is used twice",
              out_name);
    // Graph outputs get their own name through an Identity, which also covers an output that is
    // an input or a constant, and the same value returned twice.
    std::string scope = scope_;
    scope_ = "output";
    onnx::NodeProto node;
    node.set_op_type("Identity");
    node.set_name(fresh_name("output/Identity"));
    node.add_input(value);
    node.add_output(out_name);
    *g->add_node() = std::move(node);
    scope_ = scope;
    auto *vi = g->add_output();
    vi->set_name(out_name);
    auto it = infos_.find(value);
    if (it != infos_.end())
      set_type(vi, it->second);
  }
}

void GraphBuilder::release_dropped_borrowed() {
  if (borrowed_.empty())
    return;
  // Rewrites may have dropped borrowed weights (a Conv's, folded with its BatchNormalization):
  // let their memory go.
  std::unordered_set<std::string> present;
  for (const auto &init : model_->graph().initializer())
    present.insert(init.name());
  for (auto it = borrowed_.begin(); it != borrowed_.end();)
    it = present.count(it->first) ? std::next(it) : borrowed_.erase(it);
}

void GraphBuilder::check_and_infer(const SerializeOptions &opts) {
  auto &m = *model_;
  // libonnx knows opsets up to 17; above, ONNX Runtime is the checker (--verify).
  if (opts.run_checker && opset_ <= kLibOnnxMaxOpset) {
    try {
      onnx::checker::check_model(m);
    } catch (const std::exception &e) {
      throw Error(fmt::format("the ONNX checker rejected the exported model: {}", e.what()),
                  "this is a torch2onnx bug; please report it with the model");
    }
  }
  if (opts.run_shape_inference && opset_ <= kLibOnnxMaxOpset) {
    try {
      onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(true, 1, false));
    } catch (const std::exception &e) {
      throw Error(fmt::format("ONNX shape inference failed on the exported model: {}", e.what()),
                  "this is a torch2onnx bug; please report it with the model");
    }
  }
}

void GraphBuilder::remove_dead_nodes() {
  // Converters must bind every output of an aten op (e.g. pooling indices) even when nothing
  // reads it; drop nodes and initializers that no graph output depends on. One reverse pass.
  auto *g = model_->mutable_graph();
  std::unordered_set<std::string> needed;
  for (const auto &o : g->output())
    needed.insert(o.name());
  std::vector<bool> keep(static_cast<size_t>(g->node_size()), false);
  for (int i = g->node_size() - 1; i >= 0; --i) {
    const auto &n = g->node(i);
    bool used = false;
    for (const auto &out : n.output())
      used = used || needed.count(out);
    if (!used)
      continue;
    keep[static_cast<size_t>(i)] = true;
    collect_reads(n, needed);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g->node_size(); ++i)
    if (keep[static_cast<size_t>(i)])
      nodes.Add()->Swap(g->mutable_node(i));
  g->mutable_node()->Swap(&nodes);
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  for (int i = 0; i < g->initializer_size(); ++i)
    if (needed.count(g->initializer(i).name()))
      inits.Add()->Swap(g->mutable_initializer(i));
  g->mutable_initializer()->Swap(&inits);
  constants_.clear(); // indices changed; constant_data is not used after finishing
  constant_cache_.clear();
}

std::string GraphBuilder::serialize_to_string(const SerializeOptions &opts) {
  finish(opts);
  take_borrowed();
  std::string out;
  T2O_CHECK(model_->SerializeToString(&out),
            "the model could not be serialized (protobuf models are limited to 2 GB)");
  return out;
}

bool GraphBuilder::save(const std::string &path, const SerializeOptions &opts) {
  progress_phase(Phase::Optimize);
  finish(opts);
  // A protobuf message cannot exceed 2 GB: larger models keep their weights in a side file
  // ("<file>.data", ONNX external data), which ONNX Runtime loads from beside the model.
  constexpr size_t kProtoLimit = (size_t{2} << 30) - (size_t{64} << 20);
  size_t size = model_->ByteSizeLong();
  for (const auto &[name, b] : borrowed_)
    size += b.size + 16;
  progress_phase(Phase::Serialize, ProgressUnit::Bytes, size);
  bool external = opts.external_data || size > kProtoLimit;
  if (external)
    external = externalize(path, opts.external_threshold);
  // Serialize straight into the file: no second in-memory copy of the weights; borrowed weights
  // go from LibTorch's memory into the file.
  // (An OUT.data left by an earlier export of OUT is removed when the export moves its files into
  // place: exporter/output_files.h.)
  write_file_atomic_with(path, [&](int fd) {
    if (!borrowed_.empty())
      return write_with_borrowed(fd);
    bool ok = model_->SerializeToFileDescriptor(fd);
    progress_advance(model_->ByteSizeLong());
    return ok;
  });
  return external;
}

bool GraphBuilder::externalize(const std::string &path, size_t threshold) {
  namespace fs = std::filesystem;
  std::string data_name = fs::path(path).filename().string() + ".data";
  std::string data_path = (fs::path(path).parent_path() / data_name).string();
  auto *g = model_->mutable_graph();
  std::vector<int> moved;
  for (int i = 0; i < g->initializer_size(); ++i)
    if (initializer_bytes(g->initializer(i)).size() >= threshold)
      moved.push_back(i);
  if (moved.empty())
    return false;
  // Offsets aligned to 4 KiB so runtimes can map the file.
  std::vector<std::pair<size_t, size_t>> where; // offset, length
  write_file_atomic_with(data_path, [&](int fd) {
    size_t offset = 0;
    static const std::string zeros(4096, '\0');
    for (int i : moved) {
      const std::string_view raw = initializer_bytes(g->initializer(i));
      size_t pad = (4096 - offset % 4096) % 4096;
      if (!write_all(fd, zeros.data(), pad) || !write_all_reporting(fd, raw.data(), raw.size()))
        return false;
      offset += pad;
      where.emplace_back(offset, raw.size());
      offset += raw.size();
    }
    return true;
  });
  for (size_t k = 0; k < moved.size(); ++k) {
    auto *t = g->mutable_initializer(moved[k]);
    t->clear_raw_data();
    borrowed_.erase(t->name()); // written: the file has it now
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char *key, const std::string &value) {
      auto *e = t->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    add("location", data_name);
    add("offset", std::to_string(where[k].first));
    add("length", std::to_string(where[k].second));
  }
  return true;
}

void save_tensor_proto(const std::string &path, const TensorData &data, const std::string &name) {
  std::string bytes;
  T2O_CHECK(to_proto(data, name).SerializeToString(&bytes), "cannot serialize tensor '{}'", name);
  write_file_atomic(path, bytes);
}

} // namespace torch2onnx
