// The settings table (include/torch2onnx/settings.h): every row reads back what it writes, the
// command line made from it gives the same settings, validate() refuses what it must, and every
// row reaches the CLI's --help and the report's options. Python: tests/python.
#include "harness.h"
#include "torch2onnx/settings.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

using namespace torch2onnx;
using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

// A value other than the default for each row, as its flag takes it.
std::string sample_text(const SettingField &f) {
  static const Settings defaults;
  return std::visit(
      [&](auto m) -> std::string {
        using T = std::decay_t<decltype(defaults.*m)>;
        if constexpr (std::is_same_v<T, bool>)
          return defaults.*m ? "false" : "true";
        else if constexpr (std::is_same_v<T, int>)
          return "15";
        else if constexpr (std::is_same_v<T, double>)
          return "0.003";
        else if constexpr (std::is_same_v<T, uint64_t>)
          return "7";
        else if constexpr (std::is_same_v<T, std::string>)
          return "org.example.ops";
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return f.delimiter ? "Alpha,Beta" : "/opt/lib/libx.so";
        else
          return "batch=3,seq=5";
      },
      f.member);
}

Settings all_samples() {
  Settings s;
  for (const auto &f : setting_fields())
    set_setting(s, f, sample_text(f));
  return s;
}

// The settings a command line gives (the CLI's reading of the table's flags).
Settings from_args(const std::vector<std::string> &args) {
  static const Settings defaults;
  Settings s;
  for (size_t i = 0; i < args.size(); ++i) {
    const SettingField *f = nullptr;
    for (const auto &g : setting_fields())
      if (args[i] == g.flag)
        f = &g;
    REQUIRE(f != nullptr);
    if (const auto *m = std::get_if<bool Settings::*>(&f->member))
      s.**m = !(defaults.**m);
    else
      set_setting(s, *f, args.at(++i));
  }
  return s;
}

void check_usage_error(const Settings &s, const std::string &expected) {
  try {
    s.validate();
    FAIL("validate() passed; expected: " << expected);
  } catch (const UsageError &e) {
    CHECK_THAT(e.what(), Catch::Contains(expected));
  }
}

} // namespace

TEST_CASE("settings: every row has a unique name and flag, a help line and a type", "[settings]") {
  std::set<std::string> names, flags;
  for (const auto &f : setting_fields()) {
    CHECK(names.insert(f.name).second);
    CHECK(flags.insert(f.flag).second);
    CHECK(std::string(f.flag).rfind("--", 0) == 0);
    CHECK(f.help.size() > 20);
    CHECK(find_setting(f.name) == &f);
    if (*f.alias)
      CHECK(find_setting(f.alias) == &f);
  }
  CHECK(find_setting("libraries") == find_setting("load_library"));
  CHECK(find_setting("no_such_setting") == nullptr);
  // The defaults are the ones the documentation gives.
  Settings d;
  CHECK(d.opset == kDefaultOpset);
  CHECK(d.rtol == kDefaultTolerance);
  CHECK(d.atol == kDefaultTolerance);
  CHECK(d.optimize);
  CHECK_FALSE(d.verify);
  CHECK_NOTHROW(d.validate());
}

TEST_CASE("settings: each row reads back the text it writes", "[settings]") {
  for (const auto &f : setting_fields()) {
    INFO(f.name);
    Settings s;
    set_setting(s, f, sample_text(f));
    CHECK_FALSE(setting_is_default(s, f));
    Settings again;
    set_setting(again, f, setting_text(s, f));
    CHECK(setting_text(again, f) == setting_text(s, f));
  }
  Settings s;
  set_setting(s, *find_setting("functions"), "A,B");
  set_setting(s, *find_setting("functions"), "C");
  CHECK(s.functions == std::vector<std::string>{"A", "B", "C"}); // a repeated flag appends
  set_setting(s, *find_setting("load_library"), "/a,b/lib.so");  // a path is never split
  CHECK(s.libraries == std::vector<std::string>{"/a,b/lib.so"});
  set_setting(s, *find_setting("verify_dims"), "batch=3,seq=77");
  CHECK(s.verify_dims == std::vector<std::pair<std::string, int64_t>>{{"batch", 3}, {"seq", 77}});
}

TEST_CASE("settings: the command line made from settings gives the same settings", "[settings]") {
  Settings s = all_samples();
  Settings back = from_args(setting_args(s));
  for (const auto &f : setting_fields()) {
    INFO(f.name);
    CHECK(setting_text(back, f) == setting_text(s, f));
  }
  CHECK(setting_args(Settings{}).empty()); // defaults need no flag
  // Without verification: none of the settings that only tune a comparison.
  for (const auto &a : setting_args(s, false))
    for (const auto &f : setting_fields())
      if (a == f.flag)
        CHECK_FALSE(f.verification);
}

