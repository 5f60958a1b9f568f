// --fallback-domain: an op without a converter written as one node of a custom domain, for a back
// end that implements it (docs/fallback.md). Not a converter family: the walker asks for one per
// op it has no converter for, and only when the user turned the fallback on.
#include "aten_lib/converter.h"

namespace torch2onnx {

namespace {

// A constant non-tensor argument as an attribute; false when it has no attribute form.
bool to_attr(const std::string &name, const Arg &a, std::vector<Attr> &attrs) {
  switch (a.kind) {
  case Arg::Kind::Int:
    attrs.emplace_back(name, a.i);
    return true;
  case Arg::Kind::Float:
    attrs.emplace_back(name, a.f);
    return true;
  case Arg::Kind::Bool:
    attrs.emplace_back(name, a.b);
    return true;
  case Arg::Kind::String:
  case Arg::Kind::Device:
    attrs.emplace_back(name, a.s);
    return true;
  case Arg::Kind::List: {
    bool ints = true, numbers = true, strings = true;
    for (const auto &it : a.items) {
      ints = ints && (it.kind == Arg::Kind::Int || it.kind == Arg::Kind::Bool);
      numbers = numbers && it.is_number();
      strings = strings && it.kind == Arg::Kind::String;
    }
    if (ints) { // also the empty list
      attrs.emplace_back(name, a.to_ints());
    } else if (numbers) {
      attrs.emplace_back(name, a.to_doubles());
    } else if (strings) {
      std::vector<std::string> v;
      for (const auto &it : a.items)
        v.push_back(it.s);
      attrs.emplace_back(name, std::move(v));
    } else {
      return false;
    }
    return true;
  }
  default:
    return false;
  }
}

} // namespace

ConverterFn fallback_converter(const std::string &domain, const std::string &op,
                               const std::string &overload, std::vector<FallbackArg> args) {
  auto sep = op.rfind("::");
  std::string op_type = sep == std::string::npos ? op : op.substr(sep + 2);
  std::string torch_op = overload.empty() ? op : op + "." + overload;
  return [=](ConvertCtx &c) {
    std::vector<Val> inputs;
    std::vector<Attr> attrs;
    attrs.emplace_back("torch_op", torch_op);
    // Every argument in schema order, alike: c.args() rather than reads by name.
    for (size_t i = 0; i < c.args().size(); ++i) {
      const Arg &a = c.args()[i];
      std::string name = i < args.size() ? args[i].name : fmt::format("arg{}", i);
      bool tensor_arg = i < args.size() && args[i].tensor;
      if (a.is_tensor()) { // a tensor, or a number known only at run time (a 0-d tensor)
        inputs.push_back(a.tensor);
      } else if (a.is_none()) {
        if (tensor_arg)
          inputs.push_back(Val{}); // an omitted optional input keeps the later ones in place
      } else if (a.is_list() && tensor_arg) {
        for (const auto &it : a.items)
          inputs.push_back(it.is_tensor() ? it.tensor : Val{});
      } else if (!to_attr(name, a, attrs)) {
        throw Error(fmt::format("--fallback-domain cannot write argument '{}' of {} ({}) as an "
                                "input or attribute",
                                name, op, a.describe()),
                    "write a converter for the op (docs/plugins.md)");
      }
    }
    while (!inputs.empty() && !inputs.back().valid())
      inputs.pop_back();
    for (size_t i = 0; i < c.num_outputs(); ++i)
      T2O_CHECK(c.out_info(i).dtype != DType::Undefined,
                "--fallback-domain writes tensor outputs only, but output {} of {} is not a "
                "tensor (or LibTorch recorded none for it)",
                i, op);
    auto outs = c.b.op(op_type, inputs, attrs, static_cast<int>(c.num_outputs()), domain);
    for (size_t i = 0; i < outs.size(); ++i) {
      c.b.set_info(outs[i], c.out_info(i));
      c.set_out(i, outs[i]);
    }
  };
}

} // namespace torch2onnx
