#include "exporter/options.h"

#include "builder/error.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

namespace torch2onnx {

namespace {
const char *kSpecHelp =
    "expected [name:]dtype[dims][:LO..HI], e.g. x:f32[1,3,224,224], ids:i64[batch=2,128]:0..999 "
    "(a symbolic dim name=size; its name alone once it has a size), "
    "or a list xs:[f32[2,3],f32[2,3]] (nested for tuples of pairs: past:[[f32[2,3],f32[2,3]]]), "
    "a dict batch:{image:f32[1,3,8,8],mask:bool[1,8]}, "
    "none, default, or a number (3, 0.5, true); dtypes: f32 f16 "
    "bf16 f64 i64 i32 i16 i8 u8 bool";

std::string trim(std::string s) {
  size_t a = 0, e = s.size();
  while (a < e && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  while (e > a && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return s.substr(a, e - a);
}

bool is_identifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

int64_t parse_size(const std::string &text, const std::string &spec) {
  if (text.empty())
    throw Error(fmt::format("input spec '{}': empty dimension", spec), kSpecHelp);
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw Error(
          fmt::format("input spec '{}': dimension '{}' is not a positive integer", spec, text),
          kSpecHelp);
  if (text.size() > 12)
    throw Error(fmt::format("input spec '{}': dimension '{}' is too large", spec, text), kSpecHelp);
  int64_t v = std::stoll(text);
  if (v <= 0)
    throw Error(fmt::format("input spec '{}': dimension {} must be at least 1", spec, v),
                kSpecHelp);
  return v;
}
} // namespace

DType parse_dtype(const std::string &text) {
  static const std::pair<const char *, DType> names[] = {
      {"f32", DType::Float},  {"f16", DType::Float16}, {"bf16", DType::BFloat16},
      {"f64", DType::Double}, {"i64", DType::Int64},   {"i32", DType::Int32},
      {"i16", DType::Int16},  {"i8", DType::Int8},     {"u8", DType::UInt8},
      {"bool", DType::Bool}};
  for (const auto &[n, t] : names)
    if (text == n)
      return t;
  throw Error(fmt::format("unknown dtype '{}'", text),
              "use one of f32 f16 bf16 f64 i64 i32 i16 i8 u8 bool");
}

namespace {

// "name:rest" when the part before the first ':' (and before any '[') is a name.
std::pair<std::string, std::string> split_name(const std::string &text, const std::string &raw) {
  size_t colon = text.find(':');
  size_t open = text.find_first_of("[{");
  if (colon == std::string::npos || (open != std::string::npos && open < colon))
    return {"", text};
  std::string name = trim(text.substr(0, colon));
  if (!is_identifier(name))
    throw Error(fmt::format("input spec '{}': '{}' is not a valid input name", raw, name),
                kSpecHelp);
  return {name, trim(text.substr(colon + 1))};
}

bool parse_number(const std::string &text, double &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno == 0 && !std::isnan(out);
}

bool is_integer_text(const std::string &text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  if (i >= text.size() || text.size() - i > 18)
    return false;
  for (; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return false;
  return true;
}

// none, default, true/false, an integer or a float: the argument is that constant.
bool parse_constant(const std::string &v, InputSpec &spec) {
  using K = InputSpec::Kind;
  if (v == "none" || v == "None") {
    spec.kind = K::None;
  } else if (v == "default") {
    spec.kind = K::Default;
  } else if (v == "true" || v == "True" || v == "false" || v == "False") {
    spec.kind = K::Bool;
    spec.number = (v[0] == 't' || v[0] == 'T') ? 1 : 0;
  } else if (is_integer_text(v)) {
    spec.kind = K::Int;
    spec.number = static_cast<double>(std::stoll(v));
  } else if (double d = 0; (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-' ||
                            v[0] == '+' || v[0] == '.') &&
                           parse_number(v, d)) {
    spec.kind = K::Float;
    spec.number = d;
  } else {
    return false;
  }
  return true;
}

// The elements of "[a,b,...]", split at the commas outside brackets.
std::vector<std::string> split_top_level(const std::string &body, const std::string &raw) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    char c = i < body.size() ? body[i] : ',';
    if (c == '[' || c == '{')
      ++depth;
    else if ((c == ']' || c == '}') && --depth < 0)
      throw Error(fmt::format("input spec '{}': unbalanced brackets", raw), kSpecHelp);
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(body.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0)
    throw Error(fmt::format("input spec '{}': unbalanced brackets", raw), kSpecHelp);
  return parts;
}

void parse_range(const std::string &text, InputSpec &spec, const std::string &raw) {
  size_t dots = text.find("..");
  double lo = 0, hi = 0;
  if (dots == std::string::npos || !parse_number(trim(text.substr(0, dots)), lo) ||
      !parse_number(trim(text.substr(dots + 2)), hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw Error(fmt::format("input spec '{}': '{}' is not a value range LO..HI", raw, text),
                "e.g. ids:i64[1,128]:0..50256 (token ids below a vocabulary of 50257) or "
                "x:f32[1,3,224,224]:0..1");
  if (lo > hi)
    throw Error(fmt::format("input spec '{}': the range {} is empty ({} > {})", raw, text, lo, hi),
                "give the smaller bound first");
  if (spec.dtype == DType::Bool)
    throw Error(fmt::format("input spec '{}': a bool input takes no value range", raw),
                "random bools are true or false; give --input-data for fixed values");
  if (!is_floating(spec.dtype) && (lo != std::floor(lo) || hi != std::floor(hi)))
    throw Error(fmt::format("input spec '{}': an integer input needs integer bounds", raw),
                "e.g. ids:i64[1,128]:0..50256");
  if (!is_floating(spec.dtype)) {
    // The values must fit the dtype (and an int64, which the random draw uses).
    const int bits = static_cast<int>(dtype_size(spec.dtype)) * 8;
    const bool is_unsigned = spec.dtype == DType::UInt8;
    const double min = is_unsigned ? 0 : -std::ldexp(1.0, std::min(bits, 62) - 1);
    const double max = std::ldexp(1.0, std::min(bits, 62) - (is_unsigned ? 0 : 1)) - 1;
    if (lo < min || hi > max)
      throw Error(fmt::format("input spec '{}': the range {} does not fit {} ({:.0f}..{:.0f})", raw,
                              text, dtype_name(spec.dtype), min, max),
                  "give bounds the input's dtype can hold");
  }
  spec.has_range = true;
  spec.low = lo;
  spec.high = hi;
}

void parse_dims(const std::string &body, InputSpec &spec, const std::string &raw) {
  if (trim(body).empty())
    return; // a 0-d tensor: "f32[]"
  size_t pos = 0;
  while (true) {
    size_t comma = body.find(',', pos);
    std::string item =
        trim(body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    size_t eq = item.find('=');
    if (eq == std::string::npos && is_identifier(item) &&
        (std::isalpha(static_cast<unsigned char>(item[0])) || item[0] == '_')) {
      // A name alone: the size it is given elsewhere (resolve_dim_names).
      spec.dims.push_back(Dim::named(item, -1));
    } else if (eq == std::string::npos) {
      spec.dims.push_back(Dim::known(parse_size(item, raw)));
    } else {
      std::string sym = trim(item.substr(0, eq));
      if (!is_identifier(sym))
        throw Error(fmt::format("input spec '{}': '{}' is not a valid dimension name", raw, sym),
                    kSpecHelp);
      spec.dims.push_back(Dim::named(sym, parse_size(trim(item.substr(eq + 1)), raw)));
    }
    if (spec.dims.size() > kMaxRank)
      throw Error(fmt::format("input spec '{}...': more than {} dims", raw.substr(0, 40), kMaxRank),
                  kSpecHelp);
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
}

// dtype[dims][:LO..HI]
void parse_tensor(const std::string &v, InputSpec &spec, const std::string &raw) {
  size_t open = v.find('[');
  size_t close = v.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw Error(fmt::format("input spec '{}': missing [dims]", raw), kSpecHelp);
  try {
    spec.dtype = parse_dtype(trim(v.substr(0, open)));
  } catch (const Error &e) {
    throw Error(fmt::format("input spec '{}': {}", raw, e.what()), kSpecHelp);
  }
  std::string body = v.substr(open + 1, close - open - 1);
  if (body.find('[') != std::string::npos)
    throw Error(fmt::format("input spec '{}': unbalanced brackets", raw), kSpecHelp);
  parse_dims(body, spec, raw);
  std::string rest = trim(v.substr(close + 1));
  if (rest.empty())
    return;
  if (rest[0] != ':')
    throw Error(fmt::format("input spec '{}': unexpected '{}' after the dims", raw, rest),
                kSpecHelp);
  parse_range(trim(rest.substr(1)), spec, raw);
}

// "{key:SPEC,...}": a Dict[str, Tensor] argument, one tensor spec per key.
InputSpec parse_dict(const std::string &v, InputSpec &spec, const std::string &raw) {
  if (v.back() != '}')
    throw Error(fmt::format("input spec '{}': a dict of tensors ends with '}}'", raw), kSpecHelp);
  spec.kind = InputSpec::Kind::Dict;
  std::string body = v.substr(1, v.size() - 2);
  if (trim(body).empty())
    return spec;
  for (const auto &part : split_top_level(body, raw)) {
    InputSpec e = parse_input_spec(part);
    if (!e.is_tensor() || e.name.empty())
      throw Error(fmt::format("input spec '{}': entry '{}' is not key:tensor-spec", raw, part),
                  "a dict argument maps keys to tensors, e.g. "
                  "batch:{image:f32[1,3,64,64],mask:bool[1,64]}");
    for (const auto &other : spec.elements)
      if (other.name == e.name)
        throw Error(fmt::format("input spec '{}': the key '{}' is given twice", raw, e.name));
    spec.elements.push_back(e);
  }
  return spec;
}

} // namespace

InputSpec parse_input_spec(const std::string &raw) {
  InputSpec spec;
  auto [name, v] = split_name(trim(raw), raw);
  spec.name = name;
  if (v.empty())
    throw Error(fmt::format("input spec '{}' is empty", raw), kSpecHelp);
  if (parse_constant(v, spec))
    return spec;
  if (v[0] == '[') {
    if (v.back() != ']')
      throw Error(fmt::format("input spec '{}': a list of tensors ends with ']'", raw), kSpecHelp);
    spec.kind = InputSpec::Kind::Sequence;
    std::string body = v.substr(1, v.size() - 2);
    if (trim(body).empty())
      return spec; // an empty list
    for (const auto &part : split_top_level(body, raw)) {
      InputSpec e = parse_input_spec(part);
      if (!(e.is_tensor() || e.kind == InputSpec::Kind::Sequence) || !e.name.empty())
        throw Error(fmt::format("input spec '{}': element '{}' is not a tensor spec", raw, part),
                    "a list argument holds tensors, e.g. xs:[f32[2,3],f32[2,3]], or lists of "
                    "them for nested tuples: past:[[f32[1,4,8,16],f32[1,4,8,16]]]");
      spec.elements.push_back(e);
    }
    return spec;
  }
  if (v[0] == '{')
    return parse_dict(v, spec, raw);
  parse_tensor(v, spec, raw);
  return spec;
}

void resolve_dim_names(std::vector<InputSpec> &specs, bool data_gives_sizes) {
  std::map<std::string, int64_t> sizes;
  std::function<void(const InputSpec &)> collect = [&](const InputSpec &s) {
    for (const auto &d : s.dims)
      if (!d.symbol.empty() && d.value >= 0)
        sizes.emplace(d.symbol, d.value);
    for (const auto &e : s.elements)
      collect(e);
  };
  std::function<void(InputSpec &)> fill = [&](InputSpec &s) {
    for (auto &d : s.dims) {
      if (d.symbol.empty() || d.value >= 0)
        continue;
      auto it = sizes.find(d.symbol);
      if (it == sizes.end() && data_gives_sizes)
        continue; // the --input-data's size (spec_for_data)
      if (it == sizes.end())
        throw Error(fmt::format("input{}{}: dimension '{}' has no size in any --input",
                                s.name.empty() ? "" : " ", s.name, d.symbol),
                    fmt::format("give it an example size once, e.g. {}=2, in this or another "
                                "--input; later uses may name it alone",
                                d.symbol));
      d.value = it->second;
    }
    for (auto &e : s.elements)
      fill(e);
  };
  for (const auto &s : specs)
    collect(s);
  for (auto &s : specs)
    fill(s);
}

void check_option_conflicts(const ExportOptions &o) {
  for (size_t i = 0; i < o.inputs.size(); ++i)
    for (size_t j = i + 1; j < o.inputs.size() && !o.inputs[i].name.empty(); ++j)
      if (o.inputs[i].name == o.inputs[j].name)
        throw Error(fmt::format("--input {} and --input {} both name an input '{}'",
                                o.inputs[i].str(), o.inputs[j].str(), o.inputs[i].name),
                    "give each input its own name, or leave names out to use forward's");
  for (size_t i = 0; i < o.output_names.size(); ++i) {
    for (size_t j = i + 1; j < o.output_names.size(); ++j)
      if (o.output_names[i] == o.output_names[j])
        throw Error(fmt::format("--output-names gives the name '{}' twice", o.output_names[i]),
                    "ONNX value names must be unique; give each output its own name");
    for (const auto &in : o.inputs)
      if (in.name == o.output_names[i])
        throw Error(fmt::format("--output-names '{}' is also the name of --input {}",
                                o.output_names[i], in.str()),
                    "ONNX value names must be unique; rename the input or the output");
  }
  // --verify-dims sizes: each a symbolic dim of some --input.
  std::set<std::string> symbols;
  std::function<void(const InputSpec &)> add = [&](const InputSpec &s) {
    for (const auto &d : s.dims)
      if (!d.symbol.empty())
        symbols.insert(d.symbol);
    for (const auto &e : s.elements)
      add(e);
  };
  for (const auto &s : o.inputs)
    add(s);
  for (const auto &[name, size] : o.verify_dims)
    if (!symbols.count(name))
      throw UsageError(
          fmt::format("--verify-dims names '{}', which is not a symbolic dim of any --input", name),
          "declare it in a spec, e.g. --input x:f32[batch=1,3,224,224]");
}

namespace {
// A float that parses back as a float (3.0 prints as "3.0", not "3").
std::string float_text(double v) {
  std::string t = fmt::format("{}", v);
  if (t.find_first_of(".eEn") == std::string::npos)
    t += ".0";
  return t;
}
} // namespace

std::string InputSpec::str() const {
  std::string out = name.empty() ? "" : name + ":";
  switch (kind) {
  case Kind::None:
    return out + "none";
  case Kind::Default:
    return out + "default";
  case Kind::Bool:
    return out + (number != 0 ? "true" : "false");
  case Kind::Int:
    return out + fmt::format("{}", static_cast<int64_t>(number));
  case Kind::Float:
    return out + float_text(number);
  case Kind::Sequence: {
    std::vector<std::string> parts;
    for (const auto &e : elements)
      parts.push_back(e.str());
    return out + fmt::format("[{}]", fmt::join(parts, ","));
  }
  case Kind::Dict: {
    std::vector<std::string> parts;
    for (const auto &e : elements)
      parts.push_back(e.str());
    return out + fmt::format("{{{}}}", fmt::join(parts, ","));
  }
  case Kind::Tensor:
    break;
  }
  out += dtype_name(dtype);
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      out += ",";
    // A name given alone (its size comes from another spec or the data) prints alone.
    out += dims[i].symbol.empty() ? std::to_string(dims[i].value)
           : dims[i].value < 0    ? dims[i].symbol
                                  : fmt::format("{}={}", dims[i].symbol, dims[i].value);
  }
  out += "]";
  if (has_range)
    out += is_floating(dtype)
               ? fmt::format(":{}..{}", float_text(low), float_text(high))
               : fmt::format(":{}..{}", static_cast<int64_t>(low), static_cast<int64_t>(high));
  return out;
}

std::vector<std::pair<std::string, int64_t>> parse_dim_sizes(const std::string &text) {
  std::vector<std::pair<std::string, int64_t>> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        trim(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    size_t eq = item.find('=');
    if (eq == std::string::npos || !is_identifier(trim(item.substr(0, eq))))
      throw Error(fmt::format("--verify-dims '{}': '{}' is not name=size", text, item),
                  "e.g. --verify-dims batch=3,seq=77");
    std::string size = trim(item.substr(eq + 1));
    // 0 is a size to check too (an empty KV cache: the first decoding step).
    out.emplace_back(trim(item.substr(0, eq)), size == "0" ? 0 : parse_size(size, text));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return out;
}

} // namespace torch2onnx
