// aten overloads that traced torchvision detection models use and whose op's converter lives in
// another family (they are dispatched from there, so the op stays registered once).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

// aten::where(Tensor condition) -> Tensor[]: torch.nonzero(condition, as_tuple=True), one int64
// index tensor per dim (e.g. `torch.where(scores > thresh)[0]` in the detection post-processing).
// Called by aten_where (elementwise.cpp) for the one-argument overload.
void aten_where_condition(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info(0);
  T2O_CHECK(info.has_rank(), "aten::where(condition) needs the condition's rank");
  Val cond = cast_to(b, c.tensor(0), DType::Bool);
  int64_t rank = info.rank();
  if (rank == 0)
    cond = unsqueeze(b, cond, {0});                  // torch treats a 0-d condition as 1-d
  Val nz = op_t(b, DType::Int64, "NonZero", {cond}); // [rank, count]
  std::vector<Arg> dims;
  for (int64_t d = 0; d < std::max<int64_t>(rank, 1); ++d) {
    Val row = op_t(b, DType::Int64, "Gather", {nz, b.const_i64_scalar(d)}, {{"axis", int64_t{0}}});
    dims.push_back(Arg::of_tensor(row));
  }
  c.set_out(0, Arg::of_list(std::move(dims)));
}

} // namespace torch2onnx
