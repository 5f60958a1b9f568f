// The front-end seam (exporter/frontend/source_graph.h) with a second front end: a graph that is
// a list of ATen op calls, each named by its operator and overload as a torch.export program's
// nodes are, run through ATen's dispatcher and converted through aten_lib's dispatch. No
// TorchScript anywhere: what it reuses (the registry, the converters reading arguments by the
// schema's names, the builder, ONNX Runtime's runner, --locate) is what any front end would.
#include "aten_lib/dispatch.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/source_graph.h"
#include "exporter/locate.h"
#include "exporter/verify/verify.h"
#include "harness.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <catch2/catch.hpp>
#include <filesystem>
#include <variant>

using namespace torch2onnx;
using t2o_test::fresh_dir;
using t2o_test::registry_with_relu;

namespace {

// One call: the operator, its overload, its arguments in the schema's order (a value of the graph
// or a constant), the value it makes and the module it ran in.
struct OpCall {
  std::string op, overload;
  std::vector<std::variant<ValueId, c10::IValue>> args;
  ValueId out = 0;
  std::string scope;
};

const c10::FunctionSchema &schema_of(const OpCall &call) {
  return c10::Dispatcher::singleton()
      .findSchemaOrThrow(call.op.c_str(), call.overload.c_str())
      .schema();
}

Arg constant_arg(GraphBuilder &b, const c10::IValue &v) {
  if (v.isTensor()) // a weight: an initializer, as any front end's constant tensors become
    return Arg::of_tensor(b.constant(to_tensor_data(v.toTensor()), "weight"));
  if (v.isNone())
    return Arg::none();
  if (v.isBool())
    return Arg::of_bool(v.toBool());
  if (v.isInt())
    return Arg::of_int(v.toInt());
  if (v.isDouble())
    return Arg::of_float(v.toDouble());
  REQUIRE(v.isIntList());
  std::vector<Arg> items;
  for (int64_t i : v.toIntVector())
    items.push_back(Arg::of_int(i));
  return Arg::of_list(std::move(items));
}

class OpListGraph : public SourceGraph {
public:
  std::vector<ValueId> inputs;
  std::vector<OpCall> calls;
  ValueId output = 0;

  // Each call run by ATen's dispatcher, as the source framework computes it.
  ValueTensors values_on(const std::vector<at::Tensor> &ins) const override {
    ValueTensors v;
    for (size_t i = 0; i < inputs.size(); ++i)
      v[inputs[i]] = ins.at(i);
    for (const OpCall &call : calls) {
      std::vector<c10::IValue> stack;
      for (const auto &a : call.args)
        stack.push_back(std::holds_alternative<ValueId>(a) ? c10::IValue(v.at(std::get<0>(a)))
                                                           : std::get<1>(a));
      c10::Dispatcher::singleton()
          .findSchemaOrThrow(call.op.c_str(), call.overload.c_str())
          .callBoxed(&stack);
      v[call.out] = stack.at(0).toTensor();
    }
    return v;
  }

  Converted convert(const GraphInputs &gi, int opset, const std::vector<std::string> &output_names,
                    const Registry *registry) const override {
    Converted c;
    // Shapes from one run at the example inputs (an exported program carries them instead).
    std::vector<at::Tensor> example;
    for (const auto &e : gi.example)
      example.push_back(e.toTensor());
    for (const auto &[id, t] : values_on(example))
      c.record.infos[id] = info_of(t);
    c.builder = std::make_unique<GraphBuilder>(opset);
    const Registry &reg = registry ? *registry : Registry::global();
    std::unordered_map<ValueId, Val> env;
    for (size_t i = 0; i < inputs.size(); ++i) {
      env[inputs[i]] = c.builder->add_input(gi.names.at(i), gi.infos.at(i));
      c.input_names.push_back(env[inputs[i]].name);
    }
    for (size_t k = 0; k < calls.size(); ++k) {
      const OpCall &call = calls[k];
      NodeContext node;
      node.index = k;
      node.op = call.op;
      node.overload = call.overload;
      node.scope = call.scope;
      for (const auto &a : schema_of(call).arguments())
        node.arg_names.push_back(a.name());
      std::vector<Arg> args;
      for (const auto &a : call.args)
        args.push_back(std::holds_alternative<ValueId>(a)
                           ? Arg::of_tensor(env.at(std::get<0>(a)))
                           : constant_arg(*c.builder, std::get<1>(a)));
      const RegistryEntry *entry = find_converter(reg, call.op, opset);
      REQUIRE(entry != nullptr);
      c.builder->set_scope(call.scope.empty() ? call.op : call.scope + "/" + call.op);
      auto outs = call_converter(*c.builder, reg, *entry, node, std::move(args),
                                 {OutputSlot{*c.record.find(call.out), false}});
      env[call.out] = outs.at(0).tensor;
      // The recorded dtype and shape are the value's (the builder's own guess may be less).
      c.builder->set_info(env[call.out], *c.record.find(call.out));
      c.walked_nodes.push_back(WalkedNode{call.op, NodeWhere{call.scope, ""}});
      c.walked.push_back(WalkedValue{call.out, k, k, entry, env[call.out].name});
    }
    add_graph_outputs({{env.at(output), ""}}, output_names, c);
    return c;
  }

