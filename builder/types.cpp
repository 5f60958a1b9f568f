#include "builder/types.h"

#include "builder/error.h"
#include "builder/float16.h"

#include <cmath>
#include <cstring>

namespace torch2onnx {

const char *dtype_name(DType t) {
  switch (t) {
  case DType::Float:
    return "f32";
  case DType::UInt8:
    return "u8";
  case DType::Int8:
    return "i8";
  case DType::UInt16:
    return "u16";
  case DType::Int16:
    return "i16";
  case DType::Int32:
    return "i32";
  case DType::Int64:
    return "i64";
  case DType::String:
    return "string";
  case DType::Bool:
    return "bool";
  case DType::Float16:
    return "f16";
  case DType::Double:
    return "f64";
  case DType::UInt32:
    return "u32";
  case DType::UInt64:
    return "u64";
  case DType::Complex64:
    return "c64";
  case DType::Complex128:
    return "c128";
  case DType::BFloat16:
    return "bf16";
  case DType::Undefined:
    break;
  }
  return "undefined";
}

size_t dtype_size(DType t) {
  switch (t) {
  case DType::Bool:
  case DType::UInt8:
  case DType::Int8:
    return 1;
  case DType::UInt16:
  case DType::Int16:
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Int32:
  case DType::UInt32:
  case DType::Float:
    return 4;
  case DType::Int64:
  case DType::UInt64:
  case DType::Double:
  case DType::Complex64:
    return 8;
  case DType::Complex128:
    return 16;
  default:
    return 0;
  }
}

bool is_floating(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Float16 || t == DType::BFloat16;
}

bool TensorInfo::is_static() const {
  if (!shape)
    return false;
  for (const auto &d : *shape)
    if (!d.is_static())
      return false;
  return true;
}

std::vector<int64_t> TensorInfo::sizes() const {
  T2O_CHECK(shape.has_value(), "the rank of this value is not known");
  std::vector<int64_t> out;
  out.reserve(shape->size());
  for (const auto &d : *shape) {
    T2O_CHECK(d.is_static(), "dimension '{}' is not static (shape {})", d.symbol, str());
    out.push_back(d.value);
  }
  return out;
}

TensorInfo complex_as_real(const TensorInfo &info) {
  if (info.dtype != DType::Complex64 && info.dtype != DType::Complex128)
    return info;
  TensorInfo out = info;
  out.dtype = info.dtype == DType::Complex64 ? DType::Float : DType::Double;
  out.complex = true;
  if (out.shape)
    out.shape->push_back(Dim::known(2));
  return out;
}

namespace {

std::string dims_str(const std::vector<Dim> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ",";
    const Dim &d = shape[i];
    if (!d.symbol.empty())
      s += d.symbol;
    else if (d.value >= 0)
      s += std::to_string(d.value);
    else
      s += "?";
  }
  return s + "]";
}

} // namespace

std::string TensorInfo::str() const {
  std::string s = std::string(dtype_name(dtype)) + (shape ? dims_str(*shape) : "[?]");
  if (quant) {
    const char *q = quant->storage == DType::UInt8  ? "qu8"
                    : quant->storage == DType::Int8 ? "qi8"
                                                    : "qi32";
    return fmt::format("{}{} (scale {:g}, zero point {})", q, shape ? dims_str(*shape) : "[?]",
                       quant->scale, quant->zero_point);
  }
  if (!complex)
    return s;
  // What the user's model has, then how torch2onnx carries it: "c64[4] as f32[4,2]".
  std::string c = dtype == DType::Double ? "c128" : "c64";
  if (!shape || shape->empty())
    return c + "[?] as " + s;
  return c + dims_str(std::vector<Dim>(shape->begin(), shape->end() - 1)) + " as " + s;
}

bool checked_nbytes(const std::vector<int64_t> &dims, size_t element_size, int64_t &bytes) {
  int64_t n = static_cast<int64_t>(element_size);
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return false;
  bytes = n;
  return true;
}

int64_t TensorData::numel() const {
  int64_t n = 1;
  for (auto d : dims)
    n *= d;
  return n;
}

