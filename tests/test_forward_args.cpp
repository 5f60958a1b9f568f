// Issue 12 parts 1, 2 and 5: forward arguments that are not plain tensors (Optional, numbers,
// lists, tuples, defaults), example values from files (--input-data) and value ranges, module
// attributes freezing leaves behind (a KV cache), -inf masks. Each export is verified in ONNX
// Runtime against LibTorch. Fixtures: models/make_argument_models.py (T2O_ARGUMENT_MODELS).
#include "builder/error.h"
#include "builder/graph_builder.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/input_data.h"
#include "exporter/options.h"
#include "harness.h"

#include <ATen/ATen.h>
#include <catch2/catch.hpp>
#include <filesystem>

using namespace t2o_test;
namespace fs = std::filesystem;
using torch2onnx::InputSpec;
using torch2onnx::parse_input_spec;

namespace {

std::string arg_model(const std::string &name) {
  return (fs::path(T2O_ARGUMENT_MODELS) / name).string();
}

// The tensor --verify wrote as input K of its first test-data set beside `onnx`.
at::Tensor test_input(const std::string &onnx, int k) {
  fs::path dir = fs::path(onnx).replace_extension("") / "test_data_set_0";
  return torch2onnx::from_tensor_data(
      torch2onnx::load_tensor_proto((dir / fmt::format("input_{}.pb", k)).string()));
}

CliResult export_ok(const std::vector<std::string> &args) {
  auto r = run_cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "verified in ONNX Runtime"));
  return r;
}

// Exporting `model` with `inputs` fails (exit `code`, any non-zero when -1) with `message` and
// writes no file.
void check_refused(const std::string &model, const std::vector<std::string> &inputs,
                   const std::string &message, const std::string &dir, int code = 1) {
  INFO(inputs.back());
  std::vector<std::string> args = {arg_model(model), "-o", dir + "/bad.onnx"};
  for (const auto &i : inputs)
    args.insert(args.end(), {"--input", i});
  auto r = run_cli(args);
  CHECK((code < 0 ? r.exit_code != 0 : r.exit_code == code));
  CHECK(contains(r.err, message));
  CHECK_FALSE(fs::exists(dir + "/bad.onnx"));
}

} // namespace

TEST_CASE("forward args: input specs for lists numbers none and value ranges", "[args]") {
  using K = InputSpec::Kind;
  CHECK(parse_input_spec("mask:none").kind == K::None);
  CHECK(parse_input_spec("default").kind == K::Default);
  auto i = parse_input_spec("k:3");
  CHECK((i.kind == K::Int && i.number == 3 && i.name == "k"));
  auto f = parse_input_spec("-0.25");
  CHECK((f.kind == K::Float && f.number == -0.25));
  CHECK(parse_input_spec("3.0").str() == "3.0"); // stays a float when printed
  CHECK(parse_input_spec("flag:true").number == 1);
  auto l = parse_input_spec("xs:[f32[2,3],f32[b=2,5]]");
  REQUIRE(l.kind == K::Sequence);
  REQUIRE(l.elements.size() == 2);
  CHECK(l.elements[1].dims[0].symbol == "b");
  CHECK(l.str() == "xs:[f32[2,3],f32[b=2,5]]");
  auto r = parse_input_spec("ids:i64[1,128]:0..50256");
  CHECK((r.has_range && r.low == 0 && r.high == 50256));
  CHECK(r.str() == "ids:i64[1,128]:0..50256");
  CHECK(parse_input_spec("x:f32[2]:-1.5..2").str() == "x:f32[2]:-1.5..2.0");
  // Today's syntax is unchanged.
  CHECK(parse_input_spec("x:f32[batch=1,3,224,224]").str() == "x:f32[batch=1,3,224,224]");
  struct Bad {
    const char *spec, *message;
  };
  for (const Bad &b :
       {Bad{"ids:i64[2]:5..1", "is empty"}, Bad{"ids:i64[2]:0.5..3", "integer"},
        Bad{"i32[]:8..8777787777777777777775770561315516", "does not fit i32"},
        Bad{"p:u8[4]:-1..3", "does not fit u8"}, Bad{"m:bool[2]:0..1", "no value range"},
        Bad{"x:f32[2]:a..b", "LO..HI"}, Bad{"xs:[f32[2],none]", "not a tensor spec"},
        Bad{"xs:[f32[2]", "unbalanced"}, Bad{"x:f32[2]junk", "after the dims"}}) {
    INFO(b.spec);
    try {
      parse_input_spec(b.spec);
      FAIL("accepted");
    } catch (const torch2onnx::Error &e) {
      CHECK(contains(e.what(), b.message));
    }
  }
  // A name alone takes the size it has in another spec (a KV cache's batch and past length).
  std::vector<InputSpec> specs = {
      parse_input_spec("ids:i64[batch=2,seq=5]"),
      parse_input_spec("kv:[f32[batch,4,past=7,16],f32[batch,4,past,16]]")};
  torch2onnx::resolve_dim_names(specs);
  CHECK(specs[1].str() == "kv:[f32[batch=2,4,past=7,16],f32[batch=2,4,past=7,16]]");
  std::vector<InputSpec> unsized = {parse_input_spec("x:f32[batch,3]")};
  try {
    torch2onnx::resolve_dim_names(unsized);
    FAIL("accepted");
  } catch (const torch2onnx::Error &e) {
    CHECK(contains(e.what(), "dimension 'batch' has no size"));
  }
}

