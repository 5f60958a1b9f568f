// The weight path (docs/performance.md): large weights are borrowed from LibTorch and written
// straight into the file or its external data, each stored once; tied weights share one
// initializer; rewrites read borrowed bytes and let them go when a weight is replaced.
#include "builder/graph_builder.h"
#include "builder/optimize.h"
#include "exporter/frontend/torchscript/loader.h"
#include "exporter/frontend/torchscript/mapped_load.h"
#include "harness.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <onnx/onnx_pb.h>
#include <set>
#include <torch/script.h>

using namespace t2o_test;
using namespace torch2onnx;
namespace fs = std::filesystem;

namespace {

onnx::ModelProto read_model(const std::string &path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  REQUIRE(m.ParseFromIstream(&f));
  return m;
}

// An initializer's bytes: raw_data, or its range of the external-data file beside `model_path`.
std::string bytes_of(const onnx::TensorProto &t, const std::string &model_path) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL)
    return t.raw_data();
  std::string location;
  size_t offset = 0, length = 0;
  for (const auto &e : t.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if (e.key() == "offset")
      offset = std::stoull(e.value());
    else if (e.key() == "length")
      length = std::stoull(e.value());
  }
  std::ifstream f(fs::path(model_path).parent_path() / location, std::ios::binary);
  REQUIRE(f);
  std::string out(length, '\0');
  f.seekg(static_cast<std::streamoff>(offset));
  f.read(out.data(), static_cast<std::streamsize>(length));
  REQUIRE(f.gcount() == static_cast<std::streamsize>(length));
  return out;
}

std::string tensor_bytes(const at::Tensor &t) {
  at::Tensor c = t.contiguous();
  return std::string(static_cast<const char *>(c.data_ptr()), c.nbytes());
}

const onnx::TensorProto *find_init(const onnx::ModelProto &m, const std::string &name) {
  for (const auto &t : m.graph().initializer())
    if (t.name() == name)
      return &t;
  return nullptr;
}

} // namespace

