// The --report document: built from ExportOptions and ExportReport (or the failure), written as
// JSON or markdown. The field names are a format other tools read (docs/report.md): add fields,
// never rename one without raising kVersion.
#include "apps/report.h"

#include "builder/error.h"
#include "builder/file_io.h"
#include "torch2onnx/settings.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <torch/version.h>
#include <unistd.h>

#ifndef T2O_VERSION
#define T2O_VERSION "0.1.0"
#endif

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace torch2onnx::report {

std::string human_bytes(double b) {
  const char *units[] = {"B", "KB", "MB", "GB"};
  int u = 0;
  while (b >= 1000 && u < 3) {
    b /= 1000;
    ++u;
  }
  return fmt::format(u == 0 ? "{:.0f} {}" : "{:.1f} {}", b, units[u]);
}

std::string human_count(double n) {
  if (n >= 1e6)
    return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1e3)
    return fmt::format("{:.1f}K", n / 1e3);
  return fmt::format("{:.0f}", n);
}

std::string versions_text() {
  return fmt::format("torch2onnx {}, LibTorch {}, ONNX opsets {}-{} (default {})", T2O_VERSION,
                     TORCH_VERSION, kMinOpset, kMaxOpset, kDefaultOpset);
}

namespace {

// One --input: the dims as given, a symbol's name in place of its size, and the example sizes.
json input_json(const InputSpec &spec, const std::string &name) {
  if (!spec.is_tensor()) // a list, None or number argument, as given (before binding)
    return {{"name", name.empty() ? json(nullptr) : json(name)}, {"spec", spec.str()}};
  json dims = json::array(), example = json::array();
  for (const auto &d : spec.dims) {
    dims.push_back(d.symbol.empty() ? json(d.value) : json(d.symbol));
    example.push_back(d.value);
  }
  // No name yet when the export failed before it read forward's argument names.
  return {{"name", name.empty() ? json(nullptr) : json(name)},
          {"dtype", dtype_name(spec.dtype)},
          {"dims", dims},
          {"example", example}};
}

// Every setting of the settings table under its name (an empty text: null), and the options
// only a file export has.
json options_json(const ExportOptions &o) {
  json j = json::object();
  for (const SettingField &f : setting_fields())
    std::visit(
        [&](auto m) {
          using T = std::decay_t<decltype(o.*m)>;
          if constexpr (std::is_same_v<T, std::string>)
            j[f.name] = (o.*m).empty() ? json(nullptr) : json(o.*m);
          else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, int64_t>>>) {
            json sizes = json::object();
            for (const auto &[n, v] : o.*m)
              sizes[n] = v;
            j[f.name] = sizes;
          } else
            j[f.name] = o.*m;
        },
        f.member);
  j["expected_outputs"] = o.expected_outputs.empty() ? json(nullptr) : json(o.expected_outputs);
  return j;
}

