// Values between TorchScript and the converters: a walker binding (Bound) as a converter
// argument (Arg) and back, constant tensors as initializers, and the graph's outputs.
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/walker.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/function.h>
#include <cctype>

namespace torch2onnx {

using torch::jit::Value;

namespace {
// Constants at least this large are borrowed from LibTorch instead of copied.
constexpr size_t kBorrowBytes = 16 << 10;

// When `t` is a contiguous tensor with its dims reordered (what w.t(), w.transpose(0, 1) or
// w.permute(...) of a constant give, also when LibTorch's constant propagation folded them), the
// sizes of that contiguous tensor and the ONNX Transpose perm that makes `t` from it.
bool permuted_view(const at::Tensor &t, std::vector<int64_t> &base_sizes,
                   std::vector<int64_t> &perm) {
  const int64_t rank = t.dim();
  if (rank < 2 || t.is_contiguous() || !t.has_storage() || t.numel() < 2)
    return false;
  std::vector<int64_t> order(static_cast<size_t>(rank)); // t's dims, outermost first
  for (int64_t i = 0; i < rank; ++i) {
    if (t.size(i) < 2 || t.stride(i) <= 0)
      return false; // size-1 dims have any stride; broadcast views repeat values
    order[static_cast<size_t>(i)] = i;
  }
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  base_sizes.assign(static_cast<size_t>(rank), 0);
  perm.assign(static_cast<size_t>(rank), 0);
  int64_t expected = 1;
  for (int64_t k = rank; k-- > 0;) {
    int64_t d = order[static_cast<size_t>(k)];
    if (t.stride(d) != expected)
      return false;
    expected *= t.size(d);
    base_sizes[static_cast<size_t>(k)] = t.size(d);
    perm[static_cast<size_t>(d)] = k; // t's dim d is the base's dim k
  }
  return true;
}
} // namespace

Val Walker::materialize(const at::Tensor &t, const std::string &hint) {
  const void *key = t.unsafeGetTensorImpl();
  auto it = materialized_.find(key);
  if (it != materialized_.end())
    return it->second.second;
  std::string name = hint;
  if (name.rfind("self.", 0) == 0)
    name = name.substr(5);
  // Debug names of plain temporaries are numbers ("123"); give constants a readable stem.
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "const";
  Val v;
  std::vector<int64_t> base_sizes, perm;
  if (!t.is_complex() && permuted_view(t, base_sizes, perm)) {
    // The weight it views, once (shared with every other reader of it: constants with the same
    // bytes are one initializer), and a Transpose: a tied LM head's `x @ emb.weight.t()` does not
    // store the embedding twice. The rewrites fold the Transpose when nothing else reads it.
    at::Tensor base = at::empty({0}, t.options()).set_(t.storage(), t.storage_offset(), base_sizes);
    Val weight = materialize(base, name);
    std::string scope = b_.scope(); // the Transpose belongs to the constant, not the converter
    b_.set_scope("prim::Constant");
    v = b_.op1("Transpose", {weight}, {{"perm", perm}});
    b_.set_scope(scope);
    if (!b_.has_info(v)) // converters read a weight's shape (Conv's kernel size)
      b_.set_info(v, info_of(t));
  } else if (t.is_quantized()) {
    v = quantized_constant(t, name);
  } else if (t.is_complex()) {
    // Carried as real [..., 2] (docs/complex.md). The Identity keeps the complex flag off a real
    // constant with the same bytes, which b_.constant would otherwise share.
    TensorInfo info = complex_as_real(info_of(t));
    v = b_.op1("Identity", {b_.constant(to_tensor_data(at::view_as_real(t.resolve_conj())), name)});
    b_.set_info(v, info);
  } else if (t.nbytes() >= kBorrowBytes) {
    // Large weights are not copied: the initializer borrows LibTorch's memory, which is written
    // straight into the file (GraphBuilder::constant_borrowed).
    auto held = std::make_shared<at::Tensor>(t.detach().to(at::kCPU).contiguous());
    BorrowedBytes bytes;
    bytes.data = static_cast<const char *>(held->data_ptr());
    bytes.size = held->nbytes();
    bytes.owner = held;
    std::vector<int64_t> dims(held->sizes().begin(), held->sizes().end());
    v = b_.constant_borrowed(to_dtype(held->scalar_type()), std::move(dims), std::move(bytes),
                             name);
  } else {
    v = b_.constant(to_tensor_data(t), name);
  }
  materialized_.emplace(key, std::make_pair(t, v));
  return v;
}

Val Walker::quantized_constant(const at::Tensor &t, const std::string &name) {
  at::Tensor ints = t.int_repr().contiguous();
  Val q = b_.constant(to_tensor_data(ints), name);
  std::vector<Attr> attrs;
  Val scale, zero;
  DType storage = to_dtype(ints.scalar_type());
  if (t.qscheme() == at::kPerTensorAffine) {
    scale = b_.const_scalar(DType::Float, t.q_scale());
    zero = b_.const_scalar(storage, static_cast<double>(t.q_zero_point()));
  } else if (t.qscheme() == at::kPerChannelAffine) {
    if (b_.opset() < 13)
      throw Error(fmt::format("the quantized weight '{}' has one scale per channel, which "
                              "DequantizeLinear takes from opset 13 (the target is {})",
                              name, b_.opset()),
                  "export with --opset 13 or newer, or quantize the weights per tensor");
    scale = b_.constant(to_tensor_data(t.q_per_channel_scales().to(at::kFloat)), name + "_scale");
    zero = b_.constant(to_tensor_data(t.q_per_channel_zero_points().to(ints.scalar_type())),
                       name + "_zero_point");
    attrs.push_back({"axis", t.q_per_channel_axis()});
  } else {
    throw Error(fmt::format("the quantized constant '{}' uses the {} scheme, which ONNX's "
                            "DequantizeLinear does not express",
                            name, c10::toString(t.qscheme())),
                "quantize it per tensor or per channel (affine)");
  }
  Val v = b_.op1("DequantizeLinear", {q, scale, zero}, attrs);
  b_.set_info(v, info_of(t));
  return v;
}

bool Walker::is_packed_params(const c10::IValue &iv) {
  std::string type = iv.type()->str();
  return (type.rfind("__torch__.torch.classes.quantized.", 0) == 0 &&
          type.find("PackedParamsBase") != std::string::npos) ||
         type == "__torch__.torch.classes.rnn.CellParamsBase";
}

namespace {
// Runs the quantized:: op `name` on a packed-parameters object and returns its outputs.
std::vector<c10::IValue> call_packed_op(const std::string &name, const c10::IValue &packed) {
  auto handle = c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), "");
  torch::jit::Stack stack{packed};
  handle.callBoxed(&stack);
  return stack;
}
} // namespace

