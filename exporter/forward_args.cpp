#include "exporter/forward_args.h"

#include "builder/error.h"
#include "exporter/core/tensor_util.h"
#include "exporter/verify/verify.h"

#include <ATen/core/List.h>
#include <algorithm>
#include <sstream>

namespace torch2onnx {

namespace {

using Kind = InputSpec::Kind;

c10::TypePtr unwrap_optional(const c10::TypePtr &t) {
  if (auto opt = t->cast<c10::OptionalType>())
    return opt->getElementType();
  return t;
}

bool accepts_none(const c10::TypePtr &t) {
  return t->kind() == c10::TypeKind::OptionalType || t->kind() == c10::TypeKind::NoneType;
}

bool is_tensor_type(const c10::TypePtr &t) {
  return unwrap_optional(t)->kind() == c10::TypeKind::TensorType;
}

// Whether `type` is a list or tuple of tensors, or of lists and tuples of tensors (a KV cache's
// Tuple[Tuple[Tensor, Tensor], ...]), at any depth, or a Dict[str, Tensor] (a batch by name).
bool is_tensor_container(const c10::TypePtr &type) {
  c10::TypePtr t = unwrap_optional(type);
  auto holds_tensors = [](const c10::TypePtr &e) {
    return e->kind() == c10::TypeKind::TensorType || is_tensor_container(e);
  };
  if (auto list = t->cast<c10::ListType>())
    return holds_tensors(list->getElementType());
  if (auto tuple = t->cast<c10::TupleType>())
    return std::all_of(tuple->elements().begin(), tuple->elements().end(), holds_tensors);
  if (auto dict = t->cast<c10::DictType>())
    return dict->getKeyType()->kind() == c10::TypeKind::StringType &&
           holds_tensors(dict->getValueType());
  return false;
}

// The number type (int, float, bool) of an argument that is one, else null. `number` (int or
// float) reads as a float.
c10::TypePtr number_type(const c10::TypePtr &type) {
  c10::TypePtr t = unwrap_optional(type);
  switch (t->kind()) {
  case c10::TypeKind::IntType:
  case c10::TypeKind::FloatType:
  case c10::TypeKind::BoolType:
    return t;
  case c10::TypeKind::NumberType:
    return c10::FloatType::get();
  default:
    return nullptr;
  }
}

std::string number_dtype_text(const c10::TypePtr &type) {
  c10::TypePtr t = number_type(type);
  return t->kind() == c10::TypeKind::IntType    ? "i64"
         : t->kind() == c10::TypeKind::BoolType ? "bool"
                                                : "f32";
}

// An --input spec for a tensor, list or tuple type, for hints: f32[2,3] per tensor, two elements
// for a list ("[[f32[2,3],f32[2,3]],[f32[2,3],f32[2,3]]]" for Tuple[Tuple[Tensor, Tensor], ...]).
std::string example_spec(const c10::TypePtr &type) {
  c10::TypePtr t = unwrap_optional(type);
  if (auto list = t->cast<c10::ListType>()) {
    std::string e = example_spec(list->getElementType());
    return "[" + e + "," + e + "]";
  }
  if (auto tuple = t->cast<c10::TupleType>()) {
    std::vector<std::string> parts;
    for (const auto &e : tuple->elements())
      parts.push_back(example_spec(e));
    return fmt::format("[{}]", fmt::join(parts, ","));
  }
  if (auto dict = t->cast<c10::DictType>())
    return fmt::format("{{image:{0},mask:{0}}}", example_spec(dict->getValueType()));
  return "f32[2,3]";
}

std::string arg_text(const ForwardSignature &sig, size_t i) {
  return fmt::format("argument '{}' ({})", sig.names[i], sig.types[i]->annotation_str());
}

// The tensor spec the data fixes (dtype, static dims), merged with the user's spec when given:
// the spec adds the name, symbolic dims and a value range and must agree with the data.
InputSpec spec_for_data(const at::Tensor &t, const InputSpec *spec, const std::string &arg) {
  InputSpec out;
  out.dtype = to_dtype(t.scalar_type());
  for (int64_t d : t.sizes())
    out.dims.push_back(Dim::known(d));
  if (!spec)
    return out;
  const std::string given = spec->str();
  const std::string data = out.str();
  auto disagree = [&](const std::string &what) {
    return Error(fmt::format("--input {} disagrees with the --input-data for {}: {} (the data is "
                             "{})",
                             given, arg, what, data),
                 "the data fixes dtype and shape; the spec only adds names and symbolic dims, "
                 "e.g. --input ids:i64[batch=2,16] for data of shape [2,16]");
  };
  if (!spec->is_tensor())
    throw disagree("the data is a tensor");
  if (spec->dtype != out.dtype)
    throw disagree(fmt::format("dtype {} vs {}", dtype_name(spec->dtype), dtype_name(out.dtype)));
  if (spec->dims.size() != out.dims.size())
    throw disagree(fmt::format("rank {} vs {}", spec->dims.size(), out.dims.size()));
  for (size_t k = 0; k < out.dims.size(); ++k)
    if (spec->dims[k].value >= 0 && spec->dims[k].value != out.dims[k].value)
      throw disagree(fmt::format("dim {} is {} in the spec and {} in the data", k,
                                 spec->dims[k].value, out.dims[k].value));
  out.name = spec->name;
  // A dim named alone (x:f32[batch,3,h,w]) takes its size from the data.
  for (size_t k = 0; k < out.dims.size(); ++k)
    out.dims[k] = Dim{out.dims[k].value, spec->dims[k].symbol};
  out.has_range = spec->has_range;
  out.low = spec->low;
  out.high = spec->high;
  return out;
}

c10::IValue constant_of(const InputSpec &s) {
  switch (s.kind) {
  case Kind::Int:
    return c10::IValue(static_cast<int64_t>(s.number));
  case Kind::Float:
    return c10::IValue(s.number);
  case Kind::Bool:
    return c10::IValue(s.number != 0);
  default:
    return c10::IValue();
  }
}

// A None or number for an argument of type `t`; an int where a float is expected is widened.
c10::IValue check_constant(const c10::IValue &v, const ForwardSignature &sig, size_t i) {
  const c10::TypePtr t = unwrap_optional(sig.types[i]);
  const auto k = t->kind();
  if (v.isNone()) {
    if (!accepts_none(sig.types[i]))
      throw Error(fmt::format("{} cannot be None", arg_text(sig, i)),
                  "give a value for it; only Optional arguments take none");
    return v;
  }
  if (v.isBool() && k == c10::TypeKind::BoolType)
    return v;
  if (v.isInt() && (k == c10::TypeKind::IntType || k == c10::TypeKind::NumberType))
    return v;
  if ((v.isInt() || v.isDouble()) && k == c10::TypeKind::FloatType)
    return c10::IValue(v.isInt() ? static_cast<double>(v.toInt()) : v.toDouble());
  if (v.isDouble() && k == c10::TypeKind::NumberType)
    return v;
  std::ostringstream os;
  os << v;
  throw Error(fmt::format("{} cannot take the {} {}", arg_text(sig, i), v.tagKind(), os.str()),
              fmt::format("give it a value of its type, e.g. --input {}:{}", sig.names[i],
                          k == c10::TypeKind::TensorType  ? "f32[1,3]"
                          : k == c10::TypeKind::BoolType  ? "true"
                          : k == c10::TypeKind::FloatType ? "0.5"
                                                          : "3"));
}

struct Binder {
  const ForwardSignature &sig;
  ForwardCall call;