// "batch=3,seq=77" -> {"batch": 3, "seq": 77}
json sizes_json(const std::string &label) {
  json out = json::object();
  size_t pos = 0;
  while (pos < label.size()) {
    size_t comma = label.find(',', pos);
    std::string item =
        label.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq != std::string::npos)
      out[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return out;
}

json check_json(const OutputCheck &c) {
  json j = {{"name", c.name},
            {"ok", c.ok()},
            {"max_abs_error", c.max_abs_error},
            {"max_rel_error", c.max_rel_error},
            {"max_abs_ref", c.max_abs_ref},
            {"tolerance", c.tolerance},
            {"shape_ok", c.shape_ok}};
  if (!c.problem.empty())
    j["problem"] = c.problem;
  if (!c.note.empty())
    j["note"] = c.note;
  if (c.step > 0) { // a quantized output (docs/quantized.md)
    j["quantization_step"] = c.step;
    j["beyond_one_step"] = c.beyond_one_step;
    j["values"] = c.values;
  }
  return j;
}

// The checks grouped per test-data set: export_model appends each set's checks in order, all
// labelled with that set's sizes.
json verify_json(const VerifyReport &v) {
  json sets = json::array();
  fs::path root = fs::path(v.test_data_dir).parent_path();
  std::string label;
  for (size_t i = 0; i < v.outputs.size(); ++i) {
    const auto &c = v.outputs[i];
    if (i == 0 || c.sizes != label) {
      label = c.sizes;
      size_t k = sets.size();
      sets.push_back({{"index", k},
                      {"dir", (root / fmt::format("test_data_set_{}", k)).string()},
                      {"sizes", sizes_json(label)},
                      {"outputs", json::array()}});
    }
    sets.back()["outputs"].push_back(check_json(c));
  }
  for (auto &s : sets) {
    bool ok = true;
    for (const auto &c : s["outputs"])
      ok = ok && c["ok"].get<bool>();
    s["ok"] = ok;
  }
  return {{"ok", v.ok()},
          {"seconds", v.seconds},
          {"test_data_dir", root.string()},
          {"data_sets", sets}};
}

// --expected-outputs: one check per output, as a verification data set's.
json expected_json(const ExpectedReport &e) {
  json outputs = json::array();
  for (const auto &c : e.outputs)
    outputs.push_back(check_json(c));
  return {{"ok", e.ok()}, {"file", e.file}, {"seconds", e.seconds}, {"outputs", outputs}};
}

// After a failure only the phases that ran (the last one until the failure).
json phases_json(const ExportReport &r, bool all) {
  json j = json::object();
  for (Phase p : kTimedPhases)
    if (all || r.phases.of(p) > 0)
      j[phase_name(p)] = r.phases.of(p);
  if (all || r.seconds > 0)
    j["export"] = r.seconds;
  return j;
}

json dims_json(const TensorInfo &info) {
  json dims = json::array();
  for (const auto &d : *info.shape)
    dims.push_back(!d.symbol.empty() ? json(d.symbol) : d.value >= 0 ? json(d.value) : json());
  return dims;
}

json output_json(const ExportReport &r, size_t i) {
  json o = {{"name", r.output_names[i]}};
  if (i < r.output_infos.size() && r.output_infos[i].dtype != DType::Undefined) {
    const TensorInfo &info = r.output_infos[i];
    o["dtype"] = dtype_name(info.dtype);
    if (info.shape)
      o["dims"] = dims_json(info);
  }
  return o;
}

json ops_json(const ExportReport &r) {
  json ops = json::object();
  for (const auto &[op, use] : r.ops) {
    json onnx = json::object();
    for (const auto &[t, n] : use.onnx)
      onnx[t] = n;
    ops[op] = {{"count", use.count}, {"onnx", onnx}};
  }
  return ops;
}

json range_json(double lo, double hi) {
  return json::array({lo, hi});
}

json divergence_json(const Divergence &d) {
  json j = {{"found", d.found}, {"sizes", sizes_json(d.sizes)}};
  if (d.found) {
    j["node"] = {{"index", d.index}, {"op", d.op}, {"scope", d.scope}};
    if (!d.source.empty())
      j["node"]["source"] = d.source;
    if (!d.converter.empty())
      j["converter"] = d.converter;
    j["onnx_value"] = d.onnx_value;
    j["max_abs_error"] = d.check.max_abs_error;
    j["max_rel_error"] = d.check.max_rel_error;
    j["tolerance"] = d.check.tolerance;
    j["torch_range"] = range_json(d.torch_min, d.torch_max);
    j["onnx_range"] = range_json(d.onnx_min, d.onnx_max);
    if (!d.check.problem.empty())
      j["problem"] = d.check.problem;
  } else {
    j["note"] = d.note;
  }
  j["compared"] = d.compared;
  j["skipped"] = d.skipped;
  j["seconds"] = d.seconds;
  return j;
}

json result_json(const ExportReport &r, json &report) {
  report["phases"] = phases_json(r, true);
  json graph = {{"nodes", r.stats.nodes},
                {"parameters", r.stats.parameters},
                {"parameter_bytes", r.stats.parameter_bytes}};
  std::error_code ec;
  auto size = fs::file_size(r.output_path, ec);
  if (!ec)
    graph["file_bytes"] = size;
  auto data = fs::file_size(r.output_path + ".data", ec);
  if (!ec)
    graph["external_data_bytes"] = data;
  report["graph"] = graph;
  json applied = json::object();
  for (const auto &[rule, n] : r.optimized.applied)
    applied[rule] = n;
  report["rewrites"] = {{"nodes_before", r.optimized.nodes_before},
                        {"nodes_after", r.optimized.nodes_after},
                        {"initializers_removed", r.optimized.initializers_removed},
                        {"applied", applied}};
  report["notices"] = r.notices;
  report["warnings"] = r.warnings;
  json outs = json::array();
  for (size_t i = 0; i < r.output_names.size(); ++i)
    outs.push_back(output_json(r, i));
  report["outputs"] = outs;
  report["ops"] = ops_json(r);
  json functions = json::array();
  for (const auto &f : r.functions)
    functions.push_back({{"name", f.name},
                         {"domain", kFunctionDomain},
                         {"module_type", f.module_type},
                         {"calls", f.calls},
                         {"inputs", f.activation_inputs},
                         {"weight_inputs", f.weight_inputs},
                         {"outputs", f.outputs},
                         {"nodes", f.nodes}});
  report["functions"] = functions;
  if (!r.fallback_ops.empty()) {
    json ops = json::array();
    for (const auto &f : r.fallback_ops)
      ops.push_back({{"op", f.op}, {"uses", f.uses}, {"places", f.places}});
    report["fallback"] = {{"domain", r.fallback_domain}, {"ops", ops}};
  }
  if (r.verify)
    report["verify"] = verify_json(*r.verify);
  if (r.expected)
    report["expected"] = expected_json(*r.expected);
  if (r.divergence)
    report["divergence"] = divergence_json(*r.divergence);
  return report;
}

} // namespace

