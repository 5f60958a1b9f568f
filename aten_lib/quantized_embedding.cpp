// 8-bit embedding tables (nn.quantized.Embedding / EmbeddingBag: quantize_dynamic or prepare /
// convert with float_qparams_weight_only_qconfig; docs/quantized.md). The table stays uint8 in
// the file with a float scale and bias per row; only the rows the indices name are made float
// (rows * scale + bias, as LibTorch's kernels compute them), so the file is about a quarter of
// the float table's size and a lookup costs what the float one does.
#include "aten_lib/helpers.h"
#include "aten_lib/quantized.h"

namespace torch2onnx {

namespace {

// The float rows of the packed table `table` (quantized.h, kEmbedding*) that `idx` names:
// [*idx, D].
Val dequantized_rows(const ConvertCtx &c, const Arg &table, const Val &idx) {
  GraphBuilder &b = c.b;
  T2O_CHECK(table.is_list() && table.items.size() == kEmbeddingFields,
            "{}: the weight is not an 8-bit embedding table's packed parameters", c.op());
  auto gather = [&](size_t field) {
    return b.op1("Gather", {table.items[field].t(), idx}, {{"axis", int64_t{0}}});
  };
  Val rows = cast_to(b, gather(kEmbeddingRows), DType::Float);
  Val scale = unsqueeze(b, gather(kEmbeddingScales), {-1});
  Val bias = unsqueeze(b, gather(kEmbeddingBiases), {-1});
  return b.op1("Add", {b.op1("Mul", {rows, scale}), bias});
}

void check_not_pruned(const ConvertCtx &c) {
  T2O_CHECK(!c.arg<bool>("pruned_weights", false),
            "{}: a pruned embedding table (pruned_weights=True, compressed indices) is not "
            "exported",
            c.op());
}

} // namespace

// quantized::embedding_byte(EmbeddingPackedParamsBase weight, Tensor indices,
//   bool pruned_weights=False) -> Tensor: the rows of the 8-bit table, [*indices, D].
void quantized_embedding_byte(ConvertCtx &c) {
  check_not_pruned(c);
  Val idx = cast_to(c.b, c.tensor("indices"), DType::Int64);
  c.set_out(0, dequantized_rows(c, c.arg("weight"), idx));
}

// quantized::embedding_bag_byte(EmbeddingPackedParamsBase weight, Tensor indices,
//   Tensor? offsets=None, bool scale_grad_by_freq=False, int mode=0, bool pruned_weights=False,
//   Tensor? per_sample_weights=None, Tensor? compressed_indices_mapping=None,
//   bool include_last_offset=False) -> Tensor
// The bags as aten::embedding_bag makes them from the table's dequantized rows, always summed (as
// LibTorch does). 2-D indices without offsets are one bag per row.
void quantized_embedding_bag_byte(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  check_not_pruned(c);
  T2O_CHECK(!c.has("compressed_indices_mapping"),
            "{}: compressed indices (a pruned table) are not exported", c.op());
  Val indices = cast_to(b, c.tensor("indices"), DType::Int64);
  Val offsets;
  if (c.has("offsets")) {
    offsets = cast_to(b, c.tensor("offsets"), DType::Int64);
  } else {
    T2O_CHECK(b.rank(indices) == 2, "{}: without offsets the indices must be 2-D (one bag a row)",
              c.op());
    // Bag k starts at k * L.
    Val dims = b.op1("Shape", {indices});
    Val n = b.op1("ReduceProd", {dims}, {{"keepdims", int64_t{0}}});
    Val len = b.op1("Gather", {dims, b.const_i64_scalar(1)}, {{"axis", int64_t{0}}});
    offsets = b.op1("Range", {b.const_i64_scalar(0), n, len});
    indices = reshape(b, indices, {-1});
  }
  Arg table = c.arg("weight");
  // LibTorch's 8-bit kernel sums whatever `mode` it is given (1.13: nn.quantized.EmbeddingBag
  // passes 0 for every mode, and the op itself ignores it); the file computes what it computes.
  EmbeddingBags r = embedding_bags(c, DType::Float, /*mode=*/0, indices, offsets,
                                   [&](const Val &idx) { return dequantized_rows(c, table, idx); });
  c.set_out(0, r.bags);
}

// The 4-bit ops (quint4x2 tables: two values a byte) take the same arguments; the front end
// gives their rows one value a byte (aten_lib/quantized.h, kEmbedding*).
void quantized_embedding_4bit(ConvertCtx &c) {
  quantized_embedding_byte(c);
}
void quantized_embedding_bag_4bit(ConvertCtx &c) {
  quantized_embedding_bag_byte(c);
}

void register_quantized_embedding_ops(Registry &r) {
  // What a lookup emits, and a bag (embedding_bags, aten_lib/indexing.cpp) on top of it.
  const std::vector<std::string> lookup = {"Gather", "Cast", "Unsqueeze", "Mul", "Add"};
  std::vector<std::string> bag = lookup;
  bag.insert(bag.end(),
             {"MatMul", "ReduceMax", "Where", "And", "Equal", "Not", "Range", "GreaterOrEqual",
              "ReduceSum", "Reshape", "Size", "Slice", "Sub", "Div", "Max", "Shape", "ReduceProd"});
  r.add("quantized::embedding_byte", 11, quantized_embedding_byte, lookup);
  r.add("quantized::embedding_bag_byte", 11, quantized_embedding_bag_byte, bag);
  r.add("quantized::embedding_4bit", 11, quantized_embedding_4bit, lookup);
  r.add("quantized::embedding_bag_4bit", 11, quantized_embedding_bag_4bit, bag);
}

} // namespace torch2onnx