  void add_tensor(const InputSpec &spec, const at::Tensor &data, const std::string &name) {
    InputSpec s = spec;
    s.name = s.name.empty() ? name : s.name;
    call.flat_specs.push_back(s);
    call.flat_data.push_back(data);
  }

  // One ONNX input from its spec or its --input-data (which the spec, if given, must agree with).
  void add_input(const InputSpec *spec, const at::Tensor *data, const std::string &name,
                 const std::string &what) {
    if (data)
      add_tensor(spec_for_data(*data, spec, what), *data, name);
    else
      add_tensor(*spec, at::Tensor(), name);
  }

  void bind_tensor(size_t i, const InputSpec *spec, const at::Tensor *data) {
    if (unwrap_optional(sig.types[i])->kind() == c10::TypeKind::DictType &&
        !is_tensor_container(sig.types[i]))
      throw Error(fmt::format("{} is a dict that does not map str to tensors, which cannot be an "
                              "input of an ONNX model",
                              arg_text(sig, i)),
                  "wrap the model in a module whose forward takes the dict's tensors as "
                  "arguments and builds the dict, then trace or script that wrapper");
    if (number_type(sig.types[i]) && (data ? data->dim() == 0 : spec->dims.empty()))
      return bind_number(i, spec, data);
    if (!is_tensor_type(sig.types[i]))
      throw Error(fmt::format("{} is not a tensor, but {} gives one", arg_text(sig, i),
                              data ? "--input-data" : "--input " + spec->str()),
                  is_tensor_container(sig.types[i])
                      ? fmt::format("give its tensors as its type holds them: --input {}:{}",
                                    sig.names[i], example_spec(sig.types[i]))
                      : fmt::format("give a number: --input {}:3 (or none for an Optional){}",
                                    sig.names[i],
                                    number_type(sig.types[i])
                                        ? fmt::format(", or a 0-d tensor to make it an ONNX input: "
                                                      "--input {}:{}[]",
                                                      sig.names[i], number_dtype_text(sig.types[i]))
                                        : ""));
    ArgBinding b;
    b.kind = ArgBinding::Kind::Tensor;
    call.bindings.push_back(b);
    add_input(spec, data, sig.names[i], arg_text(sig, i));
  }