TEST_CASE("settings: a value of the wrong type names the flag", "[settings]") {
  Settings s;
  for (auto [name, text] :
       std::vector<std::pair<const char *, const char *>>{{"opset", "seventeen"},
                                                          {"opset", "17.5"},
                                                          {"rtol", "tight"},
                                                          {"seed", "-1"},
                                                          {"verify", "maybe"},
                                                          {"verify_dims", "batch"}}) {
    INFO(name << " " << text);
    const SettingField &f = *find_setting(name);
    try {
      set_setting(s, f, text);
      FAIL("accepted");
    } catch (const Error &e) {
      CHECK_THAT(e.what(), Catch::Contains(std::string(f.flag).substr(2)));
    }
  }
}

TEST_CASE("settings: validate() refuses values out of range and settings that contradict",
          "[settings]") {
  Settings s;
  s.opset = 5;
  check_usage_error(s, "--opset 5");
  s = {};
  s.opset = kMaxOpset + 1;
  check_usage_error(s, "is not supported");
  for (double bad : {-1.0, std::nan(""), HUGE_VAL}) {
    s = {};
    s.rtol = bad;
    check_usage_error(s, "--rtol");
    s = {};
    s.atol = bad;
    check_usage_error(s, "--atol");
  }
  s = {};
  s.opset = 13;
  s.functions = {"BasicBlock"};
  check_usage_error(s, "opset 15");
  s.opset = 15;
  CHECK_NOTHROW(s.validate());
  s.functions = {""};
  check_usage_error(s, "empty name");
  s = {};
  s.output_names = {"y", "y"};
  check_usage_error(s, "twice");
  s = {};
  s.verify_dims = {{"batch", 3}, {"batch", 4}};
  check_usage_error(s, "twice");
  s.verify_dims = {{"batch", -1}};
  check_usage_error(s, "0 or more");
  s.verify_dims = {{"batch", 0}}; // an empty batch or KV cache is a size to verify
  CHECK_NOTHROW(s.validate());
  s = {};
  s.fallback_domain = "ai.onnx";
  check_usage_error(s, "ONNX's own");
  s.fallback_domain = "1bad";
  check_usage_error(s, "not a domain name");
  s.fallback_domain = "org.example.ops";
  CHECK_NOTHROW(s.validate());
  s = {};
  s.libraries = {""};
  check_usage_error(s, "empty path");
}

TEST_CASE("settings: the CLI's --help has every row, with its default", "[settings]") {
  auto r = run_cli({"--help"});
  REQUIRE(r.exit_code == 0);
  for (const auto &f : setting_fields()) {
    INFO(f.name);
    CHECK(r.out.find(f.flag) != std::string::npos);
    CHECK(r.out.find(f.help.substr(0, 30)) != std::string::npos);
  }
  CHECK(r.out.find(fmt::format("(default {})", kDefaultOpset)) != std::string::npos);
}

TEST_CASE("settings: the CLI refuses a bad value with exit 2, before loading the model",
          "[settings]") {
  const std::string missing = "/nonexistent/model.pt";
  for (const auto &args : std::vector<std::vector<std::string>>{
           {missing, "--opset", "5"},
           {missing, "--opset", "x"},
           {missing, "--verify", "--rtol", "-1"},
           {missing, "--seed", "3"}, // only for a comparison, and none was asked for
           {missing, "--verify", "--verify-dims", "batch=0"},
           {missing, "--fallback-domain", "ai.onnx"},
           {missing, "--opset", "13", "--functions", "Block"}}) {
    INFO(fmt::format("{}", fmt::join(args, " ")));
    auto r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("model.pt") == std::string::npos); // not the missing model: the flag
  }
}

TEST_CASE("settings: the report's options hold every row", "[settings]") {
  fs::path dir = fs::temp_directory_path() / fmt::format("t2o_settings_{}", ::getpid());
  fs::create_directories(dir);
  std::string report = (dir / "r.json").string();
  auto r = run_cli(
      {(dir / "missing.pt").string(), "--input", "x:f32[1]", "--opset", "13", "--report", report});
  CHECK(r.exit_code != 0);
  auto j = nlohmann::json::parse(file_bytes(report));
  for (const auto &f : setting_fields()) {
    INFO(f.name);
    CHECK(j["options"].contains(f.name));
  }
  CHECK(j["options"]["opset"] == 13);
  fs::remove_all(dir);
}
