// Quantized models (aten_lib/quantized.cpp, aten_lib/fake_quantize.cpp, docs/quantized.md): each
// converter is exported through the CLI inside a small scripted model of
// models/make_quantized_ops.py and checked against Python's own outputs of the saved file
// (--expected-outputs) and LibTorch's (--verify), at its lowest opset and the default; the report
// must show the op was walked. Whole models (torchvision's quantized builders, eager, FX, QAT,
// dynamic) run as ctest zoo:quantized_ci (models/zoo/quantized_ci.yaml).
#include "harness.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

using namespace t2o_test;
using json = nlohmann::json;

namespace {

std::string fixture(const std::string &name) {
  return std::string(T2O_QUANTIZED_OPS) + "/" + name;
}

struct Model {
  std::vector<std::string> inputs;
  int lowest_opset = 11;
};

const std::map<std::string, Model> &models() {
  static const std::map<std::string, Model> m = {
      {"functional", {{"x:f32[2,4,6,6]", "y:f32[2,4,6,6]"}, 12}}, // quantized::celu: Celu (12)
      {"packed", {{"x:f32[2,4,6,6]"}, 11}},
      {"per_channel", {{"x:f32[2,4,6,6]"}, 13}}, // per-axis DequantizeLinear
      {"fake", {{"x:f32[2,4,6,6]"}, 11}},
      {"rnn", {{"x:f32[2,5,8]"}, 11}},
      {"rnn_packed", {{"x:f32[3,7,8]", "lengths:i64[3]"}, 11}},
      {"rnn_cells", {{"x:f32[2,8]", "h:f32[2,6]", "c:f32[2,6]"}, 11}},
      {"embedding", {{"ids:i64[2,5]", "bag_ids:i64[9]", "offsets:i64[4]", "weights:f32[9]"}, 11}},
  };
  return m;
}

// The report of `model` exported at `opset` with --verify and Python's outputs, once per run of
// this executable (every op of a model shares its export).
const json &exported(const std::string &model, int opset) {
  static std::map<std::pair<std::string, int>, json> done;
  auto key = std::make_pair(model, opset);
  auto it = done.find(key);
  if (it != done.end())
    return it->second;
  std::string dir = fresh_dir("quantized_" + model + "_" + std::to_string(opset));
  std::vector<std::string> args = {fixture(model + ".pt"),
                                   "-o",
                                   dir + "/m.onnx",
                                   "--opset",
                                   std::to_string(opset),
                                   "--verify",
                                   "--input-data",
                                   fixture(model + ".inputs.pt"),
                                   "--expected-outputs",
                                   fixture(model + ".expected.pt"),
                                   "--report",
                                   dir + "/r.json"};
  for (const auto &spec : models().at(model).inputs) {
    args.push_back("--input");
    args.push_back(spec);
  }
  CliResult r = run_cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return done.emplace(key, json::parse(file_bytes(dir + "/r.json"))).first->second;
}

// Exports `model` at its lowest opset and at 17; both must pass and walk `op`.
void check_op(const std::string &op, const std::string &model) {
  for (int opset : {models().at(model).lowest_opset, 17}) {
    INFO(op << " in " << model << " at opset " << opset);
    const json &r = exported(model, opset);
    CHECK(r["ops"].contains(op));
    CHECK(r["verify"]["ok"].get<bool>());
    CHECK(r["expected"]["ok"].get<bool>());
  }
}

} // namespace