  // An int, float or bool argument given as a 0-d tensor (start_pos:i64[]): an ONNX input the
  // graph reads the number from, so the file takes any value at run time.
  void bind_number(size_t i, const InputSpec *spec, const at::Tensor *data) {
    const c10::TypePtr t = number_type(sig.types[i]);
    const DType dtype = data ? to_dtype(data->scalar_type()) : spec->dtype;
    const bool fits = t->kind() == c10::TypeKind::BoolType ? dtype == DType::Bool
                      : t->kind() == c10::TypeKind::IntType
                          ? !is_floating(dtype) && dtype != DType::Bool && dtype_size(dtype) > 0
                          : is_floating(dtype);
    if (!fits)
      throw Error(
          fmt::format("{} cannot be read from a {} tensor", arg_text(sig, i), dtype_name(dtype)),
          fmt::format("give it as --input {}:{}[]", sig.names[i], number_dtype_text(sig.types[i])));
    ArgBinding b;
    b.kind = ArgBinding::Kind::Number;
    b.type = t;
    call.bindings.push_back(b);
    add_input(spec, data, sig.names[i], arg_text(sig, i));
  }

  // One tensor of a list, tuple or dict argument: an ONNX input named `name`.
  ArgBinding bind_leaf(const InputSpec *spec, const c10::IValue *data, const std::string &name,
                       const std::string &what) {
    if (data && !data->isTensor())
      throw Error(fmt::format("{} is a tensor but the --input-data holds a {} for it", what,
                              data->tagKind()));
    if (!data && (!spec || !spec->is_tensor()))
      throw Error(fmt::format("{} is a tensor but --input gives {} for it", what,
                              spec ? spec->str() : "nothing"),
                  "give a tensor spec there, e.g. f32[2,3]");
    ArgBinding b;
    b.kind = ArgBinding::Kind::Tensor;
    const at::Tensor tensor = data ? data->toTensor() : at::Tensor();
    add_input(spec, data ? &tensor : nullptr, name, what);
    call.flat_specs.back().name = name;
    return b;
  }

