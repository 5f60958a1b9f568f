// The converter registry: in-place twins, duplicate registrations, the since-opset lookup and the
// family labels docs/operators.md shows. No ONNX Runtime here; these check the table itself.
#include "aten_lib/converter.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace torch2onnx;

namespace {

using FnPtr = void (*)(ConvertCtx &);

void conv_a(ConvertCtx &) {}
void conv_b(ConvertCtx &) {}
void conv_c(ConvertCtx &) {}

// The plain function a registry entry calls (nullptr when it holds something else).
FnPtr target_of(const RegistryEntry *e) {
  REQUIRE(e != nullptr);
  const FnPtr *p = e->fn.target<FnPtr>();
  return p ? *p : nullptr;
}

bool is_inplace_name(const std::string &op) {
  return op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_';
}

} // namespace

TEST_CASE("registry: add_with_inplace registers op and op_ with one converter", "[registry]") {
  Registry r;
  r.set_family("test");
  r.add_with_inplace("aten::foo", 13, conv_a, {"Relu"});
  const RegistryEntry *plain = r.find("aten::foo", 13);
  const RegistryEntry *inplace = r.find("aten::foo_", 13);
  REQUIRE(plain != nullptr);
  REQUIRE(inplace != nullptr);
  CHECK(target_of(plain) == &conv_a);
  CHECK(target_of(inplace) == &conv_a);
  CHECK(inplace->onnx_ops == std::vector<std::string>{"Relu"});
  CHECK(inplace->since_opset == 13);
  CHECK(inplace->family == "test");
  // Both names are listed, so `torch2onnx ops` and docs/operators.md show the in-place spelling.
  std::set<std::string> listed;
  for (const auto *e : r.entries())
    listed.insert(e->op);
  CHECK(listed == std::set<std::string>{"aten::foo", "aten::foo_"});
}

TEST_CASE("registry: shipped in-place twins resolve to the functional converter", "[registry]") {
  const Registry &r = Registry::global();
  // Spot checks, one per family that registers twins, at both opsets where the op has two entries.
  for (const char *op : {"aten::relu", "aten::add", "aten::clamp", "aten::scatter",
                         "aten::index_put", "aten::bitwise_and", "aten::transpose"}) {
    for (int opset : {13, 17}) {
      INFO(op << " at opset " << opset);
      const RegistryEntry *plain = r.find(op, opset);
      const RegistryEntry *inplace = r.find(std::string(op) + "_", opset);
      REQUIRE(plain != nullptr);
      REQUIRE(inplace != nullptr);
      CHECK(inplace->since_opset == plain->since_opset);
      CHECK(target_of(inplace) == target_of(plain));
      CHECK(target_of(inplace) != nullptr);
    }
  }
  // Every in-place name whose functional op is registered at the same opset shares its converter.
  size_t twins = 0;
  for (const auto *e : r.entries()) {
    if (!is_inplace_name(e->op))
      continue;
    const RegistryEntry *plain = r.find(e->op.substr(0, e->op.size() - 1), e->since_opset);
    if (!plain || plain->since_opset != e->since_opset)
      continue;
    INFO(e->op << " at opset " << e->since_opset);
    CHECK(target_of(e) == target_of(plain));
    ++twins;
  }
  CHECK(twins >= 102);
}

TEST_CASE("registry: a second registration of the same (op, opset) throws", "[registry]") {
  Registry r;
  r.set_family("test");
  r.add("aten::foo", 13, conv_a, {});
  CHECK_THROWS_AS(r.add("aten::foo", 13, conv_b, {}), Error);
  // Another opset of the same op is fine.
  CHECK_NOTHROW(r.add("aten::foo", 14, conv_b, {}));
  // The twin registration checks both names.
  r.add("aten::bar_", 13, conv_a, {});
  CHECK_THROWS_AS(r.add_with_inplace("aten::bar", 13, conv_b, {}), Error);
  CHECK_THROWS_AS(r.add_with_inplace("aten::foo", 14, conv_c, {}), Error);
}

TEST_CASE("registry: lookup takes the newest entry at or below the opset", "[registry]") {
  Registry r;
  r.set_family("test");
  r.add("aten::foo", 13, conv_a, {});
  r.add("aten::foo", 16, conv_b, {});
  CHECK(r.find("aten::foo", 12) == nullptr);
  CHECK(r.find("aten::missing", 17) == nullptr);
  CHECK(target_of(r.find("aten::foo", 13)) == &conv_a);
  CHECK(target_of(r.find("aten::foo", 15)) == &conv_a);
  CHECK(target_of(r.find("aten::foo", 16)) == &conv_b);
  CHECK(target_of(r.find("aten::foo", 17)) == &conv_b);
  CHECK(r.find("aten::foo", 15)->since_opset == 13);
  CHECK(r.find("aten::foo", 17)->since_opset == 16);

  // The shipped per-opset converters: each since-opset fact is its own entry.
  const Registry &g = Registry::global();
  struct Case {
    const char *op;
    int opset, since;
  };
  for (const Case &k :
       {Case{"aten::hardswish", 13, 11}, Case{"aten::hardswish", 17, 14},
        Case{"aten::gelu", 19, 11}, Case{"aten::gelu", 21, 20}, Case{"aten::group_norm", 20, 11},
        Case{"aten::group_norm", 21, 21}, Case{"aten::layer_norm", 16, 11},
        Case{"aten::layer_norm", 17, 17}, Case{"aten::tril", 13, 11}, Case{"aten::tril", 14, 14},
        Case{"torchvision::roi_align", 15, 11}, Case{"torchvision::roi_align", 16, 16},
        Case{"aten::scatter_add", 15, 11}, Case{"aten::scatter_add", 17, 16}}) {
    INFO(k.op << " at opset " << k.opset);
    const RegistryEntry *e = g.find(k.op, k.opset);
    REQUIRE(e != nullptr);
    CHECK(e->since_opset == k.since);
  }
  CHECK(target_of(g.find("aten::hardswish", 13)) != target_of(g.find("aten::hardswish", 14)));
  CHECK(target_of(g.find("aten::layer_norm", 13)) != target_of(g.find("aten::layer_norm", 17)));
}

TEST_CASE("registry: every shipped entry names its family", "[registry]") {
  const Registry &r = Registry::global();
  auto entries = r.entries();
  REQUIRE(entries.size() > 400);
  std::set<std::string> families;
  for (const auto *e : entries) {
    INFO(e->op << " at opset " << e->since_opset);
    CHECK(!e->family.empty());
    CHECK(e->since_opset >= kMinOpset);
    families.insert(e->family);
  }
  // Renamed families keep their entries: scalar_ops_dynamic.cpp is number.cpp.
  CHECK(families.count("number") == 1);
  CHECK(families.count("scalar_dynamic") == 0);
  CHECK(r.find("aten::add.num", kDefaultOpset)->family == "number");
  CHECK(r.find("aten::arange", kDefaultOpset)->family == "creation");
  CHECK(r.find("aten::index", kDefaultOpset)->family == "indexing");
}
