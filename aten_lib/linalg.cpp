// Matrix products: aten::linear, addmm, matmul, mm, bmm, baddbmm, einsum, outer, dot, mv.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

namespace {

// Gemm in ONNX Runtime covers floating types only; integer products go through MatMul.
bool gemm_ok(GraphBuilder &b, const Val &v) {
  DType t = b.dtype(v);
  return t == DType::Float || t == DType::Double || t == DType::Float16;
}

Val scaled(GraphBuilder &b, const Val &v, DType t, double k) {
  if (k == 1.0)
    return v;
  return b.op1("Mul", {v, b.const_scalar(t, k)});
}

} // namespace

// linear(input, weight, bias?): y = input @ weight^T + bias.
void aten_linear(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const Val &x = c.tensor("input");
  const Val &w = c.tensor("weight");
  if (c.info("input").rank() == 2 && c.info("weight").rank() == 2 && gemm_ok(b, x)) {
    std::vector<Val> ins = {x, w};
    if (c.has("bias"))
      ins.push_back(c.tensor("bias"));
    c.set_out(0, b.op1("Gemm", ins, {{"transB", int64_t{1}}}));
    return;
  }
  Val wt = c.info("weight").rank() == 2
               ? b.op1("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}})
               : w;
  Val y = b.op1("MatMul", {x, wt});
  if (c.has("bias"))
    y = b.op1("Add", {y, c.tensor("bias")});
  c.set_out(0, y);
}

// addmm(self, mat1, mat2, *, beta, alpha): beta * self + alpha * (mat1 @ mat2).
void aten_addmm(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  double beta = c.arg<double>("beta", 1.0);
  double alpha = c.arg<double>("alpha", 1.0);
  if (gemm_ok(b, c.tensor("mat1"))) {
    std::vector<Val> ins = {c.tensor("mat1"), c.tensor("mat2")};
    // beta == 0 ignores self entirely in LibTorch (NaN/inf included).
    if (beta != 0.0)
      ins.push_back(c.tensor("self"));
    c.set_out(0, b.op1("Gemm", ins, {{"alpha", alpha}, {"beta", beta}}));
    return;
  }
  DType t = out_dtype(c);
  Val y = scaled(b, b.op1("MatMul", {c.tensor("mat1"), c.tensor("mat2")}), t, alpha);
  if (beta != 0.0)
    y = b.op1("Add", {y, scaled(b, c.tensor("self"), t, beta)});
  c.set_out(0, y);
}

// baddbmm(self, batch1, batch2, *, beta, alpha): beta * self + alpha * (batch1 @ batch2).
void aten_baddbmm(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  double beta = c.arg<double>("beta", 1.0);
  double alpha = c.arg<double>("alpha", 1.0);
  DType t = out_dtype(c);
  Val y = scaled(b, b.op1("MatMul", {c.tensor("batch1"), c.tensor("batch2")}), t, alpha);
  if (beta != 0.0)
    y = b.op1("Add", {y, scaled(b, c.tensor("self"), t, beta)});
  c.set_out(0, y);
}

// matmul(self, other), mm / bmm(self, mat2), dot(self, tensor), mv(self, vec): ONNX MatMul
// follows numpy matmul, including the 1-D cases.
void aten_matmul(ConvertCtx &c) {
  const char *rhs = c.takes("other")    ? "other"
                    : c.takes("mat2")   ? "mat2"
                    : c.takes("tensor") ? "tensor"
                                        : "vec";
  c.set_out(0, c.b.op1("MatMul", {c.tensor("self"), c.tensor(rhs)}));
}

void aten_outer(ConvertCtx &c) {
  DType dt = out_dtype(c);
  Val a = unsqueeze(c.b, cast_to(c.b, c.tensor("self"), dt), {1});
  c.set_out(0, c.b.op1("Mul", {a, cast_to(c.b, c.tensor("vec2"), dt)}));
}

// einsum(str equation, Tensor[] tensors, *, int[]? path=None)
void aten_einsum(ConvertCtx &c) {
  std::string eq;
  for (char ch : c.arg<std::string>("equation"))
    if (ch != ' ')
      eq += ch;
  std::vector<Val> ins;
  for (const auto &it : c.list("tensors"))
    ins.push_back(it.t());
  c.set_out(0, c.b.op1("Einsum", ins, {{"equation", eq}}));
}

void register_linalg_ops(Registry &r) {
  r.add("aten::linear", 11, aten_linear, {"Gemm", "MatMul", "Add", "Transpose"});
  r.add_with_inplace("aten::addmm", 11, aten_addmm, {"Gemm", "Add", "MatMul"});
  r.add_with_inplace("aten::baddbmm", 11, aten_baddbmm, {"MatMul", "Mul", "Add"});
  r.add("aten::matmul", 11, aten_matmul, {"MatMul"});
  r.add("aten::mm", 11, aten_matmul, {"MatMul"});
  r.add("aten::bmm", 11, aten_matmul, {"MatMul"});
  r.add("aten::dot", 11, aten_matmul, {"MatMul"});
  r.add("aten::mv", 11, aten_matmul, {"MatMul"});
  r.add("aten::outer", 11, aten_outer, {"Unsqueeze", "Mul"});
  r.add("aten::ger", 11, aten_outer, {"Unsqueeze", "Mul"});
  r.add("aten::einsum", 12, aten_einsum, {"Einsum"});
}

} // namespace torch2onnx