  // A Dict[str, Tensor] argument: one ONNX input per key, named `name`_key, in the spec's order
  // (the data's when no spec is given); spec and data must have the same keys.
  ArgBinding bind_dict(const c10::TypePtr &t, const InputSpec *spec, const c10::IValue *data,
                       const std::string &name, const std::string &what) {
    if (data && !data->isGenericDict())
      throw Error(fmt::format("{} is a dict but the --input-data holds a {} for it", what,
                              data->tagKind()));
    if (spec && spec->kind != Kind::Dict)
      throw Error(fmt::format("{} is a dict but --input gives {} for it", what, spec->str()),
                  fmt::format("give its tensors by key: {}", example_spec(t)));
    std::vector<std::string> keys;
    if (spec)
      for (const auto &e : spec->elements)
        keys.push_back(e.name);
    else
      for (const auto &kv : data->toGenericDict())
        keys.push_back(kv.key().toStringRef());
    if (data && spec && data->toGenericDict().size() != keys.size())
      throw Error(fmt::format("--input {} gives {} keys but the --input-data for {} holds {}",
                              spec->str(), keys.size(), what, data->toGenericDict().size()));
    ArgBinding b;
    b.kind = ArgBinding::Kind::Sequence;
    b.type = t;
    const c10::TypePtr value_type = t->castRaw<c10::DictType>()->getValueType();
    for (size_t j = 0; j < keys.size(); ++j) {
      c10::IValue value;
      if (data) {
        auto it = data->toGenericDict().find(keys[j]);
        if (it == data->toGenericDict().end())
          throw Error(fmt::format("--input {} names the key '{}', which the --input-data for {} "
                                  "does not hold",
                                  spec->str(), keys[j], what));
        value = it->value();
      }
      b.keys.push_back(keys[j]);
      b.elements.push_back(bind_tree(value_type, spec ? &spec->elements[j] : nullptr,
                                     data ? &value : nullptr, name + "_" + keys[j],
                                     fmt::format("value '{}' of {}", keys[j], what)));
    }
    return b;
  }

  // A list or tuple argument (`type`, nested lists and tuples included) from its spec and/or
  // data: one ONNX input per tensor, depth first, named `name`_j (`name`_j_k when nested).
  ArgBinding bind_tree(const c10::TypePtr &type, const InputSpec *spec, const c10::IValue *data,
                       const std::string &name, const std::string &what) {
    const c10::TypePtr t = unwrap_optional(type);
    if (t->kind() == c10::TypeKind::TensorType)
      return bind_leaf(spec, data, name, what);
    if (t->kind() == c10::TypeKind::DictType)
      return bind_dict(t, spec, data, name, what);
    std::vector<c10::IValue> values;
    if (data && (data->isList() || data->isTuple()))
      values = data->isTuple() ? data->toTupleRef().elements().vec() : data->toListRef().vec();
    else if (data)
      throw Error(fmt::format("{} is a list or tuple but the --input-data holds a {} for it", what,
                              data->tagKind()));
    if (spec && spec->kind != Kind::Sequence)
      throw Error(
          fmt::format("{} is a list or tuple but --input gives {} for it", what, spec->str()),
          fmt::format("give its tensors as a list, nested as its type is: {}", example_spec(t)));
    const size_t n = data ? values.size() : spec->elements.size();
    if (data && spec && spec->elements.size() != n)
      throw Error(fmt::format("--input {} lists {} tensors but the --input-data for {} holds {}",
                              spec->str(), spec->elements.size(), what, n));
    auto tuple = t->cast<c10::TupleType>();
    if (tuple && tuple->elements().size() != n)
      throw Error(
          fmt::format("{} holds {} values but {} are given", what, tuple->elements().size(), n));
    ArgBinding b;
    b.kind = ArgBinding::Kind::Sequence;
    b.type = t;
    for (size_t j = 0; j < n; ++j) {
      const c10::TypePtr et =
          tuple ? tuple->elements()[j] : t->castRaw<c10::ListType>()->getElementType();
      b.elements.push_back(bind_tree(et, spec ? &spec->elements[j] : nullptr,
                                     data ? &values[j] : nullptr, fmt::format("{}_{}", name, j),
                                     fmt::format("element {} of {}", j, what)));
    }
    return b;
  }

  void bind_sequence(size_t i, const InputSpec *spec, const c10::IValue *data) {
    if (!is_tensor_container(sig.types[i]))
      throw Error(fmt::format("{} is not a list, tuple or dict of tensors, but {} is given for it",
                              arg_text(sig, i), data ? "one" : spec->str()),
                  "give a tensor, a number or none, as its type says");
    const std::string name = spec && !spec->name.empty() ? spec->name : sig.names[i];
    call.bindings.push_back(bind_tree(sig.types[i], spec, data, name, arg_text(sig, i)));
  }

  void bind_constant(size_t i, const c10::IValue &v) {
    ArgBinding b;
    b.kind = ArgBinding::Kind::Constant;
    b.constant = check_constant(v, sig, i);
    call.bindings.push_back(b);
    call.constants.push_back(fmt::format(
        "{}={}", sig.names[i], b.constant.isNone() ? "None" : [&] {
          std::ostringstream os;
          os << b.constant;
          return os.str();
        }()));
  }