TEST_CASE("quantized::conv1d", "[quantized]") {
  check_op("quantized::conv1d", "packed");
}
TEST_CASE("quantized::conv1d_relu", "[quantized]") {
  check_op("quantized::conv1d_relu", "packed");
}
TEST_CASE("quantized::conv2d", "[quantized]") {
  check_op("quantized::conv2d", "packed");
  check_op("quantized::conv2d", "per_channel");
}
TEST_CASE("quantized::conv2d_relu", "[quantized]") {
  check_op("quantized::conv2d_relu", "packed");
}
TEST_CASE("quantized::conv3d", "[quantized]") {
  check_op("quantized::conv3d", "packed");
}
TEST_CASE("quantized::conv3d_relu", "[quantized]") {
  check_op("quantized::conv3d_relu", "packed");
}
TEST_CASE("quantized::conv_transpose1d", "[quantized]") {
  check_op("quantized::conv_transpose1d", "packed");
}
TEST_CASE("quantized::conv_transpose2d", "[quantized]") {
  check_op("quantized::conv_transpose2d", "packed");
}
TEST_CASE("quantized::conv_transpose3d", "[quantized]") {
  check_op("quantized::conv_transpose3d", "packed");
}
TEST_CASE("quantized::linear", "[quantized]") {
  check_op("quantized::linear", "packed");
  check_op("quantized::linear", "per_channel");
}
TEST_CASE("quantized::linear_relu", "[quantized]") {
  check_op("quantized::linear_relu", "packed");
}
TEST_CASE("quantized::linear_dynamic", "[quantized]") {
  check_op("quantized::linear_dynamic", "packed"); // with and without reduce_range
}

TEST_CASE("quantized::add", "[quantized]") {
  check_op("quantized::add", "functional");
}
TEST_CASE("quantized::add_relu", "[quantized]") {
  check_op("quantized::add_relu", "functional");
}
TEST_CASE("quantized::add_scalar", "[quantized]") {
  check_op("quantized::add_scalar", "functional");
}
TEST_CASE("quantized::add_scalar_relu", "[quantized]") {
  check_op("quantized::add_scalar_relu", "functional");
}
TEST_CASE("quantized::mul", "[quantized]") {
  check_op("quantized::mul", "functional");
}
TEST_CASE("quantized::mul_relu", "[quantized]") {
  check_op("quantized::mul_relu", "functional");
}
TEST_CASE("quantized::mul_scalar", "[quantized]") {
  check_op("quantized::mul_scalar", "functional");
}
TEST_CASE("quantized::mul_scalar_relu", "[quantized]") {
  check_op("quantized::mul_scalar_relu", "functional");
}
TEST_CASE("quantized::cat", "[quantized]") {
  check_op("quantized::cat", "functional");
}
TEST_CASE("quantized::cat_relu", "[quantized]") {
  check_op("quantized::cat_relu", "functional");
}
TEST_CASE("quantized::hardswish", "[quantized]") {
  check_op("quantized::hardswish", "functional");
}
TEST_CASE("quantized::sigmoid", "[quantized]") {
  check_op("quantized::sigmoid", "functional");
}
TEST_CASE("quantized::leaky_relu", "[quantized]") {
  check_op("quantized::leaky_relu", "functional");
}
TEST_CASE("quantized::relu6", "[quantized]") {
  check_op("quantized::relu6", "functional");
}
TEST_CASE("quantized::elu", "[quantized]") {
  check_op("quantized::elu", "functional");
}
TEST_CASE("quantized::celu", "[quantized]") {
  check_op("quantized::celu", "functional");
}
TEST_CASE("quantized::clamp", "[quantized]") {
  check_op("quantized::clamp", "functional");
}
TEST_CASE("quantized::softmax", "[quantized]") {
  check_op("quantized::softmax", "functional");
}
TEST_CASE("quantized::dropout", "[quantized]") {
  check_op("quantized::dropout", "functional");
}
TEST_CASE("quantized::matmul", "[quantized]") {
  check_op("quantized::matmul", "functional");
}
TEST_CASE("quantized::prelu", "[quantized]") {
  check_op("quantized::prelu", "functional");
}
TEST_CASE("quantized::threshold", "[quantized]") {
  check_op("quantized::threshold", "functional");
}
TEST_CASE("quantized::max_pool2d", "[quantized]") {
  check_op("quantized::max_pool2d", "functional");
}
TEST_CASE("quantized::max_pool1d", "[quantized]") {
  check_op("quantized::max_pool1d", "functional");
}
TEST_CASE("quantized::batch_norm", "[quantized]") {
  for (const char *op :
       {"quantized::batch_norm", "quantized::batch_norm_relu", "quantized::batch_norm1d",
        "quantized::batch_norm1d_relu", "quantized::batch_norm2d", "quantized::batch_norm2d_relu",
        "quantized::batch_norm3d", "quantized::batch_norm3d_relu"})
    check_op(op, "functional");
}
TEST_CASE("quantized::layer_norm", "[quantized]") {
  check_op("quantized::layer_norm", "functional");
}
TEST_CASE("quantized::group_norm", "[quantized]") {
  check_op("quantized::group_norm", "functional");
}
TEST_CASE("quantized::instance_norm", "[quantized]") {
  check_op("quantized::instance_norm", "functional");
}

