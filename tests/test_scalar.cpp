#include "aten_lib/converter.h"
#include "exporter/verify/verify.h"
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <filesystem>

using namespace t2o_test;

// The numbers come from a runtime tensor (a sum), so the walker cannot fold them.
TEST_CASE("aten::Int", "[scalar]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  %i : int = aten::Int(%s)
  %f : float = aten::Float(%s)
  %b : bool = aten::Bool(%s)
  %ti : Tensor = prim::NumToTensor(%i)
  %tf : Tensor = prim::NumToTensor(%f)
  %tb : Tensor = prim::NumToTensor(%b)
  return (%ti, %tf, %tb))IR",
                           {randn({5}) * 3});
  CHECK(r.count("Cast") >= 2);
}

TEST_CASE("aten::item", "[scalar]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  %n : Scalar = aten::item(%s)
  %m : Scalar = aten::ScalarImplicit(%s)
  %tn : Tensor = prim::NumToTensor(%n)
  %tm : Tensor = prim::NumToTensor(%m)
  return (%tn, %tm))IR",
                  {randn({5})});
}

// dim/numel fold on static shapes; with a dynamic dim their converters run.
TEST_CASE("aten::dim", "[scalar]") {
  for (int opset : {13, 17}) {
    check_ir_dynamic(ir("%x : Tensor", R"IR(
  %d : int = aten::dim(%x)
  %y : Tensor = aten::mul(%x, %d))IR"),
                     {randn({2, 3, 4})}, {randn({5, 3, 4}, 2)}, opset);
  }
}

TEST_CASE("aten::numel", "[scalar]") {
  SECTION("dynamic shape") {
    for (int opset : {13, 17}) {
      auto r = check_ir_dynamic(ir("%x : Tensor", R"IR(
  %n : int = aten::numel(%x)
  %y : Tensor = aten::add(%x, %n, %1))IR"),
                                {randn({2, 3})}, {randn({4, 5}, 2)}, opset);
      CHECK(r.count("Size") == 1);
    }
  }
  SECTION("static shape folds") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %n : int = aten::numel(%x)
  %y : Tensor = aten::add(%x, %n, %1))IR"),
                             {randn({2, 3})});
    CHECK(r.count("Size") == 0);
  }
}

// Tensor properties that are constants in an ONNX graph: x * is_floating_point(x) + is_pinned(x)
// + storage_offset(x), for a float and an int tensor.
TEST_CASE("aten::is_floating_point", "[scalar]") {
  std::string body = R"IR(
  %f : bool = aten::is_floating_point(%x)
  %p : bool = aten::is_pinned(%x, %none)
  %o : int = aten::sym_storage_offset(%x)
  %fi : int = aten::Int(%f)
  %pi : int = aten::Int(%p)
  %a : Tensor = aten::mul(%x, %fi)
  %b : Tensor = aten::add(%a, %pi, %1)
  %y : Tensor = aten::add(%b, %o, %1))IR";
  check_ir_opsets(ir("%x : Tensor", body), {randn({2, 3})});
  check_ir_opsets(ir("%x : Tensor", body), {ints({2, 3})});
}

// The converters themselves (the walker folds these when the rank is known).
TEST_CASE("aten::is_pinned", "[scalar]") {
  using namespace torch2onnx;
  GraphBuilder b(17);
  Val x = b.add_input("x", TensorInfo{DType::Int64, std::nullopt});
  auto call = [&](const std::string &op) {
    ConvertCtx c(b, op, {Arg::of_tensor(x)}, {TensorInfo{}}, t2o_test::schema_arg_names(op, 1));
    Registry::global().find(op, 17)->fn(c);
    return c.outputs().at(0);
  };
  CHECK(!call("aten::is_floating_point").to_bool());
  CHECK(!call("aten::is_pinned").to_bool());
  CHECK(call("aten::sym_storage_offset").to_int() == 0);
  CHECK(call("aten::storage_offset").to_int() == 0);
}

// ---- dynamic sizes ----------------------------------------------------------------------------
// The IR harness records static shapes, so the converters' dynamic paths are driven directly here:
// a builder whose input x has a symbolic first dim, converters called from the registry, and the
// model run in ONNX Runtime on two batch sizes against LibTorch.