  void bind_data(size_t i, const c10::IValue &v, const InputSpec *spec) {
    // A one-element array (np.save(path, np.int64(3))) for an int, float or bool argument: the
    // number, as a constant; with a 0-d tensor spec too (--input start_pos:i64[]), an input.
    const auto k = unwrap_optional(sig.types[i])->kind();
    if (v.isTensor() && v.toTensor().dim() == 0 && spec && spec->is_tensor() &&
        number_type(sig.types[i])) {
      at::Tensor t = v.toTensor();
      return bind_number(i, spec, &t);
    }
    // A Python number in the data (torch.save((x, 7.5))) with a 0-d spec: that value, an input.
    if ((v.isInt() || v.isDouble() || v.isBool()) && spec && spec->is_tensor() &&
        spec->dims.empty() && number_type(sig.types[i])) {
      at::Tensor t = at::scalar_tensor(v.toScalar(), to_scalar_type(spec->dtype));
      return bind_number(i, spec, &t);
    }
    if (v.isTensor() && v.toTensor().numel() == 1 &&
        (k == c10::TypeKind::IntType || k == c10::TypeKind::FloatType ||
         k == c10::TypeKind::BoolType || k == c10::TypeKind::NumberType)) {
      const at::Tensor t = v.toTensor();
      c10::IValue number = t.is_floating_point()          ? c10::IValue(t.item<double>())
                           : t.scalar_type() == at::kBool ? c10::IValue(t.item<bool>())
                                                          : c10::IValue(t.item<int64_t>());
      if (k == c10::TypeKind::BoolType && number.isInt())
        number = c10::IValue(number.toInt() != 0);
      return bind_constant(i, number);
    }
    if (v.isTensor()) {
      at::Tensor t = v.toTensor();
      bind_tensor(i, spec, &t);
      return;
    }
    if (v.isList() || v.isTuple() || v.isTensorList() || v.isGenericDict())
      return bind_sequence(i, spec, &v);
    if (spec && spec->is_tensor())
      throw Error(fmt::format("--input {} disagrees with the --input-data for {}, which is {}",
                              spec->str(), arg_text(sig, i), v.tagKind()));
    bind_constant(i, v);
  }

  void bind_spec(size_t i, const InputSpec &spec) {
    switch (spec.kind) {
    case Kind::Tensor:
      bind_tensor(i, &spec, nullptr);
      return;
    case Kind::Sequence:
    case Kind::Dict:
      bind_sequence(i, &spec, nullptr);
      return;
    default:
      bind_constant(i, constant_of(spec));
    }
  }

