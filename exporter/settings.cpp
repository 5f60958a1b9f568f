// The settings table (include/torch2onnx/settings.h): each setting's names, help and type, and the
// one validate() every way in runs.
#include "torch2onnx/settings.h"

#include "builder/functions.h"
#include "exporter/options.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <regex>
#include <set>

namespace torch2onnx {

namespace {

template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;

std::vector<SettingField> make_fields() {
  using S = Settings;
  std::vector<SettingField> f = {
      {"opset", "--opset", fmt::format("the ONNX opset to target, {} to {}", kMinOpset, kMaxOpset),
       "N", &S::opset},
      {"output_names", "--output-names",
       "names for the ONNX outputs, in order, e.g. --output-names logits,probs", "NAMES",
       &S::output_names, ','},
      {"verify", "--verify",
       "run LibTorch and ONNX Runtime on the same inputs and compare every output", "", &S::verify,
       0, true},
      {"rtol", "--rtol",
       "relative tolerance for --verify and --expected-outputs: an output passes when "
       "max|onnx - torch| <= max(atol, rtol * max|torch|)",
       "X", &S::rtol, 0, true},
      {"atol", "--atol", "absolute tolerance for --verify and --expected-outputs", "X", &S::atol, 0,
       true},
      {"seed", "--seed", "seed of --verify's random inputs", "N", &S::seed, 0, true},
      {"locate", "--locate",
       "find the first node whose ONNX value differs from LibTorch's even when every output "
       "passes (implies --verify; runs anyway when an output fails)",
       "", &S::locate, 0, true},
      {"verify_dims", "--verify-dims",
       "also verify at these sizes of symbolic dims, e.g. --verify-dims batch=3,seq=77 (--verify "
       "always checks the example sizes and a second size per symbolic dim)",
       "SIZES", &S::verify_dims, 0, true},
      {"external_data", "--external-data",
       "write the weights to OUT.onnx.data (ONNX external data); automatic for models over 2 GB",
       "", &S::external_data},
      {"optimize", "--no-optimize",
       "skip the graph rewrites (Conv+BatchNormalization folding, no-op and Identity removal, "
       "common subexpressions); for debugging the exporter",
       "", &S::optimize},
      {"functions", "--functions",
       "module class names whose calls become ONNX local functions, e.g. --functions BasicBlock "
       "(opset >= 15; comma-separated or repeated)",
       "CLASSES", &S::functions, ','},
      {"load_library", "--load-library",
       "shared library registering custom ops, loaded before the model (like "
       "torch.ops.load_library); repeatable",
       "LIB.so", &S::libraries, 0, false, "libraries"},
      {"converters", "--converters",
       "converter plugin: a shared library built against <torch2onnx/plugin.h> that adds "
       "converters for custom ops; repeatable (docs/plugins.md)",
       "LIB.so", &S::converters},
      {"fallback_domain", "--fallback-domain",
       "write every op without a converter as a node of this custom ONNX domain, with a warning "
       "listing them (off by default; --verify cannot run such a file; docs/fallback.md)",
       "NAME", &S::fallback_domain},
      {"dtype", "--dtype",
       "float type of the weights and compute: f32 (as the model is saved), f16 or bf16 (a "
       "float32 model converted; inputs and outputs keep their --input/float32 types, a few ops "
       "stay float32; --verify compares with the float32 LibTorch run at rtol=atol=1e-2 for f16, "
       "5e-2 for bf16; docs/float16.md)",
       "TYPE", &S::dtype},
      {"quantized_bias", "--quantized-bias",
       "how quantized convs' and linears' biases are written: float (as LibTorch computes, "
       "the default) or int32 at scale input scale x weight scale, which ONNX Runtime needs to "
       "run them as QLinearConv/QGemm (faster on CPUs with VNNI; docs/quantized.md)",
       "KIND", &S::quantized_bias},
  };
  return f;
}

[[noreturn]] void bad_value(const SettingField &f, const std::string &text, const char *what,
                            const char *example) {
  throw UsageError(fmt::format("{} '{}' is not {}", f.flag, text, what),
                   fmt::format("e.g. {} {}", f.flag, example));
}

int64_t parse_int(const SettingField &f, const std::string &text, int64_t lo) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < lo)
    bad_value(f, text, lo >= 0 ? "an integer >= 0" : "an integer", "17");
  return v;
}