json build(const Inputs &in) {
  const ExportOptions &o = *in.options;
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["tool"] = {{"torch2onnx", T2O_VERSION}, {"libtorch", TORCH_VERSION}};
  if (in.result && in.result->verify && !in.result->verify->onnxruntime_version.empty())
    j["tool"]["onnxruntime"] = in.result->verify->onnxruntime_version;
  j["status"] = in.failure                                                     ? "error"
                : (in.result && in.result->verify && !in.result->verify->ok()) ? "verify_failed"
                : (in.result && in.result->expected && !in.result->expected->ok())
                    ? "expected_failed"
                    : "ok";
  j["exit_code"] = in.exit_code;
  j["seconds"] = in.seconds;
  j["model"] = o.model_path;
  j["output"] = in.output_path;
  j["opset"] = o.opset;
  j["options"] = options_json(o);
  json inputs = json::array();
  // The ONNX inputs once the model's arguments are bound; before that, the --input specs.
  const bool bound = in.result && !in.result->inputs.empty();
  const auto &specs = bound ? in.result->inputs : o.inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string name = specs[i].name;
    if (in.result && i < in.result->input_names.size())
      name = in.result->input_names[i];
    inputs.push_back(input_json(specs[i], name));
  }
  j["inputs"] = inputs;
  if (in.result && !in.result->constants.empty())
    j["constant_arguments"] = in.result->constants;
  j["options"]["input_data"] = o.input_data;
  if (in.result)
    result_json(*in.result, j);
  if (in.failure && in.partial) {
    json phases = phases_json(*in.partial, false);
    if (phases.size() > 1) // more than "export": some phase ran
      j["phases"] = phases;
  }
  if (in.failure) {
    json f = {{"kind", in.failure->kind}, {"message", in.failure->message}};
    if (!in.failure->hint.empty())
      f["hint"] = in.failure->hint;
    if (!in.failure->phase.empty())
      f["phase"] = in.failure->phase;
    if (const auto &n = in.failure->node) {
      f["node"] = {{"index", n->index}, {"op", n->op}, {"scope", n->scope}};
      if (!n->source.empty())
        f["node"]["source"] = n->source;
      f["node"]["inputs"] = n->inputs;
      f["reason"] = n->reason;
    }
    j["error"] = f;
  }
  return j;
}

std::string divergence_line(const Divergence &d) {
  if (!d.found)
    return "first diverging node: none found: " + d.note;
  std::string where = d.scope.empty() ? "" : " in " + d.scope;
  if (!d.source.empty())
    where += " (" + d.source + ")";
  std::string what = d.check.problem.empty()
                         ? fmt::format("max abs error {:.3g} > tolerance {:.3g}",
                                       d.check.max_abs_error, d.check.tolerance)
                         : d.check.problem;
  return fmt::format("first diverging node: #{} {}{}: {}; LibTorch's values in [{:.4g}, {:.4g}], "
                     "ONNX Runtime's in [{:.4g}, {:.4g}]; ONNX value '{}', converter {}{}",
                     d.index, d.op, where, what, d.torch_min, d.torch_max, d.onnx_min, d.onnx_max,
                     d.onnx_value, d.converter.empty() ? "the walker's own" : d.converter,
                     d.sizes.empty() ? "" : " (inputs at " + d.sizes + ")");
}

