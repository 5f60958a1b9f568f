// GraphBuilder's borrowed initializers (constant_borrowed): weights whose bytes stay in LibTorch's
// memory and are written from there into the ONNX file, never copied into the proto.
#include "builder/graph_builder.h"
#include "builder/progress.h"

#include <cerrno>
#include <onnx/onnx_pb.h>
#include <unistd.h>

namespace torch2onnx {

void GraphBuilder::mark_borrowed(bool on) {
  if (borrowed_.empty())
    return;
  for (auto &init : *model_->mutable_graph()->mutable_initializer()) {
    if (!borrowed_.count(init.name()))
      continue;
    init.clear_external_data();
    init.clear_data_location();
    if (!on)
      continue;
    init.set_data_location(onnx::TensorProto::EXTERNAL);
    auto *e = init.add_external_data();
    e->set_key("location");
    e->set_value("."); // a path that exists: the checker only looks for the file
  }
}

void GraphBuilder::take_borrowed() {
  for (auto &init : *model_->mutable_graph()->mutable_initializer()) {
    auto it = borrowed_.find(init.name());
    if (it != borrowed_.end())
      init.set_raw_data(it->second.data, it->second.size);
  }
  borrowed_.clear();
}

namespace {

void put_varint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

} // namespace

// Protobuf wire format, written by hand around the weights: the model's other fields, then its
// graph (field 7) as one length-delimited message: the graph without the borrowed initializers,
// followed by each of them as an initializer entry (field 5) whose raw_data (field 9) is written
// from the weight's memory. Parsers read fields in any order, so this is the same model.
bool GraphBuilder::write_with_borrowed(int fd) {
  auto *g = model_->mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept, lent;
  for (int i = 0; i < g->initializer_size(); ++i)
    (borrowed_.count(g->initializer(i).name()) ? lent : kept)
        .Add()
        ->Swap(g->mutable_initializer(i));
  g->mutable_initializer()->Swap(&kept);
  onnx::GraphProto graph;
  graph.Swap(g);
  model_->clear_graph();
  struct Restore {
    onnx::ModelProto &m;
    onnx::GraphProto &graph;
    google::protobuf::RepeatedPtrField<onnx::TensorProto> &lent;
    ~Restore() {
      m.mutable_graph()->Swap(&graph);
      for (auto &t : lent)
        m.mutable_graph()->add_initializer()->Swap(&t);
    }
  } restore{*model_, graph, lent};
  std::vector<std::string> heads;
  size_t graph_size = graph.ByteSizeLong();
  for (const auto &t : lent) {
    const size_t n = borrowed_.at(t.name()).size;
    std::string head = t.SerializeAsString();
    const size_t entry = head.size() + 1 + varint_size(n) + n;
    std::string prefix("\x2a"); // initializer, length-delimited
    put_varint(prefix, entry);
    head.insert(0, prefix);
    head.push_back('\x4a'); // raw_data, length-delimited
    put_varint(head, n);
    graph_size += head.size() + n;
    heads.push_back(std::move(head));
  }
  std::string start = model_->SerializeAsString();
  start.push_back('\x3a'); // graph, length-delimited
  put_varint(start, graph_size);
  if (!write_all(fd, start.data(), start.size()) || !graph.SerializeToFileDescriptor(fd))
    return false;
  progress_advance(start.size() + graph.ByteSizeLong());
  for (int i = 0; i < lent.size(); ++i) {
    const auto &b = borrowed_.at(lent.Get(i).name());
    if (!write_all(fd, heads[static_cast<size_t>(i)].data(),
                   heads[static_cast<size_t>(i)].size()) ||
        !write_all_reporting(fd, b.data, b.size))
      return false;
  }
  return true;
}

} // namespace torch2onnx