double parse_real(const SettingField &f, const std::string &text) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    bad_value(f, text, "a number", "1e-3");
  return v;
}

bool parse_bool(const SettingField &f, const std::string &text) {
  if (text == "true" || text == "1")
    return true;
  if (text == "false" || text == "0")
    return false;
  bad_value(f, text, "true or false", "true");
}

std::vector<std::string> split(const SettingField &f, const std::string &text) {
  if (!f.delimiter)
    return {text};
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t c = text.find(f.delimiter, pos);
    out.push_back(text.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos)
      return out;
    pos = c + 1;
  }
}

void check_tolerance(const char *flag, double v) {
  if (!std::isfinite(v) || v < 0)
    throw UsageError(
        fmt::format("{} {} must be a finite number >= 0", flag, v),
        fmt::format("e.g. {} 1e-3: an infinite tolerance would pass any output", flag));
}

void check_names(const char *flag, const std::vector<std::string> &names, const char *example) {
  std::set<std::string> seen;
  for (const auto &n : names) {
    if (n.empty())
      throw UsageError(fmt::format("{} has an empty name", flag),
                       fmt::format("give names separated by commas, e.g. {} {}", flag, example));
    if (!seen.insert(n).second)
      throw UsageError(fmt::format("{} gives the name '{}' twice", flag, n),
                       "give each name once (ONNX value names must be unique)");
  }
}

} // namespace

const std::vector<SettingField> &setting_fields() {
  static const std::vector<SettingField> fields = make_fields();
  return fields;
}

const SettingField *find_setting(const std::string &name) {
  for (const auto &f : setting_fields())
    if (name == f.name || (*f.alias && name == f.alias))
      return &f;
  return nullptr;
}

void set_setting(Settings &s, const SettingField &f, const std::string &text) {
  std::visit(
      Overload{
          [&](int Settings::*m) {
            int64_t v = parse_int(f, text, INT32_MIN);
            if (v > INT32_MAX)
              bad_value(f, text, "an integer", "17");
            s.*m = static_cast<int>(v);
          },
          [&](double Settings::*m) { s.*m = parse_real(f, text); },
          [&](uint64_t Settings::*m) { s.*m = static_cast<uint64_t>(parse_int(f, text, 0)); },
          [&](bool Settings::*m) { s.*m = parse_bool(f, text); },
          [&](std::string Settings::*m) { s.*m = text; },
          [&](std::vector<std::string> Settings::*m) {
            for (auto &v : split(f, text))
              (s.*m).push_back(std::move(v));
          },
          [&](std::vector<std::pair<std::string, int64_t>> Settings::*m) {
            for (auto &v : parse_dim_sizes(text))
              (s.*m).push_back(std::move(v));
          },
      },
      f.member);
}

std::string setting_text(const Settings &s, const SettingField &f) {
  return std::visit(Overload{
                        [&](int Settings::*m) { return fmt::format("{}", s.*m); },
                        [&](double Settings::*m) { return fmt::format("{}", s.*m); },
                        [&](uint64_t Settings::*m) { return fmt::format("{}", s.*m); },
                        [&](bool Settings::*m) { return std::string(s.*m ? "true" : "false"); },
                        [&](std::string Settings::*m) { return s.*m; },
                        [&](std::vector<std::string> Settings::*m) {
                          return fmt::format(
                              "{}",
                              fmt::join(s.*m, std::string(1, f.delimiter ? f.delimiter : ',')));
                        },
                        [&](std::vector<std::pair<std::string, int64_t>> Settings::*m) {
                          std::vector<std::string> parts;
                          for (const auto &[n, v] : s.*m)
                            parts.push_back(fmt::format("{}={}", n, v));
                          return fmt::format("{}", fmt::join(parts, ","));
                        },
                    },
                    f.member);
}

bool setting_is_default(const Settings &s, const SettingField &f) {
  static const Settings defaults;
  return std::visit([&](auto m) { return s.*m == defaults.*m; }, f.member);
}