  void bind(size_t i, const InputSpec *spec, const std::optional<c10::IValue> &data) {
    call.types.push_back(sig.types[i]);
    if (spec && spec->kind == Kind::Default)
      spec = nullptr;
    if (data)
      return bind_data(i, *data, spec);
    if (spec)
      return bind_spec(i, *spec);
    if (sig.defaults[i])
      return bind_constant(i, *sig.defaults[i]);
    throw UsageError(
        fmt::format("forward({}) needs {}, which has no default, but no --input{} gives it",
                    fmt::join(sig.names, ", "), arg_text(sig, i), data ? "" : " or --input-data"),
        fmt::format("give one --input SPEC (or --input-data file) per argument in order, e.g. "
                    "--input {}:f32[1,3,224,224]; arguments with defaults may be left out",
                    sig.names[i]));
  }
};

} // namespace

ForwardCall bind_forward(const ForwardSignature &sig, const std::vector<InputSpec> &specs,
                         const std::vector<std::optional<c10::IValue>> &data) {
  const size_t n = sig.names.size();
  if (specs.size() > n)
    throw UsageError(fmt::format("forward({}) takes {} argument{} but {} --input specs were given",
                                 fmt::join(sig.names, ", "), n, n == 1 ? "" : "s", specs.size()),
                     "give one --input SPEC per forward argument, in order");
  Binder b{sig, {}};
  for (size_t i = 0; i < n; ++i)
    b.bind(i, i < specs.size() ? &specs[i] : nullptr, i < data.size() ? data[i] : std::nullopt);
  return std::move(b.call);
}

namespace {

// The LibTorch value of a tensor or sequence binding, with the next tensors of `flat` in place.
c10::IValue rebuild(const ArgBinding &b, const std::vector<at::Tensor> &flat, size_t &k) {
  if (b.kind == ArgBinding::Kind::Tensor)
    return flat.at(k++);
  if (b.kind == ArgBinding::Kind::Number) {
    const at::Tensor &t = flat.at(k++);
    switch (b.type->kind()) {
    case c10::TypeKind::IntType:
      return t.item<int64_t>();
    case c10::TypeKind::BoolType:
      return t.item<bool>();
    default:
      return t.item<double>();
    }
  }
  std::vector<c10::IValue> elems;
  for (const ArgBinding &e : b.elements)
    elems.push_back(rebuild(e, flat, k));
  if (auto dict = b.type->cast<c10::DictType>()) {
    c10::impl::GenericDict out(dict->getKeyType(), dict->getValueType());
    for (size_t j = 0; j < elems.size(); ++j)
      out.insert(b.keys[j], std::move(elems[j]));
    return out;
  }
  auto list = b.type->cast<c10::ListType>();
  if (!list)
    return c10::ivalue::Tuple::create(std::move(elems));
  c10::impl::GenericList out(list->getElementType());
  for (auto &e : elems)
    out.push_back(std::move(e));
  return out;
}

} // namespace

std::vector<c10::IValue> ForwardCall::torch_args(const std::vector<at::Tensor> &flat) const {
  std::vector<c10::IValue> out;
  size_t k = 0;
  for (const ArgBinding &b : bindings)
    out.push_back(b.kind == ArgBinding::Kind::Constant ? b.constant : rebuild(b, flat, k));
  return out;
}

namespace {

// The symbolic dims of the specs with their example sizes; the same name must mean the same size.
std::vector<SymbolSizes> collect_symbols(const std::vector<InputSpec> &specs) {
  std::vector<SymbolSizes> out;
  for (const auto &s : specs)
    for (const auto &d : s.dims) {
      if (d.symbol.empty())
        continue;
      if (d.value < 0)
        throw Error(fmt::format("input {}: dimension '{}' has no size", s.name, d.symbol),
                    fmt::format("give it an example size once, e.g. {}=2, in an --input, or give "
                                "--input-data for this input",
                                d.symbol));
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto &x) { return x.name == d.symbol; });
      if (it == out.end()) {
        // Another size for recording which dims are dynamic: different enough not to coincide
        // with other dims, and keeps multiples of 32 (image sizes) multiples of 32.
        int64_t alt = d.value + (d.value >= 32 ? 32 : std::max<int64_t>(d.value, 1));
        out.push_back({d.symbol, d.value, alt});
      } else if (it->example != d.value) {
        throw Error(fmt::format("dimension '{}' is {} in one input and {} in another", d.symbol,
                                it->example, d.value),
                    "a name stands for one size: give the same example size everywhere it is used");
      }
    }
  return out;
}

bool has_symbols(const InputSpec &s) {
  for (const auto &d : s.dims)
    if (!d.symbol.empty())
      return true;
  return false;
}

} // namespace

std::vector<at::Tensor> flat_inputs_at(const ForwardCall &call, uint64_t seed,
                                       const std::vector<std::pair<std::string, int64_t>> &sizes) {
  auto out = make_example_inputs(call.flat_specs, seed, sizes);
  for (size_t k = 0; k < out.size(); ++k)
    if (call.flat_data[k].defined() && (sizes.empty() || !has_symbols(call.flat_specs[k])))
      out[k] = call.flat_data[k];
  return out;
}

// How much larger than the example the third recording makes symbolic dims from 32 up: a
// multiple of every stride up to 128, so a floor or ceil division by one of them changes.
constexpr int64_t kFarSizeStep = 128;