TEST_CASE("forward args: optional arguments take defaults or given values", "[args]") {
  std::string dir = fresh_dir("args_optional");
  std::string model = arg_model("optional_args.pt");
  SECTION("left out: mask None, scale 1.0, use_norm True; the If on them is gone") {
    std::string out = dir + "/default.onnx";
    export_ok({model, "-o", out, "--input", "x:f32[2,5,16]", "--verify"});
    CHECK(onnx_input_names(out) == std::vector<std::string>{"x"});
  }
  SECTION("a mask tensor, a float and a bool, with symbolic dims") {
    std::string out = dir + "/given.onnx";
    auto r =
        export_ok({model, "-o", out, "--input", "x:f32[b=2,t=5,16]", "--input",
                   "mask:bool[b=2,t=5]", "--input", "0.5", "--input", "false", "--verify", "-v"});
    CHECK(onnx_input_names(out) == std::vector<std::string>{"x", "mask"});
    CHECK(contains(r.err, "fixed as constants in the ONNX model: scale=0.5, use_norm=False"));
    CHECK(contains(r.out, "(2 sets)"));
  }
  SECTION("none explicitly, default to skip an argument") {
    std::string out = dir + "/none.onnx";
    export_ok({model, "-o", out, "--input", "x:f32[2,5,16]", "--input", "none", "--input",
               "default", "--input", "false", "--verify"});
    CHECK(onnx_input_names(out) == std::vector<std::string>{"x"});
  }
}

TEST_CASE("forward args: an Optional[Tensor] output is a tensor or left out when None", "[args]") {
  std::string dir = fresh_dir("args_optional_output");
  std::string model = arg_model("optional_lengths.pt");
  SECTION("lengths given: the output lengths are the second ONNX output") {
    std::string out = dir + "/given.onnx";
    auto r = export_ok(
        {model, "-o", out, "--input", "x:f32[2,4,9]", "--input", "lengths:i64[2]", "--verify"});
    CHECK(contains(r.out, "verify output_1"));
  }
  SECTION("lengths left out: that output is None and left out, with a warning") {
    std::string out = dir + "/none.onnx";
    auto r = export_ok({model, "-o", out, "--input", "x:f32[2,4,9]", "--verify", "-v"});
    CHECK(contains(r.err, "forward returns None"));
    CHECK(contains(r.err, "it is not an ONNX output"));
    CHECK_FALSE(contains(r.out, "verify output_1"));
  }
}

