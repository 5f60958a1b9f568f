#include "exporter/options.h"

#include "builder/error.h"

#include <cctype>

namespace torch2onnx {

namespace {
const char *kSpecHelp =
    "expected [name:]dtype[dims], e.g. x:f32[1,3,224,224] or ids:i64[batch=2,128]; dtypes: f32 f16 "
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

InputSpec parse_input_spec(const std::string &raw) {
  std::string text = trim(raw);
  InputSpec spec;
  size_t open = text.find('[');
  if (open == std::string::npos || text.back() != ']')
    throw Error(fmt::format("input spec '{}': missing [dims]", raw), kSpecHelp);
  std::string head = text.substr(0, open);
  size_t colon = head.find(':');
  std::string dtype_text = head;
  if (colon != std::string::npos) {
    spec.name = trim(head.substr(0, colon));
    dtype_text = trim(head.substr(colon + 1));
    if (!is_identifier(spec.name))
      throw Error(fmt::format("input spec '{}': '{}' is not a valid input name", raw, spec.name),
                  kSpecHelp);
  }
  try {
    spec.dtype = parse_dtype(trim(dtype_text));
  } catch (const Error &e) {
    throw Error(fmt::format("input spec '{}': {}", raw, e.what()), kSpecHelp);
  }
  std::string body = text.substr(open + 1, text.size() - open - 2);
  if (body.find_first_of("[]") != std::string::npos)
    throw Error(fmt::format("input spec '{}': unbalanced brackets", raw), kSpecHelp);
  if (trim(body).empty())
    return spec; // a 0-d tensor: "f32[]"
  size_t pos = 0;
  while (true) {
    size_t comma = body.find(',', pos);
    std::string item =
        trim(body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      spec.dims.push_back(Dim::known(parse_size(item, raw)));
    } else {
      std::string sym = trim(item.substr(0, eq));
      if (!is_identifier(sym))
        throw Error(fmt::format("input spec '{}': '{}' is not a valid dimension name", raw, sym),
                    kSpecHelp);
      spec.dims.push_back(Dim::named(sym, parse_size(trim(item.substr(eq + 1)), raw)));
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return spec;
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
}

std::string InputSpec::str() const {
  std::string out = name.empty() ? "" : name + ":";
  out += dtype_name(dtype);
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      out += ",";
    out += dims[i].symbol.empty() ? std::to_string(dims[i].value)
                                  : fmt::format("{}={}", dims[i].symbol, dims[i].value);
  }
  return out + "]";
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
    out.emplace_back(trim(item.substr(0, eq)), parse_size(trim(item.substr(eq + 1)), text));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return out;
}

} // namespace torch2onnx