namespace {
template <typename T> T read_as(const std::string &raw, int64_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename Out> Out element_at(const TensorData &t, int64_t i) {
  T2O_CHECK(i >= 0 && i < t.numel(), "constant element {} out of range ({} elements)", i,
            t.numel());
  switch (t.dtype) {
  case DType::Float:
    return static_cast<Out>(read_as<float>(t.raw, i));
  case DType::Double:
    return static_cast<Out>(read_as<double>(t.raw, i));
  case DType::Int64:
    return static_cast<Out>(read_as<int64_t>(t.raw, i));
  case DType::Int32:
    return static_cast<Out>(read_as<int32_t>(t.raw, i));
  case DType::Int16:
    return static_cast<Out>(read_as<int16_t>(t.raw, i));
  case DType::Int8:
    return static_cast<Out>(read_as<int8_t>(t.raw, i));
  case DType::UInt8:
    return static_cast<Out>(read_as<uint8_t>(t.raw, i));
  case DType::Bool:
    return static_cast<Out>(read_as<uint8_t>(t.raw, i) != 0);
  default:
    break;
  }
  throw Error(fmt::format("cannot read a {} constant as a number", dtype_name(t.dtype)));
}

template <typename T>
TensorData make(DType dt, const std::vector<T> &values, std::vector<int64_t> dims) {
  TensorData t;
  t.dtype = dt;
  t.dims = std::move(dims);
  T2O_CHECK(static_cast<int64_t>(values.size()) == t.numel(),
            "constant has {} values for {} elements", values.size(), t.numel());
  t.raw.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(t.raw.data(), values.data(), t.raw.size());
  return t;
}
} // namespace

int64_t TensorData::int_at(int64_t i) const {
  return element_at<int64_t>(*this, i);
}

std::vector<int64_t> TensorData::as_ints() const {
  std::vector<int64_t> out(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i)
    out[i] = int_at(i);
  return out;
}

TensorData TensorData::i64(std::vector<int64_t> values, std::vector<int64_t> dims) {
  return make(DType::Int64, values, std::move(dims));
}
TensorData TensorData::f32(std::vector<float> values, std::vector<int64_t> dims) {
  return make(DType::Float, values, std::move(dims));
}
TensorData TensorData::f64(std::vector<double> values, std::vector<int64_t> dims) {
  return make(DType::Double, values, std::move(dims));
}
TensorData TensorData::boolean(std::vector<bool> values, std::vector<int64_t> dims) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  return make(DType::Bool, bytes, std::move(dims));
}

// Declared in builder/float16.h; here because the fuzz targets build this file alone.
uint16_t float16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const uint32_t biased = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (biased == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  const int32_t exp = static_cast<int32_t>(biased) - 127 + 15;
  if (exp >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) { // a subnormal float16, or zero
    if (exp < -10)
      return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent: rounds up to the next power of two, or to inf
  return static_cast<uint16_t>(sign | h);
}

uint16_t bfloat16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet, never round it into inf
    return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

float float16_value(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, x = 0;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (mant << 13);
  } else if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

TensorData TensorData::scalar(DType t, double v) {
  switch (t) {
  case DType::Float:
    return make(t, std::vector<float>{static_cast<float>(v)}, {});
  case DType::Double:
    return make(t, std::vector<double>{v}, {});
  case DType::Int64:
    return make(t, std::vector<int64_t>{static_cast<int64_t>(v)}, {});
  case DType::Int32:
    return make(t, std::vector<int32_t>{static_cast<int32_t>(v)}, {});
  case DType::Int16:
    return make(t, std::vector<int16_t>{static_cast<int16_t>(v)}, {});
  case DType::Int8:
    return make(t, std::vector<int8_t>{static_cast<int8_t>(v)}, {});
  case DType::UInt8:
    return make(t, std::vector<uint8_t>{static_cast<uint8_t>(v)}, {});
  case DType::Bool:
    return make(t, std::vector<uint8_t>{static_cast<uint8_t>(v != 0)}, {});
  case DType::Float16:
    return make(t, std::vector<uint16_t>{float16_bits(static_cast<float>(v))}, {});
  case DType::BFloat16:
    return make(t, std::vector<uint16_t>{bfloat16_bits(static_cast<float>(v))}, {});
  default:
    break;
  }
  throw Error(fmt::format("cannot make a {} scalar constant", dtype_name(t)));
}

} // namespace torch2onnx
