#include "exporter/core/converted.h"

#include "builder/error.h"

#include <fmt/format.h>
#include <set>

namespace torch2onnx {

// Adds the graph's outputs to the builder under --output-names, or else default names: dict keys
// where the output came from a dict, else output / output_N.
void add_graph_outputs(const std::vector<std::pair<Val, std::string>> &outs,
                       const std::vector<std::string> &output_names, Converted &c) {
  if (!output_names.empty() && output_names.size() != outs.size())
    throw UsageError(fmt::format("--output-names gives {} name{} but the model has {} output{}",
                                 output_names.size(), output_names.size() == 1 ? "" : "s",
                                 outs.size(), outs.size() == 1 ? "" : "s"),
                     "give one name per output, in order, or leave --output-names out");
  std::set<std::string> hints;
  bool hints_usable = true;
  for (const auto &o : outs)
    hints_usable = hints_usable && (o.second.empty() || hints.insert(o.second).second);
  // A default name must not repeat an input's name (forward(x) returning {'x': ...}): ONNX names
  // are unique, so such an output becomes x_out.
  std::set<std::string> taken(c.input_names.begin(), c.input_names.end());
  for (const auto &n : output_names)
    if (taken.count(n))
      throw UsageError(
          fmt::format("--output-names '{}' is also the name of an input (a forward argument)", n),
          "ONNX value names must be unique; rename the output, or name the input with --input "
          "NAME:dtype[dims]");
  auto unused = [&](std::string name) {
    std::string base = name;
    for (int k = 1; taken.count(name); ++k)
      name = k == 1 ? base + "_out" : fmt::format("{}_out{}", base, k);
    return name;
  };
  if (outs.empty())
    throw Error("forward returns no tensor (only None), so the ONNX model would have no output",
                "return the tensors the model computes");
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string name = !output_names.empty()                     ? output_names[i]
                       : hints_usable && !outs[i].second.empty() ? unused(outs[i].second)
                       : outs.size() == 1                        ? unused("output")
                                          : unused(fmt::format("output_{}", i));
    taken.insert(name);
    c.builder->add_output(outs[i].first, name);
    c.output_names.push_back(name);
    c.output_values.push_back(outs[i].first.name);
    c.output_infos.push_back(c.builder->has_info(outs[i].first) ? c.builder->info(outs[i].first)
                                                                : TensorInfo{});
  }
}

} // namespace torch2onnx