namespace {

using namespace torch2onnx;

struct DynGraph {
  GraphBuilder b;
  Val x;
  explicit DynGraph(int opset, std::vector<Dim> dims) : b(opset) {
    x = b.add_input("x", TensorInfo{DType::Float, dims});
  }
  // Runs the converter for `op` (its schema with as many arguments as `args`); `out` is the output
  // info LibTorch would record (may be symbolic).
  Arg call(const std::string &op, std::vector<Arg> args, std::vector<TensorInfo> out = {}) {
    if (out.empty())
      out.push_back(TensorInfo{});
    std::vector<std::string> names = t2o_test::schema_arg_names(op, args.size());
    ConvertCtx c(b, op, std::move(args), out, std::move(names));
    const RegistryEntry *e = Registry::global().find(op, b.opset());
    REQUIRE(e != nullptr);
    e->fn(c);
    Arg r = c.outputs().at(0);
    if (r.is_tensor() && out[0].dtype != DType::Undefined)
      b.set_info(r.t(), out[0]);
    return r;
  }
  at::Tensor run(const Val &y, const TensorInfo &info, const at::Tensor &input) {
    b.set_info(y, info);
    b.add_output(y, "y");
    auto path =
        (std::filesystem::temp_directory_path() / ("dyn_" + std::to_string(::getpid()) + ".onnx"))
            .string();
    b.save(path, SerializeOptions{});
    auto outs = run_onnxruntime(path, {"x"}, {input});
    std::filesystem::remove(path);
    return outs.at(0);
  }
};

std::vector<Dim> batch_dims(std::vector<int64_t> rest) {
  std::vector<Dim> d = {Dim::named("batch")};
  for (auto r : rest)
    d.push_back(Dim::known(r));
  return d;
}

TensorInfo f32(std::vector<Dim> d) {
  return TensorInfo{DType::Float, d};
}

} // namespace

TEST_CASE("aten::size", "[scalar]") {
  int64_t batch = GENERATE(2, 5);
  int opset = GENERATE(13, 17);
  INFO("batch " << batch << " opset " << opset);
  at::Tensor in = randn({batch, 3, 4});
  SECTION("size feeds view: x.view(x.size(0), -1)") {
    DynGraph g(opset, batch_dims({3, 4}));
    Arg n = g.call("aten::size", {Arg::of_tensor(g.x), Arg::of_int(0)});
    CHECK(n.is_tensor());
    Arg shape = Arg::of_list({n, Arg::of_int(-1)});
    TensorInfo out = f32(batch_dims({12}));
    Val y = g.call("aten::view", {Arg::of_tensor(g.x), shape}, {out}).t();
    CHECK(at::allclose(g.run(y, out, in), in.view({batch, -1})));
  }
  SECTION("size() list, numel and dim") {
    DynGraph g(opset, batch_dims({3, 4}));
    Arg sizes = g.call("aten::size", {Arg::of_tensor(g.x)});
    REQUIRE(sizes.is_list());
    CHECK(sizes.items[1].kind == Arg::Kind::Int);
    CHECK(g.call("aten::dim", {Arg::of_tensor(g.x)}).to_int() == 3);
    Arg numel = g.call("aten::numel", {Arg::of_tensor(g.x)});
    Arg items = Arg::of_list({numel});
    TensorInfo out = f32({Dim::named("n")});
    Val y = g.call("aten::reshape", {Arg::of_tensor(g.x), items}, {out}).t();
    CHECK(at::allclose(g.run(y, out, in), in.reshape({-1})));
  }
  SECTION("flatten keeps the dynamic batch") {
    DynGraph g(opset, batch_dims({3, 4}));
    TensorInfo out = f32(batch_dims({12}));
    Val y =
        g.call("aten::flatten", {Arg::of_tensor(g.x), Arg::of_int(1), Arg::of_int(-1)}, {out}).t();
    CHECK(at::allclose(g.run(y, out, in), in.flatten(1)));
  }
  SECTION("flatten of the leading dims") {
    DynGraph g(opset, batch_dims({3, 4}));
    TensorInfo out = f32({Dim::named("b3"), Dim::known(4)});
    Val y =
        g.call("aten::flatten", {Arg::of_tensor(g.x), Arg::of_int(0), Arg::of_int(1)}, {out}).t();
    CHECK(at::allclose(g.run(y, out, in), in.flatten(0, 1)));
  }
  SECTION("var over the dynamic dim") {
    DynGraph g(opset, batch_dims({3, 4}));
    TensorInfo out = f32({Dim::known(3), Dim::known(4)});
    Arg dims = Arg::of_list({Arg::of_int(0)});
    Val y = g.call("aten::var",
                   {Arg::of_tensor(g.x), dims, Arg::of_bool(true), Arg::of_bool(false)}, {out})
                .t();
    CHECK(at::allclose(g.run(y, out, in), in.var(0), 1e-4, 1e-5));
  }
  SECTION("zeros_like") {
    DynGraph g(opset, batch_dims({3, 4}));
    TensorInfo out = f32(batch_dims({3, 4}));
    Val y = g.call("aten::zeros_like", {Arg::of_tensor(g.x)}, {out}).t();
    CHECK(at::equal(g.run(y, out, in), at::zeros_like(in)));
  }
}