// How much each symbolic dim grows in the third recording (0: it stays at its alternate size).
// Dims from 32 up grow by different multiples of kFarSizeStep, the smallest (the last declared
// among equal ones) by the most, so their order changes where the example's differ by less than
// the step: a branch on `w <= h` (resize the short side) takes its other path in one recording,
// and the sizes that follow the path become dynamic instead of constants of the example's path.
// `swapped`: the steps of dims with equal example sizes are given in the other order.
std::vector<int64_t> far_steps(const std::vector<SymbolSizes> &symbols, bool swapped) {
  std::vector<size_t> order;
  for (size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i].example >= 32)
      order.push_back(i);
  // Largest first, ties: first declared first (last when swapped); the last grows most.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (symbols[a].example != symbols[b].example)
      return symbols[a].example > symbols[b].example;
    return swapped && a > b;
  });
  // The step grows with the largest such dim, an eighth of it from 1024 up (in multiples of 128,
  // so sizes that must divide evenly still do): a floor division by any stride up to the step
  // changes, an audio frame count (1 + t // 160 at t = 16000) as well as a stride-128 map.
  int64_t largest = 0;
  for (size_t i : order)
    largest = std::max(largest, symbols[i].example);
  int64_t step = kFarSizeStep * std::max<int64_t>(1, (largest + 1023) / 1024);
  std::vector<int64_t> steps(symbols.size(), 0);
  for (size_t k = 0; k < order.size(); ++k)
    steps[order[k]] = step * static_cast<int64_t>(k + 1);
  return steps;
}

// Whether two symbolic dims from 32 up have the same example size (a square image).
bool has_tied_far_dims(const std::vector<SymbolSizes> &symbols) {
  for (size_t i = 0; i < symbols.size(); ++i)
    for (size_t j = i + 1; j < symbols.size(); ++j)
      if (symbols[i].example >= 32 && symbols[i].example == symbols[j].example &&
          symbols[i].name != symbols[j].name)
        return true;
  return false;
}

// The inputs of an extra recording at `sizes`.
std::vector<c10::IValue> extra_inputs(const ForwardCall &call, uint64_t seed,
                                      const std::vector<std::pair<std::string, int64_t>> &sizes) {
  auto f = flat_inputs_at(call, seed, sizes);
  return {f.begin(), f.end()};
}

// The inputs at the third (or, swapped, fourth) recording's sizes; empty when no dim grows.
std::vector<c10::IValue> far_inputs(const ForwardCall &call, uint64_t seed,
                                    const std::vector<SymbolSizes> &symbols, bool swapped) {
  std::vector<int64_t> steps = far_steps(symbols, swapped);
  std::vector<std::pair<std::string, int64_t>> sizes;
  bool any = false;
  for (size_t i = 0; i < symbols.size(); ++i) {
    any = any || steps[i] > 0;
    sizes.emplace_back(symbols[i].name,
                       steps[i] > 0 ? symbols[i].example + steps[i] : symbols[i].alternate);
  }
  return any ? extra_inputs(call, seed, sizes) : std::vector<c10::IValue>{};
}

// A smaller size for a symbolic dim, keeping the power-of-two factor (up to 32) its example has
// so strides that divide the example still divide it: about half of it (224 -> 96, 160 -> 64,
// 20000 -> 9984), or, `tiny`, twice that factor (20000 -> 64); the example itself when that is
// not smaller, below 2, or the example is below 4.
int64_t near_size(int64_t example, bool tiny) {
  if (example < 4)
    return example;
  int64_t g = 1;
  while (g < 32 && example % (2 * g) == 0)
    g *= 2;
  int64_t near = tiny ? 2 * g : example / 2 / g * g;
  return near >= 2 && near < example ? near : example;
}

// The inputs at near sizes; empty when no dim changes.
std::vector<c10::IValue> near_inputs(const ForwardCall &call, uint64_t seed,
                                     const std::vector<SymbolSizes> &symbols, bool tiny) {
  std::vector<std::pair<std::string, int64_t>> sizes;
  bool any = false;
  for (const auto &s : symbols) {
    sizes.emplace_back(s.name, near_size(s.example, tiny));
    any = any || sizes.back().second != s.example;
  }
  return any ? extra_inputs(call, seed, sizes) : std::vector<c10::IValue>{};
}

