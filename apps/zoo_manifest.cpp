// Reads a zoo manifest (YAML, parsed by yaml-cpp). Strict: unknown keys and wrong types are errors
// with the line, so a typo in a CI manifest cannot silently drop a check.
#include "apps/zoo.h"
#include "aten_lib/converter.h"
#include "builder/error.h"
#include "exporter/options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace torch2onnx::zoo {
namespace {

struct Ctx {
  std::string file;
  [[noreturn]] void fail(const YAML::Node &n, const std::string &msg) const {
    throw Error(fmt::format("{}:{}: {}", file, n.Mark().line + 1, msg),
                "see docs/zoo.md for the manifest format");
  }
};

// Keys a model entry may have: its own, and every setting of the settings table but `verify`
// (the zoo always verifies). `make` and `notes` are for models/make_zoo.py and for people.
std::set<std::string> with_settings(std::set<std::string> keys) {
  for (const auto &f : setting_fields())
    if (std::string(f.name) != "verify")
      keys.insert(f.name);
  return keys;
}
const std::set<std::string> kModelKeys =
    with_settings({"name", "model", "inputs", "opset", "timeout", "expect_fail", "make", "notes",
                   "input_data", "expected_outputs"});
const std::set<std::string> kDefaultKeys = with_settings({"opset", "timeout"});
const std::set<std::string> kTopKeys = {"model_dir", "defaults", "models"};

void check_keys(const Ctx &c, const YAML::Node &map, const std::set<std::string> &allowed,
                const std::string &where) {
  if (!map.IsMap())
    c.fail(map, fmt::format("{} must be a mapping (key: value)", where));
  for (const auto &kv : map) {
    // A key may itself be a list, a mapping or empty ("? [a]: 1", "!tag: 1"): not a known key.
    if (!kv.first.IsScalar())
      c.fail(kv.first, fmt::format("{} has a key that is not a name", where));
    auto k = kv.first.as<std::string>();
    if (!allowed.count(k))
      c.fail(kv.first,
             fmt::format("unknown key '{}' in {} (known: {})", k, where, fmt::join(allowed, ", ")));
  }
}

// Why `name` cannot name a job, or "". A name becomes paths under --out (NAME.onnx, the test-data
// folder NAME/, logs/NAME.log), and zoo mode deletes a passing model's files: `..` would be the
// parent of --out, `.` --out itself and `logs` every model's log, so only plain file names pass.
std::string unsafe_name(const std::string &name) {
  if (name.empty())
    return "is empty";
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.' &&
        ch != '+')
      return "may only hold letters, digits, '_', '-', '.' and '+' (no '/', '@' or spaces)";
  if (name[0] == '.' || name[0] == '-')
    return "must not start with '.' or '-'";
  std::string lower;
  for (char ch : name)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "logs")
    return "is reserved: --out/logs holds every model's log";
  // NAME.onnx/ (that model's test-data folder) would be model NAME's ONNX file.
  if (lower.size() >= 5 && lower.compare(lower.size() - 5, 5, ".onnx") == 0)
    return "must not end in .onnx (its test-data folder would clash with another model's file)";
  return "";
}

template <typename T>
T scalar(const Ctx &c, const YAML::Node &n, const std::string &key, const char *what) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception &) {
    c.fail(n, fmt::format("'{}' must be {}", key, what));
  }
}

// A string or a list of strings.
std::vector<std::string> strings(const Ctx &c, const YAML::Node &n, const std::string &key) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.as<std::string>());
  } else if (n.IsSequence()) {
    for (const auto &e : n)
      out.push_back(scalar<std::string>(c, e, key, "a list of strings"));
  } else {
    c.fail(n, fmt::format("'{}' must be a string or a list of strings", key));
  }
  return out;
}

std::vector<int> opsets(const Ctx &c, const YAML::Node &n) {
  std::vector<int> out;
  if (n.IsSequence()) {
    for (const auto &e : n)
      out.push_back(scalar<int>(c, e, "opset", "an integer or a list"));
  } else {
    out.push_back(scalar<int>(c, n, "opset", "an integer or a list of integers"));
  }
  if (out.empty())
    c.fail(n, "'opset' is an empty list");
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < kMinOpset || out[i] > kMaxOpset)
      c.fail(n, fmt::format("opset {} is outside {}..{}", out[i], kMinOpset, kMaxOpset));
    // Two jobs with one name would write the same files at once.
    if (std::find(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), out[i]) !=
        out.begin() + static_cast<std::ptrdiff_t>(i))
      c.fail(n, fmt::format("opset {} is listed twice", out[i]));
  }
  return out;
}