Arg Walker::embedding_table_arg(const c10::IValue &iv, const std::string &hint) {
  at::Tensor q = call_packed_op("quantized::embedding_bag_unpack", iv).at(0).toTensor();
  const bool four_bit = q.scalar_type() == at::kQUInt4x2;
  T2O_CHECK((q.scalar_type() == at::kQUInt8 || four_bit) &&
                q.qscheme() == at::kPerChannelAffineFloatQParams && q.dim() == 2 &&
                q.q_per_channel_axis() == 0,
            "{} is a {} embedding table with {} parameters; only 8-bit and 4-bit tables (quint8, "
            "quint4x2, a float scale and zero point per row) export",
            hint, c10::toString(q.scalar_type()), c10::toString(q.qscheme()));
  // Row i is q[i] * scale[i] + bias[i], bias = -zero_point * scale: LibTorch's packed form.
  at::Tensor scales = q.q_per_channel_scales().to(at::kFloat).contiguous();
  at::Tensor biases = (q.q_per_channel_zero_points().to(at::kFloat) * scales * -1).contiguous();
  at::Tensor rows = q.int_repr().contiguous();
  if (four_bit) {
    // Two values a byte, the low nibble first; LibTorch keeps a 4-bit table's scale and bias in
    // float16 and computes with those (the unpacked scale is not the float16 one).
    T2O_CHECK(rows.numel() * 2 == q.numel(), "{}: a 4-bit table of {} values in {} bytes", hint,
              q.numel(), rows.numel());
    rows = at::stack({at::bitwise_and(rows, 15), at::bitwise_right_shift(rows, 4)}, 1)
               .reshape(q.sizes())
               .contiguous();
    biases = biases.to(at::kHalf).to(at::kFloat).contiguous();
    scales = scales.to(at::kHalf).to(at::kFloat).contiguous();
  }
  return Arg::of_list({Arg::of_tensor(materialize(rows, hint + ".rows")),
                       Arg::of_tensor(materialize(scales, hint + ".scales")),
                       Arg::of_tensor(materialize(biases, hint + ".biases"))});
}