  std::map<std::string, std::string> module_types() const override { return {}; }
};

// y = relu(linear(x, w, b)) * 2 + x[:, :4]: the ops' argument names come from ATen's schemas.
OpListGraph small_graph(const at::Tensor &w, const at::Tensor &bias) {
  OpListGraph g;
  g.inputs = {1};
  g.calls = {
      {"aten::linear", "", {ValueId{1}, c10::IValue(w), c10::IValue(bias)}, 2, "fc"},
      {"aten::relu", "", {ValueId{2}}, 3, "act"},
      {"aten::mul", "Scalar", {ValueId{3}, c10::IValue(2.0)}, 4, ""},
      {"aten::slice",
       "Tensor",
       {ValueId{1}, c10::IValue(int64_t{1}), c10::IValue(int64_t{0}), c10::IValue(int64_t{4}),
        c10::IValue(int64_t{1})},
       5,
       ""},
      {"aten::add", "Tensor", {ValueId{4}, ValueId{5}, c10::IValue(1.0)}, 6, ""},
  };
  g.output = 6;
  return g;
}

struct Exported {
  std::string path;
  Converted c;
};

Exported export_through_seam(const SourceGraph &g, const at::Tensor &x, const std::string &dir,
                             const Registry *registry = nullptr) {
  GraphInputs gi;
  gi.names = {"x"};
  gi.example = {c10::IValue(x)};
  gi.infos = {info_of(x)};
  Exported e{(std::filesystem::path(dir) / "model.onnx").string(), g.convert(gi, 17, {}, registry)};
  e.c.builder->save(e.path, SerializeOptions{});
  return e;
}

} // namespace

TEST_CASE("source graph: a front end without TorchScript converts, runs and verifies", "[seam]") {
  at::manual_seed(0);
  at::Tensor x = at::randn({3, 8}), w = at::randn({4, 8}), bias = at::randn({4});
  OpListGraph g = small_graph(w, bias);
  Exported e = export_through_seam(g, x, fresh_dir("seam_ok"));
  CHECK(e.c.output_names == std::vector<std::string>{"output"});
  // The source framework's value against ONNX Runtime's, at other inputs than the example.
  at::Tensor other = at::randn({3, 8});
  at::Tensor expected = g.values_on({other}).at(g.output);
  std::vector<at::Tensor> ort = run_onnxruntime(e.path, e.c.input_names, {other});
  REQUIRE(ort.size() == 1);
  auto checks = compare_outputs({"output"}, {expected}, ort, 1e-4, 1e-4);
  INFO(checks.at(0).problem);
  CHECK(checks.at(0).ok());
  // --locate through the seam: every walked value is compared, none differs.
  LocateRun run{e.path, e.c.input_names, e.c.output_names, e.c.output_values, {other}, "", 1e-4,
                1e-4};
  Divergence d = locate_divergence(g, e.c.walked, e.c.walked_nodes, run);
  CHECK_FALSE(d.found);
  CHECK(d.compared == g.calls.size());
}

TEST_CASE("source graph: --locate names the node a wrong converter made, from the front end's "
          "records",
          "[seam]") {
  at::manual_seed(1);
  at::Tensor x = at::randn({4, 8}), w = at::randn({4, 8}), bias = at::randn({4});
  OpListGraph g = small_graph(w, bias);
  Registry wrong =
      registry_with_relu([](ConvertCtx &c) { c.set_out(0, c.b.op1("Abs", {c.tensor("self")})); });
  Exported e = export_through_seam(g, x, fresh_dir("seam_wrong"), &wrong);
  LocateRun run{e.path, e.c.input_names, e.c.output_names, e.c.output_values, {x}, "", 1e-4, 1e-4};
  Divergence d = locate_divergence(g, e.c.walked, e.c.walked_nodes, run);
  REQUIRE(d.found);
  CHECK(d.op == "aten::relu");
  CHECK(d.scope == "act");
  CHECK(d.index == 1);
  CHECK(d.converter == "aten::relu (test, since opset 13)");
  CHECK(d.compared == 2); // the linear before it was compared and passed
}