std::string expand_home(const std::string &p) {
  if (p.rfind("~/", 0) == 0 || p == "~") {
    const char *home = std::getenv("HOME");
    return std::string(home ? home : "") + p.substr(1);
  }
  return p;
}

struct Defaults {
  std::vector<int> opsets{17};
  double timeout = 900;
  Settings settings; // opset: see `opsets`
};

// One setting from a scalar or a list of scalars, read as the command line reads its flag; an
// entry's value replaces the defaults' (a list too).
void read_setting(const Ctx &c, const YAML::Node &n, const SettingField &f, Settings &s) {
  static const Settings fresh;
  std::visit([&](auto m) { s.*m = fresh.*m; }, f.member);
  const bool list = std::holds_alternative<std::vector<std::string> Settings::*>(f.member);
  std::vector<YAML::Node> values;
  if (n.IsSequence() && list)
    for (const auto &v : n)
      values.push_back(v);
  else
    values.push_back(n);
  for (const auto &v : values) {
    if (!v.IsScalar())
      c.fail(v, fmt::format("'{}' must be {}", f.name,
                            list ? "a string or a list of strings" : "a single value"));
    try {
      set_setting(s, f, v.as<std::string>());
    } catch (const Error &e) {
      c.fail(v, fmt::format("'{}': {}", f.name, e.what()));
    }
  }
}

void read_common(const Ctx &c, const YAML::Node &m, Defaults &d) {
  if (m["opset"])
    d.opsets = opsets(c, m["opset"]);
  if (m["timeout"]) {
    d.timeout = scalar<double>(c, m["timeout"], "timeout", "a number of seconds");
    if (!(d.timeout > 0))
      c.fail(m["timeout"], "'timeout' must be positive"); // also NaN
  }
  for (const auto &f : setting_fields())
    if (std::string(f.name) != "opset" && std::string(f.name) != "verify" && m[f.name])
      read_setting(c, m[f.name], f, d.settings);
}

} // namespace