Arg Walker::packed_params_arg(const c10::IValue &iv, const Value *origin) {
  std::string type = iv.type()->str();
  std::string hint = origin ? origin->debugName() : "packed";
  auto value = [&](const c10::IValue &x, const std::string &suffix) {
    if (x.isTensor() && x.toTensor().defined())
      return Arg::of_tensor(materialize(x.toTensor(), hint + suffix));
    return Arg::none(); // a bias left out
  };
  std::vector<Arg> items;
  if (type.find("CellParamsBase") != std::string::npos) {
    // A quantized RNN cell: its serialized state (kind, [b_ih, b_hh], doubles, [reduce_range],
    // [w_ih, w_hh] packed), as aten_lib/quantized.h's cell list.
    torch::jit::Function *getstate = iv.toObject()->type()->findMethod("__getstate__");
    T2O_CHECK(getstate, "{}: a {} without __getstate__", hint, type);
    torch::jit::Stack stack{iv};
    getstate->run(stack);
    const auto &state = stack.at(0).toTupleRef().elements();
    T2O_CHECK(state.size() == 5, "{}: a cell state of {} fields", hint, state.size());
    std::string kind = state[0].toStringRef();
    auto tensors = state[1].toTensorVector();
    auto longs = state[3].toIntVector();
    auto packed = state[4].toListRef();
    if (kind != "quantized_dynamic" || tensors.size() != 2 || packed.size() != 2)
      return Arg::of_list({Arg::of_string(kind)}); // refused by the converter, naming the kind
    items = {Arg::of_string(kind),
             packed_params_arg(packed[0], origin),
             packed_params_arg(packed[1], origin),
             value(tensors[0], ".bias_ih"),
             value(tensors[1], ".bias_hh"),
             Arg::of_int(longs.empty() ? 0 : longs[0])};
    return Arg::of_list(std::move(items));
  }
  if (type.find("EmbeddingPackedParamsBase") != std::string::npos)
    return embedding_table_arg(iv, hint);
  if (type.find("LinearPackedParamsBase") != std::string::npos) {
    auto w = call_packed_op("quantized::linear_unpack", iv);
    T2O_CHECK(w.size() == 2, "quantized::linear_unpack gave {} values", w.size());
    items = {value(w[0], ".weight"), value(w[1], ".bias")};
    return Arg::of_list(std::move(items));
  }
  std::string dims = type.find("Conv3d") != std::string::npos ? "conv3d" : "conv2d";
  if (type.find("Conv") == std::string::npos)
    throw Error(fmt::format("{} holds packed parameters of type {}, which the export cannot read",
                            hint, type),
                "quantized conv and linear layers export; file an issue with the module type");
  auto w = call_packed_op("quantized::" + dims + "_unpack", iv);
  items = {value(w[0], ".weight"), value(w[1], ".bias")};
  for (const char *field :
       {"stride", "padding", "dilation", "groups", "transpose", "output_padding"}) {
    auto r = call_packed_op("quantized::" + dims + "_" + field, iv);
    Bound bd;
    bd.kind = Bound::Kind::Const;
    bd.constant = r.at(0);
    items.push_back(to_arg(bd, nullptr));
  }
  return Arg::of_list(std::move(items));
}

