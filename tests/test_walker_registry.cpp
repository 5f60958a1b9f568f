// The registry is the one list of what torch2onnx takes: the ops the TorchScript walker handles
// itself are its frontend entries (each naming the walker's handler), and the front-end-neutral
// driver (aten_lib/dispatch.h) checks what converters produce.
#include "aten_lib/dispatch.h"
#include "exporter/frontend/torchscript/walker.h"
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

TEST_CASE("the walker takes the registry's frontend entries, each with a handler it has",
          "[walker]") {
  std::set<FrontendHandler> used;
  std::set<std::string> ops;
  for (const auto *e : Registry::global().entries()) {
    if (!e->frontend)
      continue;
    INFO(e->op);
    CHECK(e->handler != FrontendHandler::None);
    CHECK(Walker::handles(e->handler));
    used.insert(e->handler);
    ops.insert(e->op);
  }
  // No handler without an op: every value of the enum is some entry's.
  for (int h = static_cast<int>(FrontendHandler::Constant);
       h <= static_cast<int>(FrontendHandler::Loop); ++h) {
    INFO("FrontendHandler " << h);
    CHECK(used.count(static_cast<FrontendHandler>(h)) == 1);
  }
  CHECK(!Walker::handles(FrontendHandler::None));
  CHECK(ops.count("aten::append") == 1);
  CHECK(ops.count("prim::If") == 1);
  INFO("frontend ops: " << joined(ops));
  // Issue 28's scripted built-ins: dict methods, isinstance, list.reverse() / clear().
  for (const char *op : {"aten::keys", "aten::values", "aten::items", "aten::get",
                         "aten::__contains__", "prim::isinstance", "aten::reverse", "aten::clear"})
    CHECK(ops.count(op) == 1);
  CHECK(ops.size() == 36);
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
  r.add_frontend("prim::If", FrontendHandler::If, {"If"});
  CHECK_THROWS_AS(r.add_frontend("prim::If", FrontendHandler::If, {"If"}), Error);
  CHECK_THROWS_AS(r.add("prim::If", kMinOpset, [](ConvertCtx &) {}, {}), Error);
  CHECK_THROWS_AS(r.add("prim::If", 16, [](ConvertCtx &) {}, {}), Error);
  r.add("aten::relu", 13, [](ConvertCtx &) {}, {});
  CHECK_THROWS_AS(r.add_frontend("aten::relu", FrontendHandler::SameValue, {}), Error);
  CHECK_THROWS_AS(r.add_frontend("prim::Loop", FrontendHandler::None, {}), Error);
  Registry plugin;
  plugin.add("prim::If", 16, [](ConvertCtx &) {}, {});
  CHECK_THROWS_AS(r.add_plugin_entries(plugin, "libp.so"), Error);
}

TEST_CASE("call_converter checks every output is bound", "[dispatch]") {
  GraphBuilder b(kDefaultOpset);
  Val x = b.add_input("x", TensorInfo{DType::Float, std::vector<Dim>{Dim::known(2)}});
  RegistryEntry relu_only_first{
      "test::two_outputs",
      kMinOpset,
      [](ConvertCtx &c) { c.set_out(0, c.b.op1("Relu", {c.tensor("x")})); },
      {"Relu"},
      "test"};
  NodeContext node;
  node.op = "test::two_outputs";
  node.outputs = {"y", "z"};
  node.arg_names = {"x"};
  Registry registry;
  std::vector<OutputSlot> slots(2);
  SECTION("a missing output is an error naming it") {
    try {
      call_converter(b, registry, relu_only_first, node, {Arg::of_tensor(x)}, slots);
      FAIL("expected an Error");
    } catch (const Error &e) {
      CHECK(std::string(e.what()) ==
            "the test::two_outputs converter did not produce output 1 (%z)");
    }
  }
  SECTION("an output that may be None may stay unset") {
    slots[1].may_be_none = true;
    auto outs = call_converter(b, registry, relu_only_first, node, {Arg::of_tensor(x)}, slots);
    REQUIRE(outs.size() == 2);
    CHECK(outs[0].is_tensor());
    CHECK(outs[1].is_none());
  }
  SECTION("a frontend entry has nothing to call") {
    RegistryEntry frontend{"prim::If", kMinOpset, {}, {"If"}, "frontend", true};
    CHECK_THROWS_AS(call_converter(b, registry, frontend, node, {}, slots), Error);
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
