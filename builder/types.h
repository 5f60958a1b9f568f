// Plain data types shared by the builder and the converters. Deliberately free of LibTorch and
// ONNX headers so that aten_lib/ compiles quickly and could serve another graph front end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace torch2onnx {

// Numbering follows onnx::TensorProto_DataType so conversion is a cast.
enum class DType : int32_t {
  Undefined = 0,
  Float = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  UInt32 = 12,
  UInt64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
};

const char *dtype_name(DType t); // "f32", "i64", ... (the CLI spelling)
size_t dtype_size(DType t);      // bytes per element; 0 for String/Undefined
bool is_floating(DType t);       // f16, bf16, f32, f64

// The most dims a tensor read from a file or given with --input may have (NumPy allows 32, NumPy 2
// 64): far more than any model takes, few enough that nothing is quadratic in the rank.
constexpr size_t kMaxRank = 64;
// The bytes `dims` of `element_size`-byte elements take, in `bytes`; false when a dim is negative
// or the running product overflows int64 (also when a later dim is 0: LibTorch refuses that too).
// Example: checked_nbytes({1 << 31, 1 << 31, 4}, 4, n) == false; checked_nbytes({2, 3}, 4, n): 24.
bool checked_nbytes(const std::vector<int64_t> &dims, size_t element_size, int64_t &bytes);

// One dimension: a concrete size, a named symbolic size, or unknown (value < 0, no symbol).
struct Dim {
  int64_t value = -1;
  std::string symbol;

  static Dim known(int64_t v) { return Dim{v, {}}; }
  static Dim named(std::string s, int64_t example = -1) { return Dim{example, std::move(s)}; }
  bool is_static() const { return symbol.empty() && value >= 0; }
};

// A quantized tensor's per-tensor affine quantization: real = (q - zero_point) * scale, with q of
// dtype `storage` (UInt8 for quint8, Int8 for qint8, Int32 for qint32). docs/quantized.md.
struct QuantParams {
  DType storage = DType::UInt8;
  double scale = 1;
  int64_t zero_point = 0;
  bool operator==(const QuantParams &o) const {
    return storage == o.storage && scale == o.scale && zero_point == o.zero_point;
  }
};

struct TensorInfo {
  DType dtype = DType::Undefined;
  std::optional<std::vector<Dim>> shape; // nullopt: rank unknown
  // A complex tensor as torch2onnx carries it (ONNX has no complex type): a real tensor of the
  // component dtype (f32 for complex64) with a trailing dimension of 2 holding (real, imaginary).
  // See docs/complex.md.
  bool complex = false;
  // A quantized tensor as torch2onnx carries it (docs/quantized.md): its real values, f32, each on
  // the grid of these parameters (the node that made it ends in QuantizeLinear + DequantizeLinear).
  std::optional<QuantParams> quant;

  bool has_rank() const { return shape.has_value(); }
  int64_t rank() const { return shape ? static_cast<int64_t>(shape->size()) : -1; }
  // True when every dim is a concrete number.
  bool is_static() const;
  // Concrete sizes; throws when a dim is not static.
  std::vector<int64_t> sizes() const;
  // e.g. "f32[1,3,batch,224]", "c64[4,8] as f32[4,8,2]", "qu8[1,64] (scale 0.05, zero point 3)"
  std::string str() const;
};

// The info of a value as torch2onnx carries it: a complex64/complex128 tensor of shape S becomes
// f32/f64 [S..., 2] with `complex` set; other infos are returned unchanged.
// Example: complex_as_real({Complex64, [4, 8]}).str() == "c64[4,8] as f32[4,8,2]".
TensorInfo complex_as_real(const TensorInfo &info);

// A constant tensor's bytes (little-endian, row-major).
struct TensorData {
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;
  std::string raw;

  int64_t numel() const;
  // Typed reads of one element, converting to the requested type.
  int64_t int_at(int64_t i) const;
  std::vector<int64_t> as_ints() const;

  static TensorData i64(std::vector<int64_t> values, std::vector<int64_t> dims);
  static TensorData i64_vector(const std::vector<int64_t> &values) {
    return i64(values, {static_cast<int64_t>(values.size())});
  }
  static TensorData i64_scalar(int64_t v) { return i64({v}, {}); }
  static TensorData f32(std::vector<float> values, std::vector<int64_t> dims);
  static TensorData f64(std::vector<double> values, std::vector<int64_t> dims);
  static TensorData boolean(std::vector<bool> values, std::vector<int64_t> dims);
  // A scalar of any numeric dtype holding `v` (converted).
  static TensorData scalar(DType t, double v);
};

// A value in the ONNX graph under construction. An empty name stands for an omitted optional
// input.
struct Val {
  std::string name;
  bool valid() const { return !name.empty(); }
  bool operator==(const Val &o) const { return name == o.name; }
};

struct SubGraph; // reserved for If/Loop bodies (control flow)

// One node attribute, e.g. {"axis", int64_t{1}} or {"pads", std::vector<int64_t>{1, 1, 1, 1}}.
struct Attr {
  using Value = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                             std::vector<double>, std::vector<std::string>, TensorData>;
  std::string name;
  Value value;

  Attr(std::string n, int64_t v) : name(std::move(n)), value(v) {}
  Attr(std::string n, int v) : name(std::move(n)), value(int64_t{v}) {}
  Attr(std::string n, bool v) : name(std::move(n)), value(int64_t{v ? 1 : 0}) {}
  Attr(std::string n, double v) : name(std::move(n)), value(v) {}
  Attr(std::string n, float v) : name(std::move(n)), value(double{v}) {}
  Attr(std::string n, const char *v) : name(std::move(n)), value(std::string(v)) {}
  Attr(std::string n, std::string v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, std::vector<int64_t> v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, std::vector<double> v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, std::vector<std::string> v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, TensorData v) : name(std::move(n)), value(std::move(v)) {}
};

} // namespace torch2onnx