Arg Walker::to_arg(const Bound &bd, const Value *origin) {
  switch (bd.kind) {
  case Bound::Kind::Tensor:
    if (bd.some_flag.valid())
      throw Error(fmt::format("%{} is an Optional tensor that is None on some runs (set on one "
                              "path of an if or loop); an op cannot take it before a check",
                              origin ? origin->debugName() : "?"),
                  "use it inside `if x is not None:` (or after `assert x is not None`), or give "
                  "it a tensor value on every path");
    return Arg::of_tensor(bd.tensor);
  case Bound::Kind::List: {
    std::vector<Arg> items;
    for (const auto &it : bd.items)
      items.push_back(to_arg(it, origin));
    return Arg::of_list(std::move(items));
  }
  case Bound::Kind::Unset:
    return Arg::none();
  case Bound::Kind::Seq:
    throw Error(fmt::format("%{} is a list built at run time (an ONNX sequence); only "
                            "len, indexing, append, torch.stack and torch.cat take one",
                            origin ? origin->debugName() : "?"),
                "stack the list into a tensor first (torch.stack), or make its length fixed");
  case Bound::Kind::Const:
    break;
  }
  const c10::IValue &iv = bd.constant;
  if (iv.isNone())
    return Arg::none();
  if (iv.isTensor()) {
    const at::Tensor &t = iv.toTensor();
    if (!t.defined())
      return Arg::none();
    return Arg::of_tensor(materialize(t, origin ? origin->debugName() : "const"));
  }
  if (iv.isComplexDouble()) // a Python complex number (1j): a complex64 0-d constant
    return Arg::of_tensor(
        materialize(at::scalar_tensor(iv.toComplexDouble(), at::kComplexFloat), "complex"));
  if (iv.isInt())
    return Arg::of_int(iv.toInt());
  if (iv.isDouble())
    return Arg::of_float(iv.toDouble());
  if (iv.isBool())
    return Arg::of_bool(iv.toBool());
  if (iv.isString())
    return Arg::of_string(iv.toStringRef());
  if (iv.isDevice()) {
    Arg a;
    a.kind = Arg::Kind::Device;
    a.s = iv.toDevice().str();
    return a;
  }
  if (iv.isList() || iv.isTuple()) {
    std::vector<Arg> items;
    auto elems = iv.isList() ? iv.toListRef().vec() : iv.toTupleRef().elements().vec();
    for (const auto &e : elems) {
      Bound eb;
      eb.kind = Bound::Kind::Const;
      eb.constant = e;
      items.push_back(to_arg(eb, origin));
    }
    return Arg::of_list(std::move(items));
  }
  if (iv.isObject() && is_packed_params(iv))
    return packed_params_arg(iv, origin);
  Arg a;
  a.kind = Arg::Kind::Other;
  a.s = iv.tagKind();
  return a;
}

Walker::Bound Walker::from_arg(const Arg &a, const Value *v) {
  Bound bd;
  switch (a.kind) {
  case Arg::Kind::Tensor:
    bd.kind = Bound::Kind::Tensor;
    bd.tensor = a.tensor;
    return bd;
  case Arg::Kind::List: {
    bool all_const = true;
    for (const auto &it : a.items)
      all_const = all_const && it.is_number();
    if (!all_const || a.items.empty()) {
      bd.kind = Bound::Kind::List;
      for (const auto &it : a.items)
        bd.items.push_back(from_arg(it, nullptr));
      return bd;
    }
    bd.kind = Bound::Kind::Const;
    if (a.items[0].kind == Arg::Kind::Float)
      bd.constant = c10::IValue(a.to_doubles());
    else
      bd.constant = c10::IValue(a.to_ints());
    return bd;
  }
  case Arg::Kind::Int:
    bd.constant = c10::IValue(a.i);
    break;
  case Arg::Kind::Float:
    bd.constant = c10::IValue(a.f);
    break;
  case Arg::Kind::Bool:
    bd.constant = c10::IValue(a.b);
    break;
  case Arg::Kind::String:
    bd.constant = c10::IValue(a.s);
    break;
  case Arg::Kind::None:
    bd.constant = c10::IValue();
    break;
  case Arg::Kind::Device:
    bd.constant = c10::IValue(c10::Device(a.s));
    break;
  default:
    throw Error(fmt::format("converter produced an unsupported result ({}) for %{}", a.describe(),
                            v ? v->debugName() : "?"));
  }
  bd.kind = Bound::Kind::Const;
  return bd;
}