TEST_CASE("forward args: arguments the model cannot take are clear errors", "[args]") {
  std::string dir = fresh_dir("args_errors");
  std::string out = dir + "/m.onnx";
  struct Case {
    std::vector<std::string> args;
    int code;
    const char *message;
  } cases[] = {
      {{arg_model("optional_args.pt"), "--input", "x:none"}, 1, "argument 'x' (Tensor) cannot be"},
      {{arg_model("optional_args.pt"), "--input", "x:f32[2,5,16]", "--input", "3"},
       1,
       "argument 'mask' (Optional[Tensor]) cannot take the Int 3"},
      {{arg_model("optional_args.pt"), "--input", "x:f32[2,5,16]", "--input", "default", "--input",
        "f32[1]"},
       1,
       "argument 'scale' (float) is not a tensor"},
      {{arg_model("pooled_text.pt"), "--input", "ids:i64[4,12]"},
       2,
       "needs argument 'lengths' (Tensor), which has no default"},
  };
  for (auto &c : cases) {
    c.args.insert(c.args.end(), {"-o", out});
    auto r = run_cli(c.args);
    INFO(r.err);
    CHECK(r.exit_code == c.code);
    CHECK(contains(r.err, c.message));
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("forward args: module attributes forward assigns are values within a call", "[args]") {
  // Hugging Face's rotary cache grows in forward when the sequence is longer than it (a branch
  // assigning three attributes), which was refused. At 5 positions the cache is sliced, at 40 it
  // is recomputed: one file (the example sizes do not matter) matches Python at both.
  std::string dir = fresh_dir("args_assigned");
  std::vector<std::string> files;
  for (const char *t : {"5", "40"}) {
    std::string out = dir + "/rotary" + t + ".onnx";
    auto r = export_ok({arg_model("rotary_cache.pt"), "-o", out, "--input-data",
                        arg_model(std::string("rotary_cache.inputs") + t + ".pt"), "--input",
                        "x:f32[b=2,t,8]", "--expected-outputs",
                        arg_model(std::string("rotary_cache.expected") + t + ".pt"), "--verify",
                        "--verify-dims", "t=33"});
    CHECK(contains(r.err, "forward assigns module attributes cos_cached, max_seq_len_cached"));
    files.push_back(file_bytes(out));
  }
  CHECK(files[0] == files[1]);
  // A call counter used in the output: every call of the file is a fresh module's first call,
  // and so is each of --verify's LibTorch runs (the attribute is restored between them).
  auto r = export_ok({arg_model("counts_calls.pt"), "-o", dir + "/counts.onnx", "--input-data",
                      arg_model("counts_calls.inputs.pt"), "--input", "x:f32[n]",
                      "--expected-outputs", arg_model("counts_calls.expected.pt"), "--verify"});
  CHECK(contains(r.err, "forward assigns module attribute calls"));
}

TEST_CASE("forward args: a model that needs meaningful values runs on --input-data", "[args]") {
  std::string dir = fresh_dir("args_data");
  std::string model = arg_model("pooled_text.pt");
  at::Tensor ids = torch2onnx::read_npy(arg_model("pooled_text.ids.npy"));
  at::Tensor lengths = torch2onnx::read_npy(arg_model("pooled_text.lengths.npy"));
  SECTION("random values fail in LibTorch, with the model's own message") {
    auto r = run_cli({model, "-o", dir + "/random.onnx", "--input", "ids:i64[4,12]", "--input",
                      "lengths:i64[4]", "--verify"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "ValueError: lengths must be sorted in decreasing order"));
    CHECK(contains(r.err, "--input-data"));
    CHECK_FALSE(fs::exists(dir + "/random.onnx"));
  }
  SECTION("one .npy per argument: the data is test_data_set_0") {
    std::string out = dir + "/npy.onnx";
    export_ok({model, "-o", out, "--input-data", arg_model("pooled_text.ids.npy"), "--input-data",
               arg_model("pooled_text.lengths.npy"), "--verify"});
    CHECK(at::equal(test_input(out, 0), ids));
    CHECK(at::equal(test_input(out, 1), lengths));
    // The .pb files --verify wrote are input data too.
    std::string again = dir + "/pb.onnx";
    fs::path set0 = fs::path(out).replace_extension("") / "test_data_set_0";
    export_ok({model, "-o", again, "--input-data", (set0 / "input_0.pb").string(), "--input-data",
               (set0 / "input_1.pb").string(), "--verify"});
    CHECK(at::equal(test_input(again, 1), lengths));
  }
  SECTION("one file for all arguments: .npz by name or in order, a torch.save'd tuple or dict") {
    for (const char *file : {"pooled_text.named.npz", "pooled_text.ordered.npz",
                             "pooled_text.tuple.pt", "pooled_text.dict.pt"}) {
      INFO(file);
      std::string out = dir + "/all.onnx";
      export_ok({model, "-o", out, "--input-data", arg_model(file), "--verify"});
      CHECK(at::equal(test_input(out, 0), ids));
      CHECK(at::equal(test_input(out, 1), lengths));
    }
  }
  SECTION("a spec adds names and symbolic dims and must agree with the data") {
    std::string out = dir + "/named.onnx";
    auto r = export_ok({model, "-o", out, "--input", "tokens:i64[4,t=12]", "--input-data",
                        arg_model("pooled_text.named.npz"), "--verify", "--verify-dims", "t=7"});
    CHECK(contains(r.out, "(3 sets)"));
    CHECK(onnx_input_names(out) == std::vector<std::string>{"tokens", "lengths"});
    auto bad = run_cli({model, "-o", dir + "/bad.onnx", "--input", "ids:i32[4,12]", "--input-data",
                        arg_model("pooled_text.named.npz")});
    CHECK(bad.exit_code == 1);
    CHECK(contains(bad.err, "dtype i32 vs i64 (the data is i64[4,12])"));
    CHECK_FALSE(fs::exists(dir + "/bad.onnx"));
  }
  SECTION("a dim named alone takes the data's size") {
    std::string out = dir + "/bare.onnx";
    auto r = export_ok({model, "-o", out, "--input", "ids:i64[4,t]", "--input-data",
                        arg_model("pooled_text.named.npz"), "--verify", "--verify-dims", "t=7"});
    CHECK(contains(r.out, "[t=12]"));
    CHECK(at::equal(test_input(out, 0), ids));
    // A symbolic batch: the second recording size runs on random lengths, which this model
    // refuses (unsorted); the hint says so besides the traced-size cause.
    auto second = run_cli({model, "-o", dir + "/second.onnx", "--input", "ids:i64[n,t]", "--input",
                           "lengths:i64[n]", "--input-data", arg_model("pooled_text.named.npz")});
    CHECK(second.exit_code == 1);
    CHECK(contains(second.err, "runs at the example sizes but fails at n="));
    CHECK(contains(second.err, "meaningful values in ids, lengths"));
    CHECK(contains(second.err, "--input ids:i64[...]:0..9"));
    // One name is one size: the data must agree with itself.
    auto bad = run_cli({model, "-o", dir + "/bad.onnx", "--input", "ids:i64[n,t]", "--input",
                        "lengths:i64[t]", "--input-data", arg_model("pooled_text.named.npz")});
    CHECK(bad.exit_code == 1);
    CHECK(contains(bad.err, "dimension 't' is 12 in one input and 4 in another"));
    CHECK_FALSE(fs::exists(dir + "/bad.onnx"));
  }
  SECTION("random ids in a value range beside data for the other argument") {
    std::string out = dir + "/range.onnx";
    export_ok({model, "-o", out, "--input", "ids:i64[4,t=12]:100..999", "--input-data",
               arg_model("pooled_text.lengths_only.npz"), "--verify"});
    at::Tensor got = test_input(out, 0);
    CHECK(got.min().item<int64_t>() >= 100);
    CHECK(got.max().item<int64_t>() <= 999);
    CHECK(at::equal(test_input(out, 1), lengths));
  }
  SECTION("unreadable or surplus data is refused before anything is written") {
    struct Case {
      std::vector<std::string> files;
      const char *message;
    } cases[] = {
        {{arg_model("pooled_text.one_entry.pt")}, "dict with a single entry"},
        {{arg_model("pooled_text.ids.npy"), arg_model("pooled_text.lengths.npy"),
          arg_model("pooled_text.ids.npy")},
         "3 --input-data files were given but forward(ids, lengths) takes 2"},
        {{arg_model("pooled_text.pt")}, "as a torch.save file"},
        {{arg_model("optional_args.pt") + ".missing.npy"}, "does not exist"},
        {{arg_model("pooled_text.named.npz"), arg_model("pooled_text.ids.npy")},
         "must be the only --input-data file"},
    };
    for (const auto &c : cases) {
      std::vector<std::string> args = {model, "-o", dir + "/none.onnx"};
      for (const auto &f : c.files)
        args.insert(args.end(), {"--input-data", f});
      auto r = run_cli(args);
      INFO(r.err);
      CHECK(r.exit_code == 1);
      CHECK(contains(r.err, c.message));
      CHECK_FALSE(fs::exists(dir + "/none.onnx"));
    }
  }
}

TEST_CASE("forward args: npy files of every dtype and order read back exactly", "[args]") {
  // np.save's layout, written here: a v1 header, then the data.
  auto npy = [](const std::string &descr, const std::string &shape, bool fortran,
                const std::string &data) {
    std::string header = fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr,
                                     fortran ? "True" : "False", shape);
    while ((10 + header.size() + 1) % 64 != 0)
      header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
  };
  std::vector<int32_t> six = {1, 2, 3, 4, 5, 6};
  std::string bytes(reinterpret_cast<const char *>(six.data()), six.size() * 4);
  at::Tensor c = torch2onnx::parse_npy(npy("<i4", "(2, 3)", false, bytes), "c");
  CHECK(at::equal(c, at::arange(1, 7, at::kInt).reshape({2, 3})));
  at::Tensor f = torch2onnx::parse_npy(npy("<i4", "(2, 3)", true, bytes), "f");
  CHECK(at::equal(f, at::arange(1, 7, at::kInt).reshape({3, 2}).t()));
  at::Tensor scalar = torch2onnx::parse_npy(npy("<i4", "()", false, bytes.substr(0, 4)), "s");
  CHECK(scalar.dim() == 0);
  CHECK_THROWS_WITH(torch2onnx::parse_npy(npy(">i4", "(6,)", false, bytes), "be"),
                    Catch::Contains("big-endian"));
  CHECK_THROWS_WITH(torch2onnx::parse_npy(npy("<i4", "(7,)", false, bytes), "short"),
                    Catch::Contains("is damaged"));
  CHECK_THROWS_WITH(torch2onnx::parse_npy("junk", "junk"), Catch::Contains("not a NumPy"));
}

TEST_CASE("forward args: a KV cache forward writes into exports from its saved value", "[args]") {
  std::string dir = fresh_dir("args_cache");
  auto r = export_ok({arg_model("kv_cache.pt"), "-o", dir + "/cache.onnx", "--input",
                      "x:f32[2,t=4,8]", "--input", "3", "--verify"});
  CHECK(contains(r.err, "forward reads module attribute cache_k that freezing kept"));
  // start_pos from a 0-d .npy, as when every argument comes from a file.
  auto data = export_ok({arg_model("kv_cache.pt"), "-o", dir + "/data.onnx", "--input-data",
                         arg_model("kv_cache.x.npy"), "--input-data",
                         arg_model("kv_cache.start_pos.npy"), "--verify", "-v"});
  CHECK(contains(data.err, "start_pos=3"));
}

TEST_CASE("forward args: a causal mask of -inf gives no warning", "[args]") {
  std::string dir = fresh_dir("args_mask");
  auto r = export_ok({arg_model("causal_lm.pt"), "-o", dir + "/lm.onnx", "--input",
                      "x:f32[2,t=8,16]", "--verify"});
  CHECK_FALSE(contains(r.err, "infinite"));
  CHECK_FALSE(contains(r.err, "warning"));
}

TEST_CASE("forward args: an Optional output that is None is left out", "[args]") {
  std::string dir = fresh_dir("args_none_out");
  std::string out = dir + "/attn.onnx";
  auto r = export_ok(
      {arg_model("self_attention.pt"), "-o", out, "--input", "x:f32[2,5,16]", "--verify", "-v"});
  CHECK(contains(r.err, "(an Optional output): it is not an ONNX output"));
  CHECK(contains(r.out, "verify output:")); // one output
  auto both = export_ok({arg_model("self_attention.pt"), "-o", dir + "/weights.onnx", "--input",
                         "x:f32[2,5,16]", "--input", "true", "--verify"});
  CHECK(contains(both.out, "verify output_1"));
}

TEST_CASE("forward args: a past_key_values tuple of key value pairs is nested inputs", "[args]") {
  // Hugging Face decoders take the cache as Tuple[Tuple[Tensor, Tensor], ...] (traced) or
  // List[Tuple[Tensor, Tensor]] (scripted): one ONNX input per tensor, past_<layer>_<k|v>.
  std::string dir = fresh_dir("args_past");
  auto spec =
      parse_input_spec("past:[[f32[b=2,4,p=5,8],f32[b,4,p,8]],[f32[b,4,p,8],f32[b,4,p,8]]]");
  REQUIRE(spec.kind == InputSpec::Kind::Sequence);
  REQUIRE(spec.elements.size() == 2);
  CHECK(spec.elements[1].kind == InputSpec::Kind::Sequence);
  CHECK(spec.elements[1].elements[0].dims[2].symbol == "p");
  CHECK(spec.str() == "past:[[f32[b=2,4,p=5,8],f32[b,4,p,8]],[f32[b,4,p,8],f32[b,4,p,8]]]");
  const std::string cache = "past:[[f32[batch,4,past=5,8],f32[batch,4,past,8]],[f32[batch,4,past,8]"
                            ",f32[batch,4,past,8]]]";
  for (const char *name : {"past_lm", "past_lm_scripted"}) {
    INFO(name);
    std::string out = dir + "/" + name + ".onnx";
    auto r = export_ok({arg_model(std::string(name) + ".pt"), "-o", out, "--input",
                        "ids:i64[batch=2,seq=3]", "--input", cache, "--verify"});
    CHECK(onnx_input_names(out) ==
          std::vector<std::string>{"ids", "past_0_0", "past_0_1", "past_1_0", "past_1_1"});
    CHECK(contains(r.out, "verify output_4 [batch=4,seq=6,past=10]"));
    // The oracle: what torch.jit.load of the saved file returned in Python on (ids, cache).
    auto data =
        export_ok({arg_model(std::string(name) + ".pt"), "-o", dir + "/data.onnx", "--input-data",
                   arg_model(std::string(name) + ".inputs.pt"), "--expected-outputs",
                   arg_model(std::string(name) + ".expected.pt"), "--verify"});
    CHECK(contains(data.out, "matches the expected outputs"));
    CHECK(contains(data.out, "expected output_4"));
  }
  struct Case {
    std::string spec, message;
  } cases[] = {
      {"past:[f32[2,4,5,8],f32[2,4,5,8]]", "is a list or tuple but --input gives f32[2,4,5,8]"},
      {"past:f32[2]", "past_key_values:[[f32[2,3],f32[2,3]],[f32[2,3],f32[2,3]]]"},
      {"past:[[f32[2,4,5,8],f32[2,4,5,8]]]", "holds 2 values but 1 are given"},
      {"past:[[f32[2,4,5,8]],[f32[2,4,5,8]]]", "holds 2 values but 1 are given"},
  };
  for (const auto &c : cases)
    check_refused("past_lm.pt", {"ids:i64[2,3]", c.spec}, c.message, dir);
}

TEST_CASE("forward args: sizes that follow a number input's value are not the example's",
          "[args]") {
  // num_steps sizes torch.arange / linspace and a loop's trip count. Recorded only at the
  // example value they were constants: the file computed 5 steps whatever num_steps said. At 3
  // and 4 the arange has 4 entries alike, so one changed value is not enough.
  std::string dir = fresh_dir("args_value_sizes");
  std::vector<std::string> files;
  for (const char *n : {"5", "8", "3"}) {
    std::string out = dir + "/steps" + n + ".onnx";
    export_ok({arg_model("step_schedule.pt"), "-o", out, "--input-data",
               arg_model(std::string("step_schedule.inputs") + n + ".pt"), "--input", "x:f32[2,8]",
               "--input", "num_steps:i64[]", "--expected-outputs",
               arg_model(std::string("step_schedule.expected") + n + ".pt"), "--verify"});
    files.push_back(file_bytes(out));
  }
  CHECK(files[0] == files[1]); // one file, whatever the example's value
  CHECK(files[0] == files[2]);
}

TEST_CASE("forward args: an int float or bool argument given as a 0-d tensor is an input",
          "[args]") {
  // LLaMA-style start_pos: int. As a constant the file only works at the example's position; as
  // --input start_pos:i64[] it is an ONNX input, and one file computes Python's outputs at each.
  std::string dir = fresh_dir("args_number_inputs");
  std::vector<std::string> files;
  for (const char *pos : {"3", "11"}) {
    std::string out = dir + "/kv" + pos + ".onnx";
    std::string npy =
        std::string(pos) == "3" ? "kv_cache.start_pos.npy" : "kv_cache.start_pos11.npy";
    export_ok({arg_model("kv_cache.pt"), "-o", out, "--input-data", arg_model("kv_cache.x.npy"),
               "--input-data", arg_model(npy), "--input", "x:f32[2,t=4,8]", "--input",
               "start_pos:i64[]", "--expected-outputs",
               arg_model(std::string("kv_cache.expected") + pos + ".pt"), "--verify"});
    CHECK(onnx_input_names(out) == std::vector<std::string>{"x", "start_pos"});
    files.push_back(file_bytes(out));
  }
  CHECK(files[0] == files[1]); // the example's value is not in the file
  // A float and a bool: the bool's branch (if use_norm:) is an If in the file.
  files.clear();
  for (const char *flag : {"0", "1"}) {
    std::string out = dir + "/flags" + flag + ".onnx";
    export_ok({arg_model("optional_args.pt"), "-o", out, "--input-data",
               arg_model(std::string("optional_args.inputs_") + flag + ".pt"), "--input",
               "x:f32[2,5,16]", "--input", "none", "--input", "scale:f32[]", "--input",
               "use_norm:bool[]", "--expected-outputs",
               arg_model(std::string("optional_args.expected_") + flag + ".pt"), "--verify"});
    files.push_back(file_bytes(out));
  }
  CHECK(files[0] == files[1]);
  // The same data with Python numbers (torch.save((x, None, 0.7, True))): the same file.
  std::string out = dir + "/pynum.onnx";
  export_ok({arg_model("optional_args.pt"), "-o", out, "--input-data",
             arg_model("optional_args.pynum_1.pt"), "--input", "x:f32[2,5,16]", "--input", "none",
             "--input", "scale:f32[]", "--input", "use_norm:bool[]", "--expected-outputs",
             arg_model("optional_args.expected_1.pt"), "--verify"});
  CHECK(file_bytes(out) == files[1]);
  struct Case {
    std::string spec, message;
  } cases[] = {
      {"start_pos:f32[]", "argument 'start_pos' (int) cannot be read from a f32 tensor"},
      {"start_pos:i64[2]", "or a 0-d tensor to make it an ONNX input: --input start_pos:i64[]"},
  };
  for (const auto &c : cases)
    check_refused("kv_cache.pt", {"x:f32[2,4,8]", c.spec}, c.message, dir);
}

TEST_CASE("forward args: a Dict[str, Tensor] batch is one input per key", "[args]") {
  std::string dir = fresh_dir("args_dict");
  auto spec = parse_input_spec("batch:{image:f32[b=2,3,8,8],mask:bool[b,5]}");
  REQUIRE(spec.kind == InputSpec::Kind::Dict);
  CHECK(spec.elements[1].name == "mask");
  CHECK(spec.str() == "batch:{image:f32[b=2,3,8,8],mask:bool[b,5]}");
  for (const char *name : {"dict_batch", "dict_batch_traced"}) {
    INFO(name);
    const std::string model = arg_model(std::string(name) + ".pt");
    std::string out = dir + "/" + name + ".onnx";
    auto r = export_ok({model, "-o", out, "--input",
                        "batch:{image:f32[b=2,3,h=16,w=16],tokens:i64[b,t=5]:0..19,mask:bool[b,t]}",
                        "--verify"});
    CHECK(onnx_input_names(out) ==
          std::vector<std::string>{"batch_image", "batch_tokens", "batch_mask"});
    CHECK(contains(r.out, "verify logits [b=4,h=32,w=32,t=10]"));
    // The oracle: Python's outputs of the saved file on the saved batch.
    auto data = export_ok({model, "-o", dir + "/data.onnx", "--input-data",
                           arg_model(std::string(name) + ".inputs.pt"), "--expected-outputs",
                           arg_model(std::string(name) + ".expected.pt"), "--verify"});
    CHECK(contains(data.out, "matches the expected outputs"));
  }
  // The optional key tested with `in` is resolved by the keys given.
  auto scaled = export_ok({arg_model("dict_batch.pt"), "-o", dir + "/scaled.onnx", "--input",
                           "batch:{image:f32[2,3,8,8],tokens:i64[2,5]:0..19,mask:bool[2,5],"
                           "scale:f32[1]}",
                           "--verify"});
  CHECK(onnx_input_names(dir + "/scaled.onnx").back() == "batch_scale");
  struct Case {
    std::string spec, message;
  } cases[] = {
      {"batch:[f32[2,3,8,8]]", "is a dict but --input gives batch:[f32[2,3,8,8]] for it"},
      {"batch:f32[2,3,8,8]", "--input batch:{image:f32[2,3],mask:f32[2,3]}"},
      {"batch:{image:f32[2,3,8,8]}", "KeyError: mask"},
      {"batch:{image:f32[2,3,8,8],image:f32[2]}", "the key 'image' is given twice"},
      {"batch:{f32[2,3,8,8]}", "is not key:tensor-spec"},
  };
  for (const auto &c : cases)
    check_refused("dict_batch.pt", {c.spec}, c.message, dir, -1);
}