TEST_CASE("aten::quantize_per_tensor", "[quantized]") {
  check_op("aten::quantize_per_tensor", "functional");
}
TEST_CASE("aten::quantize_per_channel", "[quantized]") {
  check_op("aten::quantize_per_channel", "per_channel");
}
TEST_CASE("aten::quantize_per_tensor_dynamic", "[quantized]") {
  check_op("aten::quantize_per_tensor_dynamic", "functional");
}
TEST_CASE("aten::dequantize", "[quantized]") {
  check_op("aten::dequantize", "functional");
}
TEST_CASE("aten::int_repr", "[quantized]") {
  check_op("aten::int_repr", "functional");
}
TEST_CASE("aten::q_scale", "[quantized]") {
  check_op("aten::q_scale", "functional");
  check_op("aten::q_zero_point", "functional");
}
TEST_CASE("aten::quantized_batch_norm", "[quantized]") {
  check_op("aten::quantized_batch_norm", "functional");
}
TEST_CASE("aten::quantized_max_pool2d", "[quantized]") {
  check_op("aten::quantized_max_pool2d", "functional");
  check_op("aten::quantized_max_pool1d", "functional");
}
TEST_CASE("aten::fake_quantize_per_tensor_affine", "[quantized]") {
  check_op("aten::fake_quantize_per_tensor_affine", "fake"); // uint8, int8, 4-bit, tensor qparams
  check_op("aten::_fake_quantize_learnable_per_tensor_affine", "fake");
}
TEST_CASE("aten::fake_quantize_per_channel_affine", "[quantized]") {
  check_op("aten::fake_quantize_per_channel_affine", "fake"); // arithmetic at 11, QDQ from 13
  check_op("aten::_fake_quantize_learnable_per_channel_affine", "fake");
}
TEST_CASE("aten::fused_moving_avg_obs_fake_quant", "[quantized]") {
  check_op("aten::fused_moving_avg_obs_fake_quant", "fake");
}

TEST_CASE("aten::quantized_lstm", "[quantized]") {
  check_op("aten::quantized_lstm", "rnn"); // bidirectional, time-major
}
TEST_CASE("aten::quantized_gru", "[quantized]") {
  check_op("aten::quantized_gru", "rnn"); // 2 layers, batch-first
}

TEST_CASE("quantized::embedding_byte", "[quantized]") {
  check_op("quantized::embedding_byte", "embedding");
}
TEST_CASE("quantized::embedding_bag_4bit", "[quantized]") {
  // a 4-bit EmbeddingBag: two values a byte in LibTorch, float16 scales and biases
  check_op("quantized::embedding_bag_4bit", "embedding");
}
TEST_CASE("quantized::embedding_bag_byte", "[quantized]") {
  // sum with per-sample weights and an empty bag, 2-D indices without offsets,
  // include_last_offset (with mode 1, which LibTorch's kernel ignores: it sums)
  check_op("quantized::embedding_bag_byte", "embedding");
  // The tables stay 8-bit: about a byte per parameter (the per-row scales and biases add some),
  // where float tables would take 4.
  const json &r = exported("embedding", 17);
  double bytes = r["graph"]["parameter_bytes"].get<double>();
  double params = r["graph"]["parameters"].get<double>();
  CHECK(bytes < 2 * params);
}