namespace {

// A graph output may not stay complex: ONNX has no complex type, and silently returning the
// [..., 2] pair would change the output's shape and meaning.
Error complex_output_error(const Value *v, const TensorInfo &info) {
  std::string what = v ? "%" + v->debugName() : std::string("an item of a tuple/list output");
  return Error(fmt::format("graph output {} is a complex tensor ({}); ONNX has no complex type",
                           what, info.str()),
               "return torch.view_as_real(x) (a real tensor with a trailing dimension of 2 for "
               "the real and imaginary parts), or x.real / x.imag / x.abs(), instead");
}

} // namespace

void Walker::flatten(const Bound &bd, const Value *v, const std::string &hint,
                     std::vector<std::pair<Val, std::string>> &out) {
  switch (bd.kind) {
  case Bound::Kind::Tensor:
    if (b_.has_info(bd.tensor) && b_.info(bd.tensor).complex)
      throw complex_output_error(v, b_.info(bd.tensor));
    if (bd.some_flag.valid())
      throw Error(fmt::format("{} is an Optional tensor that is None on some runs (set on one "
                              "path of an if or loop); an ONNX output is always set",
                              v ? "graph output %" + v->debugName()
                                : std::string("an item of a graph output")),
                  "return a tensor on every path (e.g. an empty or zero tensor where it was None)");
    out.emplace_back(bd.tensor, hint);
    return;
  case Bound::Kind::List:
    for (size_t i = 0; i < bd.items.size(); ++i)
      flatten(bd.items[i], nullptr, i < bd.keys.size() ? bd.keys[i] : std::string(), out);
    return;
  case Bound::Kind::Unset:
    throw Error("a graph output is never computed");
  case Bound::Kind::Seq:
    throw Error(
        fmt::format("graph output %{} is a list built at run time", v ? v->debugName() : "?"),
        "return torch.stack(list) (or torch.cat) instead of the list");
  case Bound::Kind::Const:
    break;
  }
  const c10::IValue &iv = bd.constant;
  if (iv.isTensor()) {
    if (iv.toTensor().is_complex())
      throw complex_output_error(v, complex_as_real(info_of(iv.toTensor())));
    out.emplace_back(materialize(iv.toTensor(), "const_output"), hint);
  } else if (iv.isList() || iv.isTuple()) {
    auto elems = iv.isList() ? iv.toListRef().vec() : iv.toTupleRef().elements().vec();
    for (const auto &e : elems) {
      Bound eb;
      eb.kind = Bound::Kind::Const;
      eb.constant = e;
      flatten(eb, nullptr, std::string(), out);
    }
  } else if (iv.isInt() || iv.isDouble() || iv.isBool()) {
    at::Tensor t = iv.isInt()      ? at::scalar_tensor(iv.toInt(), at::kLong)
                   : iv.isDouble() ? at::scalar_tensor(iv.toDouble(), at::kDouble)
                                   : at::scalar_tensor(iv.toBool(), at::kBool);
    out.emplace_back(b_.constant(to_tensor_data(t), "const_output"), hint);
  } else if (iv.isNone()) {
    // An Optional output that is None for these inputs (a scripted wav2vec2's output lengths
    // when no lengths are given): ONNX has no None value, so it is left out, as
    // torch.onnx.export does; verification leaves LibTorch's None out too.
    warnings_.push_back(fmt::format(
        "forward returns None{} for these inputs (an Optional output): it is not an ONNX output",
        v ? fmt::format(" as %{}", v->debugName()) : std::string()));
  } else {
    throw Error(fmt::format("graph output %{} is a {}, not a tensor", v ? v->debugName() : "?",
                            iv.tagKind()),
                "return tensors (or tuples/lists/dicts of tensors) from forward");
  }
}

std::vector<std::pair<Val, std::string>> Walker::outputs(const torch::jit::Graph &graph) {
  std::vector<std::pair<Val, std::string>> out;
  for (const Value *v : graph.outputs())
    flatten(lookup(v), v, std::string(), out);
  return out;
}

} // namespace torch2onnx