// math.fabs / degrees / radians / modf on run-time numbers (from a tensor, so nothing folds).
TEST_CASE("aten::fabs", "[scalar]") {
  auto ir = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  %f : float = aten::Float(%s)
  %i : int = aten::Int(%s)
  %a : float = aten::fabs(%f)
  %ai : float = aten::fabs(%i)
  %d : float = aten::degrees(%f)
  %di : float = aten::degrees(%i)
  %r : float = aten::radians(%f)
  %fr : float, %wh : float = aten::modf(%f)
  %ta : Tensor = prim::NumToTensor(%a)
  %tai : Tensor = prim::NumToTensor(%ai)
  %td : Tensor = prim::NumToTensor(%d)
  %tdi : Tensor = prim::NumToTensor(%di)
  %tr : Tensor = prim::NumToTensor(%r)
  %tfr : Tensor = prim::NumToTensor(%fr)
  %twh : Tensor = prim::NumToTensor(%wh)
  return (%ta, %tai, %td, %tdi, %tr, %tfr, %twh))IR";
  for (float v : {-7.25f, -0.5f, 0.f, 0.75f, 3.f, 123.5f}) {
    CAPTURE(v);
    check_ir_opsets(ir, {at::tensor({v})});
  }
}

// math.log(a, base), a >> b, a << b, math.atan2 / fmod / copysign / lgamma / gcd and int & | ^ on
// run-time numbers (scripted models computing levels or halves from sizes): each has a number
// converter of its own (before: the base was dropped, or the tensor converter read 'self').
TEST_CASE("aten::log with a base, shifts and math functions on run-time numbers", "[scalar]") {
  auto ir = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %two : float = prim::Constant[value=2.]()
  %one : float = prim::Constant[value=1.]()
  %k : int = prim::Constant[value=2]()
  %six : int = prim::Constant[value=6]()
  %s : Tensor = aten::sum(%x, %none)
  %f : float = aten::Float(%s)
  %i : int = aten::Int(%s)
  %fa : float = aten::fabs(%f)
  %p : float = aten::add(%fa, %one)
  %lg : float = aten::log(%p, %two)
  %ia : int = aten::mul(%i, %i)
  %n : int = aten::add(%ia, %k)
  %lgi : float = aten::log(%n, %k)
  %r : int = aten::__rshift__(%i, %k)
  %l : int = aten::__lshift__(%i, %k)
  %at : float = aten::atan2(%f, %two)
  %fm : float = aten::fmod(%f, %two)
  %cs : float = aten::copysign(%two, %f)
  %lgm : float = aten::lgamma(%p)
  %g : int = aten::gcd(%i, %six)
  %false : bool = prim::Constant[value=0]()
  %out : float[] = prim::ListConstruct(%lg, %lgi, %at, %fm, %cs, %lgm)
  %ints : int[] = prim::ListConstruct(%r, %l, %g)
  %t1 : Tensor = aten::tensor(%out, %none, %none, %false)
  %t2 : Tensor = aten::tensor(%ints, %none, %none, %false)
  return (%t1, %t2))IR";
  for (float v : {-7.25f, -0.5f, 3.f, 13.f, 123.5f}) {
    CAPTURE(v);
    check_ir_opsets(ir, {at::tensor({v})});
  }
  auto bits = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %k : int = prim::Constant[value=6]()
  %s : Tensor = aten::sum(%x, %none)
  %i : int = aten::Int(%s)
  %a : int = aten::__and__(%i, %k)
  %o : int = aten::__or__(%i, %k)
  %x2 : int = aten::__xor__(%i, %k)
  %false : bool = prim::Constant[value=0]()
  %ints : int[] = prim::ListConstruct(%a, %o, %x2)
  %t : Tensor = aten::tensor(%ints, %none, %none, %false)
  return (%t))IR";
  for (int64_t v : {-5, 0, 9, 1000})
    check_ir(bits, {at::tensor({v})}, 18);
  CHECK(contains(export_ir_error(bits, {at::tensor({int64_t{9}})}, 17), "opset 18"));
}