std::vector<std::string> setting_args(const Settings &s, bool verification) {
  std::vector<std::string> args;
  for (const auto &f : setting_fields()) {
    if (setting_is_default(s, f) || (f.verification && !verification))
      continue;
    std::visit(Overload{
                   [&](bool Settings::*) { args.push_back(f.flag); }, // a flag names the change
                   [&](std::vector<std::string> Settings::*m) {
                     if (f.delimiter) {
                       args.insert(args.end(), {f.flag, setting_text(s, f)});
                       return;
                     }
                     for (const auto &v : s.*m) // paths: one flag each (a path may hold a comma)
                       args.insert(args.end(), {f.flag, v});
                   },
                   [&](auto) {
                     args.insert(args.end(), {f.flag, setting_text(s, f)});
                   },
               },
               f.member);
  }
  return args;
}

void check_fallback_domain(const std::string &domain) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");
  if (!std::regex_match(domain, kName))
    throw UsageError(fmt::format("--fallback-domain '{}' is not a domain name", domain),
                     "use dotted identifiers, e.g. --fallback-domain org.example.ops");
  if (domain == "ai.onnx" || domain.rfind("ai.onnx.", 0) == 0)
    throw UsageError(fmt::format("--fallback-domain '{}' is one of ONNX's own domains", domain),
                     "choose a domain of your own, e.g. --fallback-domain org.example.ops");
}

void Settings::validate() const {
  if (opset < kMinOpset || opset > kMaxOpset)
    throw UsageError(fmt::format("--opset {} is not supported", opset),
                     fmt::format("choose an opset from {} to {}", kMinOpset, kMaxOpset));
  check_tolerance("--rtol", rtol);
  check_tolerance("--atol", atol);
  check_names("--output-names", output_names, "logits,probs");
  check_names("--functions", functions, "BasicBlock");
  if (!functions.empty() && opset < kMinFunctionOpset)
    throw UsageError(
        fmt::format("--functions needs opset {} or newer (ONNX local functions came with "
                    "IR version 8), but --opset is {}",
                    kMinFunctionOpset, opset),
        fmt::format("give --opset {} or newer, or leave out --functions", kMinFunctionOpset));
  std::set<std::string> dims;
  for (const auto &[name, size] : verify_dims) {
    if (!dims.insert(name).second)
      throw UsageError(fmt::format("--verify-dims gives '{}' twice", name),
                       "give each symbolic dim one size, e.g. --verify-dims batch=3,seq=77");
    if (size < 0)
      throw UsageError(fmt::format("--verify-dims {}={}: a size must be 0 or more", name, size),
                       "e.g. --verify-dims batch=3, or past=0 for an empty cache");
  }
  for (const auto *paths : {&libraries, &converters})
    for (const auto &p : *paths)
      if (p.empty())
        throw UsageError(fmt::format("{} is an empty path",
                                     paths == &libraries ? "--load-library" : "--converters"),
                         "give the shared library's file, e.g. ./libmyops.so");
  if (!fallback_domain.empty())
    check_fallback_domain(fallback_domain);
  if (dtype != "f32" && dtype != "f16" && dtype != "bf16")
    throw UsageError(fmt::format("--dtype '{}' is not a float type torch2onnx converts to", dtype),
                     "give --dtype f16 or --dtype bf16 (or f32, the default: as saved)");
  if (quantized_bias != "float" && quantized_bias != "int32")
    throw UsageError(
        fmt::format("--quantized-bias '{}' is not a way to write biases", quantized_bias),
        "give --quantized-bias int32 (or float, the default)");
  if (dtype == "bf16" && (verify || locate))
    throw UsageError(
        "--dtype bf16 cannot be verified: ONNX Runtime's CPU provider, which --verify runs, has "
        "no bfloat16 kernels for most ops (Relu, Conv, Add, ...)",
        "export without --verify for a runtime with bfloat16 kernels, or verify --dtype f16");
}

namespace {
double dtype_tolerance(const std::string &dtype, double given) {
  if (given != kDefaultTolerance || dtype == "f32")
    return given;
  return dtype == "bf16" ? kBFloat16Tolerance : kFloat16Tolerance;
}
} // namespace

double Settings::verify_rtol() const {
  return dtype_tolerance(dtype, rtol);
}
double Settings::verify_atol() const {
  return dtype_tolerance(dtype, atol);
}

} // namespace torch2onnx
