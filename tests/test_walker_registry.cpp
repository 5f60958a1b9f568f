// The registry is the one list of what torch2onnx takes: the ops the TorchScript walker handles
// itself (its handler table) are its frontend entries, and the front-end-neutral driver
// (aten_lib/dispatch.h) checks what converters produce.
#include "aten_lib/dispatch.h"
#include "exporter/frontend/walker.h"
#include "harness.h"

#include <set>
#include <string>

using namespace torch2onnx;

namespace {

std::string joined(const std::set<std::string> &ops) {
  std::string out;
  for (const auto &op : ops)
    out += (out.empty() ? "" : " ") + op;
  return out;
}

} // namespace

TEST_CASE("walker handler table and registry frontend entries are the same ops", "[walker]") {
  std::vector<std::string> kinds = Walker::handled_kinds();
  std::set<std::string> walker(kinds.begin(), kinds.end());
  CHECK(walker.size() == kinds.size()); // no kind twice in the table
  std::set<std::string> registry;
  for (const auto *e : Registry::global().entries())
    if (e->frontend)
      registry.insert(e->op);
  std::set<std::string> only_walker, only_registry;
  for (const auto &op : walker)
    if (!registry.count(op))
      only_walker.insert(op);
  for (const auto &op : registry)
    if (!walker.count(op))
      only_registry.insert(op);
  INFO("handled by the walker, not in aten_lib/frontend_ops.cpp: " << joined(only_walker));
  INFO("in aten_lib/frontend_ops.cpp, not handled by the walker: " << joined(only_registry));
  CHECK(only_walker.empty());
  CHECK(only_registry.empty());
  CHECK(walker.count("aten::append") == 1);
  CHECK(walker.count("prim::If") == 1);
}

TEST_CASE("frontend entries are listed at every opset but have no converter", "[walker]") {
  const Registry &r = Registry::global();
  for (const auto *e : r.entries()) {
    if (!e->frontend)
      continue;
    INFO(e->op);
    CHECK(e->family == "frontend");
    CHECK(!e->fn);
    for (int opset = kMinOpset; opset <= kMaxOpset; ++opset) {
      CHECK(r.find(e->op, opset) == e);
      CHECK(find_converter(r, e->op, opset) == nullptr);
    }
  }
  CHECK(find_converter(r, "aten::relu", kDefaultOpset) != nullptr);
}

TEST_CASE("a frontend op cannot also be registered as a converter", "[walker]") {
  Registry r;
  r.add_frontend("prim::If", {"If"});
  CHECK_THROWS_AS(r.add_frontend("prim::If", {"If"}), Error);
  CHECK_THROWS_AS(r.add("prim::If", kMinOpset, [](ConvertCtx &) {}, {}), Error);
}

TEST_CASE("call_converter checks every output is bound", "[dispatch]") {
  GraphBuilder b(kDefaultOpset);
  Val x = b.add_input("x", TensorInfo{DType::Float, std::vector<Dim>{Dim::known(2)}});
  RegistryEntry relu_only_first{"test::two_outputs",
                                kMinOpset,
                                [](ConvertCtx &c) { c.set_out(0, c.b.op1("Relu", {c.tensor(0)})); },
                                {"Relu"},
                                "test"};
  NodeContext node;
  node.op = "test::two_outputs";
  node.outputs = {"y", "z"};
  std::vector<OutputSlot> slots(2);
  SECTION("a missing output is an error naming it") {
    try {
      call_converter(b, relu_only_first, node, {Arg::of_tensor(x)}, slots);
      FAIL("expected an Error");
    } catch (const Error &e) {
      CHECK(std::string(e.what()) ==
            "the test::two_outputs converter did not produce output 1 (%z)");
    }
  }
  SECTION("an output that may be None may stay unset") {
    slots[1].may_be_none = true;
    auto outs = call_converter(b, relu_only_first, node, {Arg::of_tensor(x)}, slots);
    REQUIRE(outs.size() == 2);
    CHECK(outs[0].is_tensor());
    CHECK(outs[1].is_none());
  }
  SECTION("a frontend entry has nothing to call") {
    RegistryEntry frontend{"prim::If", kMinOpset, {}, {"If"}, "frontend", true};
    CHECK_THROWS_AS(call_converter(b, frontend, node, {}, slots), Error);
  }
}

TEST_CASE("node_error puts the node in front and keeps the hint", "[dispatch]") {
  NodeContext node;
  node.index = 7;
  node.op = "aten::view";
  node.scope = "layer1.0";
  node.source = "model.py:12";
  node.inputs = {"%x: f32[1,3]", "%s = [3]"};
  Error e = node_error(node, Error("bad shape", "try reshape"));
  CHECK(
      std::string(e.what()) ==
      "node #7 aten::view (layer1.0, model.py:12) with inputs [%x: f32[1,3], %s = [3]]: bad shape");
  CHECK(e.hint() == "try reshape");
  node.scope.clear();
  node.source.clear();
  CHECK(std::string(node_error(node, std::runtime_error("x")).what()) ==
        "node #7 aten::view (<top level>) with inputs [%x: f32[1,3], %s = [3]]: x");
}
