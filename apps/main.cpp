// The torch2onnx command line: parses flags, calls the library, prints one summary line or one
// clear error. This file is the single place that catches torch2onnx::Error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "apps/zoo.h"
#include "aten_lib/converter.h"
#include "builder/error.h"
#include "exporter/export.h"

using namespace torch2onnx;

namespace {

const char* kExamples = R"(
Examples:
  torch2onnx resnet50.pt -o resnet50.onnx --input x:f32[1,3,224,224] --opset 17 --verify
  torch2onnx bert.pt --input ids:i64[2,128] --input mask:i64[2,128] --output-names logits
  torch2onnx detector.pt --load-library /path/to/torchvision/_C.so --input f32[1,3,320,320]
  torch2onnx ops --opset 13          list the converters available at opset 13

Input SPEC: [name:]dtype[dims], one per forward argument, in order.
  dtype: f32 f16 bf16 f64 i64 i32 i16 i8 u8 bool     dims: positive integers, e.g. [1,3,224,224]
  name: the ONNX input name (default: the forward argument's name)
  symbolic dims: name=example, e.g. x:f32[batch=1,3,224,224] or ids:i64[batch=2,seq=128]; the same
  name in two inputs is the same dim; the ONNX graph keeps it symbolic (recorded at the example and
  at a second size to find every dim that depends on it).

--verify runs the model in LibTorch and the exported file in ONNX Runtime on the same random
inputs (seeded), writes them beside the output as <name>/test_data_set_0/{input,output}_N.pb,
prints the worst error per output and fails when max|onnx - torch| > max(atol, rtol*max|torch|).

Exit status: 0 success, 1 export or verification failed, 2 bad command line.
)";

std::string human_bytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB"};
  int u = 0;
  while (b >= 1000 && u < 3) {
    b /= 1000;
    ++u;
  }
  return fmt::format(u == 0 ? "{:.0f} {}" : "{:.1f} {}", b, units[u]);
}

std::string human_count(double n) {
  if (n >= 1e6) return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f}K", n / 1e3);
  return fmt::format("{:.0f}", n);
}

void print_error(const Error& e) {
  fmt::print(stderr, "torch2onnx: error: {}\n", e.what());
  if (!e.hint().empty()) fmt::print(stderr, "  hint: {}\n", e.hint());
}