// The example inputs with each 0-d number v (not bool) changed to scale * v + step where that
// stays in its --input range; empty when no input changes.
std::vector<c10::IValue> changed_numbers(const ForwardCall &call,
                                         const std::vector<c10::IValue> &example, double scale,
                                         double step) {
  std::vector<c10::IValue> out = example;
  bool any = false;
  for (size_t k = 0; k < call.flat_specs.size() && k < out.size(); ++k) {
    const InputSpec &s = call.flat_specs[k];
    if (!s.is_tensor() || !s.dims.empty() || s.dtype == DType::Bool || !out[k].isTensor())
      continue;
    at::Tensor t = out[k].toTensor();
    if (t.dim() != 0 || t.is_complex())
      continue;
    double next = scale * t.item<double>() + step;
    if (s.has_range && (next < s.low || next > s.high))
      continue;
    out[k] = at::full({}, next, t.options());
    any = true;
  }
  return any ? out : std::vector<c10::IValue>{};
}

GraphInputs graph_inputs(const ForwardCall &call, uint64_t seed,
                         const std::vector<std::pair<std::string, int64_t>> &verify_dims) {
  GraphInputs gi;
  gi.symbols = collect_symbols(call.flat_specs);
  for (const auto &[name, size] : verify_dims) {
    bool known = false;
    for (const auto &sym : gi.symbols)
      known = known || sym.name == name;
    if (!known)
      throw Error(
          fmt::format("--verify-dims names '{}', which is not a symbolic dim of any --input", name),
          "declare it in a spec, e.g. --input x:f32[batch=1,3,224,224]");
  }
  for (const auto &s : call.flat_specs) {
    gi.names.push_back(s.name);
    TensorInfo info;
    info.dtype = s.dtype;
    info.shape = s.dims;
    for (auto &d : *info.shape)
      if (!d.symbol.empty())
        d.value = -1;
    gi.infos.push_back(info);
  }
  auto example = flat_inputs_at(call, seed, {});
  gi.example.assign(example.begin(), example.end());
  // One up, one down, and far (1000 // n is 4 at both n = 3 and n = 4).
  for (auto [scale, step] : {std::pair{1.0, 1.0}, {1.0, -1.0}, {2.0, 3.0}})
    if (auto changed = changed_numbers(call, gi.example, scale, step); !changed.empty())
      gi.values.push_back(std::move(changed));
  if (!gi.symbols.empty()) {
    std::vector<std::pair<std::string, int64_t>> alt_sizes;
    for (const auto &s : gi.symbols)
      alt_sizes.emplace_back(s.name, s.alternate);
    auto alt = flat_inputs_at(call, seed + 1, alt_sizes);
    gi.alternate.assign(alt.begin(), alt.end());
    gi.far = far_inputs(call, seed + 2, gi.symbols, false);
    for (bool tiny : {false, true})
      if (auto near = near_inputs(call, seed + 4, gi.symbols, tiny); !near.empty())
        gi.near.push_back(std::move(near));
    if (!gi.far.empty() && has_tied_far_dims(gi.symbols))
      gi.far_swapped = far_inputs(call, seed + 3, gi.symbols, true);
  }
  return gi;
}

void record_low_inputs_in_f32(ForwardCall &call, DType low) {
  call.declared.assign(call.flat_specs.size(), DType::Undefined);
  if (low != DType::Float16 && low != DType::BFloat16)
    return;
  for (size_t k = 0; k < call.flat_specs.size(); ++k) {
    if (call.flat_specs[k].dtype != low)
      continue;
    call.declared[k] = low;
    call.flat_specs[k].dtype = DType::Float;
    if (k < call.flat_data.size() && call.flat_data[k].defined())
      call.flat_data[k] = call.flat_data[k].to(at::kFloat);
  }
}

std::vector<at::Tensor> declared_inputs(const ForwardCall &call,
                                        const std::vector<at::Tensor> &inputs,
                                        std::vector<at::Tensor> &rounded) {
  std::vector<at::Tensor> onnx = inputs;
  rounded.clear();
  for (size_t k = 0; k < inputs.size() && k < call.declared.size(); ++k) {
    if (call.declared[k] == DType::Undefined)
      continue;
    if (rounded.empty())
      rounded = inputs;
    onnx[k] = inputs[k].to(to_scalar_type(call.declared[k]));
    rounded[k] = onnx[k].to(inputs[k].scalar_type());
  }
  return onnx;
}

} // namespace torch2onnx