namespace {

std::string num(const json &v) {
  return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : std::string("n/a");
}

std::string dims_text(const json &in) {
  std::vector<std::string> parts;
  for (const auto &d : in["dims"])
    parts.push_back(d.is_string() ? d.get<std::string>() : d.is_null() ? "?" : d.dump());
  return fmt::format("{}[{}]", in["dtype"].get<std::string>(), fmt::join(parts, ","));
}

void markdown_verify(const json &v, std::string &o) {
  o += fmt::format("\n## Verification: {}\n\n", v["ok"].get<bool>() ? "ok" : "FAILED");
  o += "| data set | sizes | output | max abs error | max rel error | max \\|torch\\| | tolerance "
       "| verdict |\n";
  o += "| ---: | --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto &s : v["data_sets"]) {
    std::vector<std::string> sizes;
    for (const auto &[k, n] : s["sizes"].items())
      sizes.push_back(fmt::format("{}={}", k, n.dump()));
    for (const auto &c : s["outputs"])
      o += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", s["index"].get<int>(),
                       fmt::join(sizes, ","), c["name"].get<std::string>(), num(c["max_abs_error"]),
                       num(c["max_rel_error"]), num(c["max_abs_ref"]), num(c["tolerance"]),
                       c["ok"].get<bool>() ? "ok"
                                           : "FAIL" + (c.contains("problem")
                                                           ? ": " + c["problem"].get<std::string>()
                                                           : std::string()));
  }
}

void markdown_expected(const json &e, std::string &o) {
  o += fmt::format("\n## Expected outputs ({}): {}\n\n", e["file"].get<std::string>(),
                   e["ok"].get<bool>() ? "ok" : "FAILED");
  o += "| output | max abs error | max rel error | max \\|expected\\| | tolerance | verdict |\n";
  o += "| --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto &c : e["outputs"])
    o += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c["name"].get<std::string>(),
                     num(c["max_abs_error"]), num(c["max_rel_error"]), num(c["max_abs_ref"]),
                     num(c["tolerance"]),
                     c["ok"].get<bool>()
                         ? "ok"
                         : "FAIL" + (c.contains("problem") ? ": " + c["problem"].get<std::string>()
                                                           : std::string()));
}

} // namespace

std::string divergence_text(const json &d) {
  Divergence v;
  v.found = d["found"].get<bool>();
  v.note = d.value("note", std::string());
  v.compared = d["compared"].get<size_t>();
  v.skipped = d["skipped"].get<size_t>();
  std::vector<std::string> sizes;
  for (const auto &[k, n] : d["sizes"].items())
    sizes.push_back(fmt::format("{}={}", k, n.dump()));
  v.sizes = fmt::format("{}", fmt::join(sizes, ","));
  if (v.found) {
    v.index = d["node"]["index"].get<size_t>();
    v.op = d["node"]["op"].get<std::string>();
    v.scope = d["node"]["scope"].get<std::string>();
    v.source = d["node"].value("source", std::string());
    v.converter = d.value("converter", std::string());
    v.onnx_value = d["onnx_value"].get<std::string>();
    v.check.max_abs_error = d["max_abs_error"].is_number() ? d["max_abs_error"].get<double>() : 0;
    v.check.tolerance = d["tolerance"].get<double>();
    v.check.problem = d.value("problem", std::string());
    v.torch_min = d["torch_range"][0].is_number() ? d["torch_range"][0].get<double>() : 0;
    v.torch_max = d["torch_range"][1].is_number() ? d["torch_range"][1].get<double>() : 0;
    v.onnx_min = d["onnx_range"][0].is_number() ? d["onnx_range"][0].get<double>() : 0;
    v.onnx_max = d["onnx_range"][1].is_number() ? d["onnx_range"][1].get<double>() : 0;
  }
  return divergence_line(v);
}

void markdown_error(const json &e, std::string &o) {
  o += fmt::format("\n## Error ({})\n\n{}\n", e["kind"].get<std::string>(),
                   e["message"].get<std::string>());
  if (e.contains("node"))
    o += fmt::format(
        "\nnode: #{} {} in {}{}\n", e["node"]["index"].get<size_t>(),
        e["node"]["op"].get<std::string>(),
        e["node"]["scope"].get<std::string>().empty() ? "<top level>"
                                                      : e["node"]["scope"].get<std::string>(),
        e["node"].contains("source") ? " (" + e["node"]["source"].get<std::string>() + ")" : "");
  if (e.contains("phase"))
    o += fmt::format("\nphase: {}\n", e["phase"].get<std::string>());
  if (e.contains("hint"))
    o += fmt::format("\nhint: {}\n", e["hint"].get<std::string>());
}