int run_ops(int argc, char** argv) {
  CLI::App app{"torch2onnx ops: list the aten op converters"};
  int opset = kDefaultOpset;
  bool json = false;
  app.add_option("--opset", opset, "show the converter chosen at this opset")
      ->check(CLI::Range(kMinOpset, kMaxOpset));
  app.add_flag("--json", json, "print JSON for scripts");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  const auto& reg = Registry::global();
  std::vector<const RegistryEntry*> chosen;
  std::string last;
  for (const auto* e : reg.entries()) {
    if (e->op == last) continue;
    if (const auto* f = reg.find(e->op, opset)) {
      chosen.push_back(f);
      last = e->op;
    }
  }
  if (json) {
    fmt::print("[\n");
    for (size_t i = 0; i < chosen.size(); ++i) {
      std::vector<std::string> q;
      for (const auto& o : chosen[i]->onnx_ops) q.push_back("\"" + o + "\"");
      fmt::print("  {{\"op\": \"{}\", \"since_opset\": {}, \"family\": \"{}\", \"onnx_ops\": [{}]}}{}\n",
                 chosen[i]->op, chosen[i]->since_opset, chosen[i]->family, fmt::join(q, ", "),
                 i + 1 < chosen.size() ? "," : "");
    }
    fmt::print("]\n");
  } else {
    fmt::print("{:<36} {:>5}  {:<12} {}\n", "op", "since", "family", "ONNX ops");
    for (const auto* e : chosen)
      fmt::print("{:<36} {:>5}  {:<12} {}\n", e->op, e->since_opset, e->family,
                 fmt::join(e->onnx_ops, ", "));
    fmt::print("{} ops at opset {}\n", chosen.size(), opset);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) write() then fails with EFBIG and the atomic writer reports
  // it cleanly, instead of SIGXFSZ killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc > 1 && std::string(argv[1]) == "ops") return run_ops(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "zoo") return zoo::run_zoo(argc - 1, argv + 1);

  CLI::App app{"torch2onnx: convert a TorchScript model (torch.jit.trace/script + save) to ONNX and "
               "prove it computes what PyTorch computes.\n\n"
               "Usage: torch2onnx MODEL.pt [-o OUT.onnx] [--input SPEC]... [--opset N] [--verify]\n"
               "       torch2onnx ops [--opset N] [--json]\n"
               "       torch2onnx zoo MANIFEST [--jobs N] [--shard I/N] ...   (see torch2onnx zoo --help)"};
  app.footer(kExamples);
  ExportOptions o;
  std::vector<std::string> specs;
  std::string output_names;
  bool verbose = false, quiet = false;
  app.add_option("model", o.model_path, "TorchScript file to convert, e.g. resnet50.pt")->required();
  app.add_option("-o,--output", o.output_path,
                 "ONNX file to write (default: MODEL with .onnx), e.g. -o resnet50.onnx");
  app.add_option("--input", specs,
                 "one forward argument: [name:]dtype[dims], e.g. --input x:f32[1,3,224,224]; repeat "
                 "per argument, in order")
      ->take_all();
  app.add_option("--opset", o.opset, fmt::format("ONNX opset to target, {} to {} (default {})",
                                                 kMinOpset, kMaxOpset, kDefaultOpset));
  app.add_flag("--external-data", o.external_data,
               "write the weights to OUT.onnx.data (ONNX external data); automatic for models "
               "over 2 GB");
  auto* verify_flag = app.add_flag("--verify", o.verify,
               "run LibTorch and ONNX Runtime on the same random inputs and compare every output");
  app.add_option("--rtol", o.rtol,
                 "relative tolerance for --verify: an output passes when max|onnx - torch| <= "
                 "max(atol, rtol * max|torch|) (default 1e-4)")
      ->needs(verify_flag);
  app.add_option("--atol", o.atol, "absolute tolerance for --verify (default 1e-4)")
      ->needs(verify_flag);
  app.add_option("--seed", o.seed, "seed for --verify's random inputs (default 0)")
      ->needs(verify_flag);
  std::string verify_dims;
  app.add_option("--verify-dims", verify_dims,
                 "also verify at these sizes of symbolic dims, e.g. --verify-dims batch=3,seq=77 "
                 "(--verify always checks the example sizes and a second size per symbolic dim)");
  app.add_option("--output-names", output_names,
                 "comma-separated names for the ONNX outputs, e.g. --output-names logits,probs");
  app.add_option("--load-library", o.libraries,
                 "shared library registering custom ops, loaded before the model (like "
                 "torch.ops.load_library); repeatable")
      ->take_all();
  app.add_flag("!--no-optimize", o.optimize,
               "skip the graph rewrites (Conv+BatchNormalization folding, no-op and Identity "
               "removal, common subexpressions); for debugging the exporter");
  bool timings = false;
  app.add_flag("--timings", timings,
               "print the time of each phase (load, prepare, record, convert, optimize, "
               "serialize) and the rewrites applied, on stderr");
  app.add_flag("-v,--verbose", verbose, "print each step and warnings");
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  try {
    app.parse(argc, argv);
    if (verbose && quiet) throw CLI::ValidationError("-v/--verbose and -q/--quiet", "choose one");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // Same form as every other error: one line naming the flag, one hint.
    fmt::print(stderr, "torch2onnx: error: {}\n  hint: see torch2onnx --help\n", e.what());
    return 2;
  }
  o.verbosity = quiet ? 0 : verbose ? 2 : 1;
  try {
    for (const auto& s : specs) o.inputs.push_back(parse_input_spec(s));
    if (!verify_dims.empty()) o.verify_dims = parse_dim_sizes(verify_dims);
    if (!output_names.empty()) {
      size_t pos = 0;
      while (true) {
        size_t c = output_names.find(',', pos);
        std::string n = output_names.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
        if (n.empty()) throw Error(fmt::format("--output-names '{}' has an empty name", output_names));
        o.output_names.push_back(n);
        if (c == std::string::npos) break;
        pos = c + 1;
      }
    }
    check_option_conflicts(o);
  } catch (const Error& e) {
    print_error(e);
    return 2;
  }

  LogFn log;
  auto t0 = std::chrono::steady_clock::now();
  if (o.verbosity >= 2)
    log = [t0](const std::string& m) {
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print(stderr, "torch2onnx: [{:6.2f} s] {}\n", t, m);
    };
  try {
    ExportReport r = export_model(o, log);
    if (o.verbosity >= 1)
      for (const auto& w : r.notices) fmt::print(stderr, "torch2onnx: warning: {}\n", w);
    if (o.verbosity >= 2)
      for (const auto& w : r.warnings) fmt::print(stderr, "torch2onnx: warning: {}\n", w);
    if (timings || o.verbosity >= 2) {
      const auto& p = r.phases;
      fmt::print(stderr,
                 "torch2onnx: phases: load {:.3f} s, prepare {:.3f} s, record {:.3f} s, convert "
                 "{:.3f} s, optimize {:.3f} s, serialize {:.3f} s\n",
                 p.load, p.prepare, p.record, p.convert, p.optimize, p.serialize);
      std::vector<std::string> applied;
      for (const auto& [rule, n] : r.optimized.applied) applied.push_back(fmt::format("{} {}", rule, n));
      fmt::print(stderr, "torch2onnx: rewrites: {} -> {} nodes{}{}\n", r.optimized.nodes_before,
                 r.optimized.nodes_after, applied.empty() ? "" : ": ", fmt::join(applied, ", "));
    }
    if (o.verbosity >= 1)
      fmt::print("{}: opset {}, {} nodes, {} parameters ({}), {:.2f} s\n", r.output_path, r.opset,
                 r.stats.nodes, human_count(static_cast<double>(r.stats.parameters)),
                 human_bytes(static_cast<double>(r.stats.parameter_bytes)), r.seconds);
    if (r.verify) {
      const auto& v = *r.verify;
      for (const auto& c : v.outputs) {
        if (o.verbosity >= 1 || !c.ok()) {
          std::string at = c.sizes.empty() ? "" : " [" + c.sizes + "]";
          if (!c.problem.empty())
            fmt::print("  verify {}{}: FAIL: {}\n", c.name, at, c.problem);
          else
            fmt::print("  verify {}{}: max abs error {:.3g}, max rel error {:.3g} (max |torch| {:.3g}, "
                       "tolerance {:.3g}) {}\n",
                       c.name, at, c.max_abs_error, c.max_rel_error, c.max_abs_ref, c.tolerance,
                       c.ok() ? "ok" : "FAIL");
        }
      }
      if (!v.ok()) {
        fmt::print(stderr,
                   "torch2onnx: error: verification failed: ONNX Runtime's outputs differ from "
                   "LibTorch's (model kept at {}, test data in {})\n",
                   r.output_path, v.test_data_dir);
        return 1;
      }
      if (o.verbosity >= 1)
        fmt::print("  verified in ONNX Runtime ({:.2f} s); test data in {}\n", v.seconds,
                   v.test_data_dir);
    }
    return 0;
  } catch (const Error& e) {
    print_error(e);
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "torch2onnx: internal error: {}\n", e.what());
    return 1;
  }
}