TEST_CASE("quantized::quantized_lstm_cell_dynamic", "[quantized]") {
  check_op("quantized::quantized_lstm_cell_dynamic", "rnn_cells");
}
TEST_CASE("quantized::quantized_gru_cell_dynamic", "[quantized]") {
  check_op("quantized::quantized_gru_cell_dynamic", "rnn_cells");
}
TEST_CASE("quantized::quantized_rnn_tanh_cell_dynamic", "[quantized]") {
  check_op("quantized::quantized_rnn_tanh_cell_dynamic", "rnn_cells");
}
TEST_CASE("quantized::quantized_rnn_relu_cell_dynamic", "[quantized]") {
  check_op("quantized::quantized_rnn_relu_cell_dynamic", "rnn_cells");
}

TEST_CASE("aten::quantized_lstm and quantized_gru on packed sequences", "[quantized]") {
  // lengths 7, 3, 5 unsorted; a 2-layer bidirectional LSTM, then a GRU on its packed output
  check_op("aten::quantized_lstm", "rnn_packed");
  check_op("aten::quantized_gru", "rnn_packed");
}

TEST_CASE("aten::quantized_lstm and quantized_gru over a symbolic sequence length: an ONNX Loop, "
          "verified at other lengths",
          "[quantized]") {
  // The rnn fixture's time dim symbolic: its steps run in a Loop (the fixed length unrolls them).
  // --verify compares with LibTorch at the example length 5, the second recording's length and
  // length 1 (a Loop of one step); Python's outputs at length 5 too.
  for (int opset : {11, 17}) {
    INFO("opset " << opset);
    std::string dir = fresh_dir("quantized_rnn_seq_" + std::to_string(opset));
    CliResult r =
        run_cli({fixture("rnn.pt"), "-o", dir + "/m.onnx", "--opset", std::to_string(opset),
                 "--input", "x:f32[2,t=5,8]", "--input-data", fixture("rnn.inputs.pt"),
                 "--expected-outputs", fixture("rnn.expected.pt"), "--verify", "--verify-dims",
                 "t=1", "--report", dir + "/r.json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    json j = json::parse(file_bytes(dir + "/r.json"));
    CHECK(j["expected"]["ok"].get<bool>());
    const auto &sets = j["verify"]["data_sets"];
    REQUIRE(sets.size() == 3);
    std::set<int> lengths;
    for (const auto &set : sets) {
      CHECK(set["ok"].get<bool>());
      lengths.insert(set["sizes"]["t"].get<int>());
    }
    CHECK(lengths.size() == 3); // 5, the second recording's and 1
    CHECK(lengths.count(1) == 1);
    // bidirectional LSTM (2 directions) + 2-layer GRU: 4 Loops; the steps are not unrolled.
    CHECK(j["ops"]["aten::quantized_lstm"]["onnx"]["Loop"] == 2);
    CHECK(j["ops"]["aten::quantized_gru"]["onnx"]["Loop"] == 2);
  }
}

TEST_CASE("quantized: per-channel weights below opset 13 are a clear error", "[quantized]") {
  std::string dir = fresh_dir("quantized_per_channel_12");
  CliResult r = run_cli({fixture("per_channel.pt"), "-o", dir + "/m.onnx", "--input",
                         "x:f32[2,4,6,6]", "--opset", "12"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  // The model also calls quantize_per_channel (from 13): named first, with the opset to use.
  CHECK(r.err.find("aten::quantize_per_channel") != std::string::npos);
  CHECK(r.err.find("--opset 13") != std::string::npos);
  CHECK(!std::filesystem::exists(dir + "/m.onnx"));
  // Only a per-channel weight: the weight is named, with what to do.
  CliResult w = run_cli({fixture("per_channel_conv.pt"), "-o", dir + "/w.onnx", "--input",
                         "x:f32[2,4,6,6]", "--opset", "12"});
  INFO(w.out << w.err);
  CHECK(w.exit_code == 1);
  CHECK(w.err.find("one scale per channel") != std::string::npos);
  CHECK(w.err.find("export with --opset 13") != std::string::npos);
  CHECK(!std::filesystem::exists(dir + "/w.onnx"));
  CHECK(run_cli({fixture("per_channel_conv.pt"), "-o", dir + "/w.onnx", "--input", "x:f32[2,4,6,6]",
                 "--opset", "13", "--verify"})
            .exit_code == 0);
}

TEST_CASE("quantized: the file holds int8 weights and QDQ pairs, and --verify reports steps",
          "[quantized]") {
  std::string dir = fresh_dir("quantized_file");
  CliResult r = run_cli({fixture("packed.pt"), "-o", dir + "/m.onnx", "--input", "x:f32[2,4,6,6]",
                         "--verify", "-v", "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Output 0 is quantized::conv1d's (scale 0.05): a quantized output, compared in its steps.
  CHECK(r.out.find("quantized output (step 0.05)") != std::string::npos);
  json j = json::parse(file_bytes(dir + "/r.json"));
  const json &out0 = j["verify"]["data_sets"][0]["outputs"][0];
  CHECK(out0["quantization_step"].get<double>() == Approx(0.05));
  CHECK(out0["beyond_one_step"].get<int64_t>() == 0);
  const json &onnx = j["ops"]["quantized::conv2d"]["onnx"];
  CHECK(onnx.contains("Conv"));
  CHECK(onnx.contains("QuantizeLinear"));
  CHECK(onnx.contains("DequantizeLinear"));
}

TEST_CASE("quantized: --quantized-bias int32 writes conv biases as int32 DequantizeLinear",
          "[quantized]") {
  // packed: conv1d (its input reshaped after the DequantizeLinear: kept float), conv2d and conv3d
  // (int32); per_channel: a conv with one weight scale per output channel (an int32 bias with one
  // scale per channel, axis 0). Both still match Python's outputs.
  struct Case {
    const char *model;
    size_t int32_biases, kept;
  };
  for (const Case &c : {Case{"packed", 2, 1}, Case{"per_channel", 1, 0}}) {
    INFO(c.model);
    std::string dir = fresh_dir(std::string("quantized_int32_bias_") + c.model);
    CliResult r = run_cli({fixture(std::string(c.model) + ".pt"), "-o", dir + "/m.onnx", "--input",
                           "x:f32[2,4,6,6]", "--opset", "13", "--quantized-bias", "int32",
                           "--verify", "--input-data", fixture(std::string(c.model) + ".inputs.pt"),
                           "--expected-outputs", fixture(std::string(c.model) + ".expected.pt")});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.err, fmt::format("{} bias{} of quantized Conv/Gemm written as int32",
                                      c.int32_biases, c.int32_biases == 1 ? "" : "es")));
    CHECK(contains(r.err, fmt::format("{} kept float", c.kept)) == (c.kept > 0));
    CliResult show = run_cli({"show", dir + "/m.onnx"});
    REQUIRE(show.exit_code == 0);
    size_t int32_dq = 0, conv_reads = 0;
    std::istringstream lines(show.out);
    for (std::string line; std::getline(lines, line);) {
      if (contains(line, "DequantizeLinear(") && contains(line, ": i32[6]"))
        ++int32_dq;
      if (contains(line, " Conv(") && contains(line, "_dequantized"))
        ++conv_reads;
    }
    CHECK(int32_dq == c.int32_biases);
    CHECK(conv_reads == c.int32_biases);
    if (std::string(c.model) == "per_channel")
      CHECK(contains(show.out, "_int32_scale: f32[6]"));
  }
  CliResult bad = run_cli({fixture("packed.pt"), "-o", fresh_dir("quantized_bias_bad") + "/m.onnx",
                           "--input", "x:f32[2,4,6,6]", "--quantized-bias", "int8"});
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "--quantized-bias 'int8'"));
}