void markdown_graph(const json &r, std::string &o) {
  const auto &g = r["graph"];
  o += fmt::format("\n## Graph\n\n- {} nodes, {} parameters ({})\n", g["nodes"].get<size_t>(),
                   human_count(g["parameters"].get<double>()),
                   human_bytes(g["parameter_bytes"].get<double>()));
  if (g.contains("file_bytes"))
    o += fmt::format("- file: {}\n", human_bytes(g["file_bytes"].get<double>()));
  const auto &rw = r["rewrites"];
  o += fmt::format("- rewrites: {} -> {} nodes", rw["nodes_before"].get<size_t>(),
                   rw["nodes_after"].get<size_t>());
  for (const auto &[rule, n] : rw["applied"].items())
    o += fmt::format(", {} {}", rule, n.dump());
  o += "\n\n## Phases (seconds)\n\n";
  for (const auto &[k, v] : r["phases"].items())
    o += fmt::format("- {}: {:.3f}\n", k, v.get<double>());
  std::vector<std::string> lines;
  for (const auto &w : r["notices"])
    lines.push_back("- " + w.get<std::string>());
  for (const auto &w : r["warnings"])
    lines.push_back("- " + w.get<std::string>());
  if (!lines.empty())
    o += fmt::format("\n## Warnings\n\n{}\n", fmt::join(lines, "\n"));
}

std::string markdown(const json &r) {
  std::string o;
  if (r.contains("divergence"))
    o += divergence_text(r["divergence"]) + "\n\n";
  o += fmt::format("# torch2onnx report: {}\n\n", r["model"].get<std::string>());
  o += fmt::format("- status: **{}** (exit {})\n", r["status"].get<std::string>(),
                   r["exit_code"].get<int>());
  o += fmt::format("- output: {}\n- opset: {}\n", r["output"].get<std::string>(),
                   r["opset"].get<int>());
  o += fmt::format("- torch2onnx {}, LibTorch {}{}\n", r["tool"]["torch2onnx"].get<std::string>(),
                   r["tool"]["libtorch"].get<std::string>(),
                   r["tool"].contains("onnxruntime")
                       ? ", ONNX Runtime " + r["tool"]["onnxruntime"].get<std::string>()
                       : "");
  if (r.contains("error"))
    markdown_error(r["error"], o);
  o += "\n## Inputs\n\n";
  for (const auto &in : r["inputs"])
    o += fmt::format("- {}: {}\n", in["name"].is_string() ? in["name"].get<std::string>() : "?",
                     in.contains("dims") ? dims_text(in) : in.value("spec", std::string()));
  if (r.contains("outputs")) {
    o += "\n## Outputs\n\n";
    for (const auto &out : r["outputs"])
      o += out.contains("dims")
               ? fmt::format("- {}: {}\n", out["name"].get<std::string>(), dims_text(out))
               : fmt::format("- {}\n", out["name"].get<std::string>());
  }
  if (r.contains("ops") && !r["ops"].empty()) {
    o += "\n## Ops\n\n| op | count | ONNX ops |\n| --- | ---: | --- |\n";
    for (const auto &[op, use] : r["ops"].items()) {
      std::vector<std::string> onnx;
      for (const auto &[t, n] : use["onnx"].items())
        onnx.push_back(fmt::format("{} {}", t, n.dump()));
      o += fmt::format("| {} | {} | {} |\n", op, use["count"].get<size_t>(), fmt::join(onnx, ", "));
    }
  }
  if (r.contains("graph"))
    markdown_graph(r, o);
  if (r.contains("verify"))
    markdown_verify(r["verify"], o);
  if (r.contains("expected"))
    markdown_expected(r["expected"], o);
  if (r.contains("divergence"))
    o += "\n## First diverging node\n\n" + divergence_text(r["divergence"]) + "\n";
  return o;
}

bool is_markdown(const std::string &path) {
  return fs::path(path).extension() == ".md";
}

std::string text(const std::string &path, const json &report) {
  // Messages may quote file names that are not UTF-8: replaced, not an exception.
  return is_markdown(path) ? markdown(report)
                           : report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void write(const std::string &path, const json &report) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw Error(fmt::format("cannot write the report '{}': it is a directory", path),
                "give a file name with --report");
  try {
    write_file_atomic(path, text(path, report));
  } catch (const Error &e) {
    throw Error(fmt::format("cannot write the report: {}", e.what()),
                "check that its folder exists and is writable");
  }
}

} // namespace torch2onnx::report