TEST_CASE("weights: a tied embedding is one initializer and the export verifies", "[weights]") {
  const std::string dir = fresh_dir("weights_tied");
  for (bool external : {false, true}) {
    const std::string out = dir + (external ? "/ext.onnx" : "/inline.onnx");
    std::vector<std::string> args = {test_model("gpt2_tiny"), "-o",      out, "--input",
                                     "ids:i64[1,16]",         "--verify"};
    if (external)
      args.push_back("--external-data");
    auto r = run_cli(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK((r.err + r.out).find(") ok") != std::string::npos);
    CHECK(fs::exists(out + ".data") == external);
    auto m = read_model(out);
    // wte.weight [1000, 64] is read by the embedding's Gather and by the LM head: one initializer.
    size_t tied = 0;
    for (const auto &t : m.graph().initializer())
      tied += t.dims_size() == 2 && t.dims(0) == 1000 && t.dims(1) == 64;
    CHECK(tied == 1);
    const auto *wte = find_init(m, "wte.weight");
    REQUIRE(wte != nullptr);
    size_t readers = 0;
    for (const auto &n : m.graph().node())
      for (const auto &in : n.input())
        readers += in == "wte.weight";
    CHECK(readers >= 2);
    // No weight is stored twice and none is made by folding: the initializers hold at most the
    // module's own (distinct) tensors.
    torch::jit::Module module = torch::jit::load(test_model("gpt2_tiny"));
    std::set<const void *> seen;
    int64_t distinct = 0;
    for (const auto &p : module.named_parameters(true))
      if (seen.insert(p.value.data_ptr()).second)
        distinct += p.value.numel();
    int64_t stored = 0;
    for (const auto &t : m.graph().initializer()) {
      int64_t n = 1;
      for (auto d : t.dims())
        n *= d;
      if (n >= 1000) // weights, not the small shape constants
        stored += n;
    }
    CHECK(stored <= distinct);
    // The bytes in the file are LibTorch's.
    at::Tensor w = module.attr("wte").toModule().attr("weight").toTensor();
    CHECK(bytes_of(*wte, out) == tensor_bytes(w));
  }
}

TEST_CASE("weights: borrowed bytes are stored once and written as they are", "[weights]") {
  const std::string dir = fresh_dir("weights_borrowed");
  auto owner = std::make_shared<std::string>(64 << 10, '\0');
  for (size_t i = 0; i < owner->size(); ++i)
    (*owner)[i] = static_cast<char>(i * 7 + 3);
  std::weak_ptr<std::string> watch = owner;
  auto borrow = [&] {
    BorrowedBytes b;
    b.data = owner->data();
    b.size = owner->size();
    b.owner = owner;
    return b;
  };
  for (bool external : {false, true}) {
    GraphBuilder b(17);
    TensorInfo info{DType::Float, std::vector<Dim>{Dim::known(128), Dim::known(128)}};
    Val x = b.add_input("x", info);
    Val w1 = b.constant_borrowed(DType::Float, {128, 128}, borrow(), "w");
    Val w2 = b.constant_borrowed(DType::Float, {128, 128}, borrow(), "w_again");
    CHECK(w1.name == w2.name); // same contents: one initializer
    TensorData copy{DType::Float, {128, 128}, *owner};
    CHECK(b.constant(copy, "w_copy").name == w1.name); // a copied constant finds it too
    REQUIRE(b.constant_data(w1) != nullptr);
    CHECK(b.constant_data(w1)->raw == *owner);
    Val y = b.op1("MatMul", {x, b.op1("Transpose", {w1})});
    b.set_info(y, info);
    b.add_output(y, "y");
    SerializeOptions so;
    so.external_data = external;
    const std::string path = dir + (external ? "/ext.onnx" : "/inline.onnx");
    CHECK(b.save(path, so) == external);
    auto m = read_model(path);
    REQUIRE(m.graph().initializer_size() == 1);
    CHECK(bytes_of(m.graph().initializer(0), path) == *owner);
    CHECK(m.graph().initializer(0).name() == w1.name);
    CHECK(b.stats().parameter_bytes == owner->size());
    CHECK(m.graph().node_size() == 3); // Transpose, MatMul, the output's Identity
    // In memory too (serialize_to_string copies the borrowed bytes in).
    GraphBuilder c(17);
    Val cx = c.add_input("x", info);
    Val cy = c.op1("MatMul", {cx, c.constant_borrowed(DType::Float, {128, 128}, borrow())});
    c.set_info(cy, info);
    c.add_output(cy, "y");
    onnx::ModelProto again;
    REQUIRE(again.ParseFromString(c.serialize_to_string({})));
    CHECK(again.graph().initializer(0).raw_data() == *owner);
  }
  owner.reset();
  CHECK(watch.expired()); // the builders let go of it
}

TEST_CASE("weights: a rewrite reads borrowed weights and lets the replaced one go", "[weights]") {
  // Conv with a borrowed weight, then BatchNormalization: fold-conv-batchnorm reads the weight
  // through the builder and makes a new one; the old borrowed memory is released.
  const int64_t m = 8, c = 16, k = 3;
  auto owner = std::make_shared<std::vector<float>>(static_cast<size_t>(m * c * k * k), 0.5f);
  std::weak_ptr<std::vector<float>> watch = owner;
  GraphBuilder b(17);
  TensorInfo info{DType::Float,
                  std::vector<Dim>{Dim::known(1), Dim::known(c), Dim::known(8), Dim::known(8)}};
  Val x = b.add_input("x", info);
  BorrowedBytes w;
  w.data = reinterpret_cast<const char *>(owner->data());
  w.size = owner->size() * sizeof(float);
  w.owner = owner;
  Val wv = b.constant_borrowed(DType::Float, {m, c, k, k}, std::move(w), "conv.weight");
  Val y = b.op1("Conv", {x, wv});
  auto vec = [&](float v) {
    std::vector<float> data(static_cast<size_t>(m), v);
    TensorData d{
        DType::Float,
        {m},
        std::string(reinterpret_cast<const char *>(data.data()), data.size() * sizeof(float))};
    return b.constant(d, "bn");
  };
  Val z = b.op1("BatchNormalization", {y, vec(2.0f), vec(0.25f), vec(0.0f), vec(1.0f)});
  b.set_info(z, TensorInfo{DType::Float, std::vector<Dim>{Dim::known(1), Dim::known(m),
                                                          Dim::known(6), Dim::known(6)}});
  b.add_output(z, "z");
  owner.reset();
  OptimizeReport report;
  SerializeOptions so;
  b.finish_graph(so);
  b.rewrite([&](onnx::ModelProto &model) { report = optimize_model(model); });
  onnx::ModelProto out;
  REQUIRE(out.ParseFromString(b.serialize_to_string(so)));
  CHECK(report.applied["fold-conv-batchnorm"] == 1);
  CHECK(watch.expired());
  const onnx::TensorProto *folded = nullptr;
  for (const auto &t : out.graph().initializer())
    if (t.dims_size() == 4)
      folded = &t;
  REQUIRE(folded != nullptr);
  REQUIRE(folded->raw_data().size() == static_cast<size_t>(m * c * k * k) * sizeof(float));
  float first = 0;
  std::memcpy(&first, folded->raw_data().data(), sizeof(float));
  // 0.5 * 2 / sqrt(1 + 1e-5)
  CHECK(std::abs(first - 1.0f) < 1e-4f);
}

namespace {

// Every tensor the module holds (parameters and buffers, recursively), by name.
std::map<std::string, at::Tensor> module_tensors(const torch::jit::Module &m) {
  std::map<std::string, at::Tensor> out;
  for (const auto &p : m.named_parameters(true))
    out[p.name] = p.value;
  for (const auto &b : m.named_buffers(true))
    out[b.name] = b.value;
  return out;
}

} // namespace

TEST_CASE("weights: load maps the weights from the model file and equals LibTorch's load",
          "[weights]") {
  // zip64_gpt2_tiny: gpt2_tiny with its weights' records described the zip64 way (sizes and
  // offsets in the extra field), as past 4 GB of a file (models/make_test_models.py).
  for (const char *name : {"gpt2_tiny", "zip64_gpt2_tiny", "tiny_cnn", "nan_weights"}) {
    INFO(name);
    const std::string path = test_model(name);
    const std::string before = file_bytes(path);
    LoadedModel mapped = load_model(path);
    const uint64_t mapped_bytes = mapped.mapped_bytes;
    auto got = module_tensors(mapped.module);
    auto want = module_tensors(torch::jit::load(path));
    REQUIRE(got.size() == want.size());
    uint64_t large = 0; // bytes of the tensors large enough to be mapped (a page or more)
    std::set<const void *> seen;
    for (const auto &[n, t] : want) {
      INFO(n);
      REQUIRE(got.count(n));
      CHECK(got[n].sizes() == t.sizes());
      CHECK(got[n].dtype() == t.dtype());
      CHECK(tensor_bytes(got[n]) == tensor_bytes(t)); // bit for bit, NaN included
      if (seen.insert(t.storage().data()).second && t.storage().nbytes() >= 4096)
        large += t.storage().nbytes();
    }
    CHECK(mapped_bytes == large); // every large weight is the file's bytes, none copied
    // A weight changed in place changes this process's copy of the page, never the file.
    {
      torch::NoGradGuard no_grad;
      for (auto &[n, t] : got)
        if (t.is_floating_point())
          t.add_(1.0);
    }
    CHECK(file_bytes(path) == before);
    auto again = module_tensors(load_model(path).module);
    for (const auto &[n, t] : want)
      CHECK(tensor_bytes(again[n]) == tensor_bytes(t));
  }
}

TEST_CASE("weights: TORCH2ONNX_LOAD=copy loads with LibTorch and exports the same bytes",
          "[weights]") {
  const std::string dir = fresh_dir("weights_load_copy");
  std::vector<std::string> args = {test_model("gpt2_tiny"), "--input", "ids:i64[1,16]", "-o"};
  auto mapped_args = args, copied_args = args;
  mapped_args.push_back(dir + "/mapped.onnx");
  copied_args.push_back(dir + "/copied.onnx");
  REQUIRE(run_cli(mapped_args).exit_code == 0);
  ::setenv("TORCH2ONNX_LOAD", "copy", 1);
  auto r = run_cli(copied_args);
  ::unsetenv("TORCH2ONNX_LOAD");
  REQUIRE(r.exit_code == 0);
  CHECK(file_bytes(dir + "/mapped.onnx") == file_bytes(dir + "/copied.onnx"));
  // In this process too: nothing is mapped.
  ::setenv("TORCH2ONNX_LOAD", "copy", 1);
  LoadedModel m = load_model(test_model("tiny_cnn"));
  ::unsetenv("TORCH2ONNX_LOAD");
  CHECK(m.mapped_bytes == 0);
}