namespace {

// A path from the manifest: "~" expanded, relative to `dir`.
std::string path_in(const std::string &p, const std::string &dir) {
  std::string e = expand_home(p);
  return fs::path(e).is_absolute() ? e : (fs::path(dir) / e).string();
}

// The name of one model entry, checked (safe as a file name, not a duplicate).
std::string entry_name(const Ctx &c, const YAML::Node &e, std::set<std::string> &names) {
  check_keys(c, e, kModelKeys, "a model entry");
  if (!e["name"])
    c.fail(e, "a model entry needs a 'name'");
  auto name = scalar<std::string>(c, e["name"], "name", "a string");
  if (auto why = unsafe_name(name); !why.empty())
    c.fail(e["name"], fmt::format("name '{}' {}", name, why));
  if (!names.insert(name).second)
    c.fail(e["name"], fmt::format("duplicate name '{}'", name));
  if (!e["inputs"] && !e["input_data"])
    c.fail(e, fmt::format("model '{}' needs 'inputs' (a list of input specs) or 'input_data' "
                          "(files with the example values)",
                          name));
  return name;
}

// The entry's inputs and data files and the oracle.
void read_entry_data(const Ctx &c, const YAML::Node &e, const std::string &model_dir, Job &j) {
  const std::string &name = j.name;
  if (e["inputs"])
    j.inputs = strings(c, e["inputs"], "inputs");
  if (e["input_data"])
    for (const auto &f : strings(c, e["input_data"], "input_data"))
      j.input_data.push_back(path_in(f, model_dir));
  for (const auto &s : j.inputs) {
    try {
      parse_input_spec(s);
    } catch (const Error &err) {
      c.fail(e["inputs"], fmt::format("model '{}': {}", name, err.what()));
    }
  }
  if (e["expected_outputs"]) {
    j.expected_outputs = path_in(
        scalar<std::string>(c, e["expected_outputs"], "expected_outputs", "a path"), model_dir);
    if (j.input_data.empty())
      c.fail(e["expected_outputs"],
             fmt::format("model '{}': 'expected_outputs' needs 'input_data' (the inputs the "
                         "outputs were computed from)",
                         name));
  }
}

// One model entry: its job at each opset (`opset` > 0 overrides the manifest's).
void read_model_entry(const Ctx &c, const YAML::Node &e, const Defaults &defaults,
                      const std::string &name, const fs::path &base, const std::string &model_dir,
                      int opset, Manifest &m) {
  Defaults d = defaults;
  read_common(c, e, d);
  Job j;
  j.name = name;
  j.line = e.Mark().line + 1;
  j.model = path_in(
      e["model"] ? scalar<std::string>(c, e["model"], "model", "a path") : name + ".pt", model_dir);
  read_entry_data(c, e, model_dir, j);
  if (e["expect_fail"]) {
    j.expect_fail = scalar<std::string>(c, e["expect_fail"], "expect_fail", "a reason (string)");
    if (j.expect_fail.empty())
      c.fail(e["expect_fail"], "'expect_fail' needs a reason");
  }
  j.timeout = d.timeout;
  j.settings = d.settings;
  try { // with the highest opset: a lower one that cannot do it fails that job only
    Settings check = j.settings;
    check.opset = opset > 0 ? opset : *std::max_element(d.opsets.begin(), d.opsets.end());
    check.validate();
  } catch (const Error &err) {
    c.fail(e, fmt::format("model '{}': {}", name, err.what()));
  }
  for (auto &lib : j.settings.libraries) {
    std::string l = expand_home(lib);
    lib = fs::path(l).is_absolute() || l.find('/') == std::string::npos ? l : (base / l).string();
  }
  // A plugin is a file: a relative path is relative to the manifest's folder.
  for (auto &p : j.settings.converters)
    p = path_in(p, base.string());
  std::vector<int> ops = opset > 0 ? std::vector<int>{opset} : d.opsets;
  for (int o : ops) {
    Job k = j;
    k.opset = o;
    k.first_opset = o == ops.front();
    if (ops.size() > 1)
      k.name = fmt::format("{}@op{}", name, o);
    m.jobs.push_back(std::move(k));
  }
}

Manifest read_manifest(const std::string &path, const std::string &models_dir, int opset) {
  Ctx c{path};
  if (!fs::is_regular_file(path))
    throw Error(fmt::format("manifest '{}' does not exist or is not a file", path));
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception &e) {
    throw Error(fmt::format("{}:{}: not valid YAML: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap())
    throw Error(fmt::format("{}: the manifest must be a mapping with 'models'", path));
  check_keys(c, root, kTopKeys, "the manifest");

  Manifest m;
  m.path = path;
  fs::path base = fs::absolute(path).parent_path();
  std::string dir =
      root["model_dir"]
          ? expand_home(scalar<std::string>(c, root["model_dir"], "model_dir", "a path"))
          : "";
  if (!models_dir.empty())
    dir = models_dir;
  m.model_dir = dir.empty()                   ? base.string()
                : fs::path(dir).is_absolute() ? dir
                                              : (base / dir).string();

  Defaults defaults;
  if (root["defaults"]) {
    check_keys(c, root["defaults"], kDefaultKeys, "defaults");
    read_common(c, root["defaults"], defaults);
  }
  const YAML::Node models = root["models"];
  if (!models || !models.IsSequence() || models.size() == 0)
    throw Error(fmt::format("{}: 'models' must be a non-empty list", path));
  std::set<std::string> names;
  for (const auto &e : models)
    read_model_entry(c, e, defaults, entry_name(c, e, names), base, m.model_dir, opset, m);
  return m;
}

} // namespace

void find_oracle_files(Job &j) {
  std::string stem = j.model;
  if (fs::path(stem).extension() == ".pt")
    stem.resize(stem.size() - 3);
  std::error_code ec;
  if (j.input_data.empty() && fs::is_regular_file(stem + ".inputs.pt", ec))
    j.input_data.push_back(stem + ".inputs.pt");
  if (j.expected_outputs.empty() && !j.input_data.empty() &&
      fs::is_regular_file(stem + ".expected.pt", ec))
    j.expected_outputs = stem + ".expected.pt";
}

Manifest load_manifest(const std::string &path, const std::string &models_dir, int opset) {
  try {
    return read_manifest(path, models_dir, opset);
  } catch (const YAML::Exception &e) {
    // A yaml-cpp conversion the checks above did not foresee (found by tests/fuzz): still one
    // error with the line, never an unexpected exception.
    throw Error(fmt::format("{}:{}: {}", path, e.mark.line + 1, e.msg),
                "see docs/zoo.md for the manifest format");
  }
}

} // namespace torch2onnx::zoo
