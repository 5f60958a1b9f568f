#include "aten_lib/plugins.h"

#include "builder/file_io.h"
#include "builder/onnx_schemas.h"
#include "builder/printable.h"
#include "builder/process.h"
#include "torch2onnx/plugin.h"

#include <cstring>
#include <cxxabi.h>
#include <dlfcn.h>
#include <filesystem>
#include <regex>

namespace torch2onnx {

namespace {

const char *kPluginHint = "rebuild the plugin against this torch2onnx's headers "
                          "(find_package(torch2onnx), target torch2onnx::plugin; docs/plugins.md)";

// dlerror()'s text with mangled C++ names demangled ("undefined symbol: torch2onnx::...").
std::string readable_dlerror() {
  const char *e = dlerror();
  std::string msg = e ? e : "unknown error";
  std::regex mangled("_Z[A-Za-z0-9_]+");
  std::string out;
  auto begin = std::sregex_iterator(msg.begin(), msg.end(), mangled);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += msg.substr(last, static_cast<size_t>(it->position()) - last);
    int status = 0;
    char *d = abi::__cxa_demangle(it->str().c_str(), nullptr, nullptr, &status);
    out += status == 0 && d ? d : it->str();
    std::free(d);
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + msg.substr(last);
}

template <typename Fn> Fn entry_point(void *handle, const char *name, const std::string &path) {
  dlerror();
  void *sym = dlsym(handle, name);
  if (!sym)
    throw Error(
        fmt::format("{} is not a torch2onnx converter plugin: it does not define {}", path, name),
        "a plugin defines its entry points with TORCH2ONNX_PLUGIN(registry) { ... } from "
        "<torch2onnx/plugin.h> (docs/plugins.md)");
  return reinterpret_cast<Fn>(sym);
}

// What is wrong with a plugin's registration of `e`, or "": ops are named "namespace::name",
// opsets are ONNX opsets torch2onnx targets, and the ONNX ops it lists are ONNX's.
std::string bad_entry(const RegistryEntry &e) {
  static const std::regex kOp("[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_.]*");
  if (!std::regex_match(e.op, kOp))
    return fmt::format("an op named '{}' (ops are named namespace::name, e.g. mylib::my_op)",
                       printable(e.op));
  if (e.since_opset < 1 || e.since_opset > kMaxOpset)
    return fmt::format("{} at opset {} (opsets run from 1 to {})", e.op, e.since_opset, kMaxOpset);
  for (const auto &o : e.onnx_ops)
    if (!is_onnx_op(o))
      return fmt::format("{} as the ONNX op '{}', which ONNX does not have (up to opset {})", e.op,
                         printable(o), kMaxOpset);
  return "";
}

} // namespace

void load_plugin(const std::string &path, Registry &registry) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(fmt::format("converter plugin '{}' does not exist", path),
                "give the path of the plugin's shared library, e.g. --converters "
                "build/libmylib_converters.so");
  check_shared_library(path, "converter plugin");
  // A plugin that crashes in its constructors or its registration is named in the crash message.
  const char *phase_before = current_phase();
  set_phase_text(fmt::format("loading the converter plugin '{}'", printable(path)));
  // A path without a slash would make dlopen search the library path instead of the file given.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_NOW: a symbol this torch2onnx does not provide fails here, with its name, instead of
  // in the middle of an export.
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw Error(fmt::format("cannot load converter plugin '{}': {}", path, readable_dlerror()),
                fmt::format("a plugin must be a shared library built against torch2onnx {} "
                            "and load in its process; {}",
                            TORCH2ONNX_VERSION, kPluginHint));
  auto abi = entry_point<int (*)()>(handle, "torch2onnx_plugin_abi_version", path);
  auto version = entry_point<const char *(*)()>(handle, "torch2onnx_plugin_version", path);
  auto reg = entry_point<void (*)(Registry &)>(handle, "torch2onnx_register", path);
  int plugin_abi = abi();
  const char *v = version();
  std::string plugin_version = v ? v : "?";
  if (plugin_abi != TORCH2ONNX_PLUGIN_ABI_VERSION || plugin_version != TORCH2ONNX_VERSION)
    throw Error(fmt::format("converter plugin '{}' was built against torch2onnx {} (plugin "
                            "interface {}), but this is torch2onnx {} (plugin interface {}); it "
                            "is not loaded",
                            path, plugin_version, plugin_abi, TORCH2ONNX_VERSION,
                            TORCH2ONNX_PLUGIN_ABI_VERSION),
                kPluginHint);
  Registry own;
  own.set_family(std::filesystem::path(path).stem().string());
  try {
    reg(own);
  } catch (const std::exception &e) {
    throw Error(
        fmt::format("converter plugin '{}' failed to register its converters: {}", path, e.what()));
  } catch (...) {
    throw Error(fmt::format("converter plugin '{}' threw an exception that is not a "
                            "std::exception while registering its converters",
                            path),
                "fix the plugin: throw torch2onnx::Error (or another std::exception)");
  }
  for (const RegistryEntry *e : own.entries())
    if (std::string why = bad_entry(*e); !why.empty())
      throw Error(fmt::format("converter plugin '{}' registers {}; it is not loaded", path, why),
                  "fix the plugin's TORCH2ONNX_PLUGIN block (docs/plugins.md)");
  registry.add_plugin_entries(own, path);
  set_phase(phase_before);
}

std::unique_ptr<Registry> registry_with_plugins(const Registry *base,
                                                const std::vector<std::string> &plugins,
                                                const std::string &fallback_domain) {
  if (plugins.empty() && fallback_domain.empty())
    return nullptr;
  auto r = std::make_unique<Registry>(base ? *base : Registry::global());
  for (const auto &p : plugins)
    load_plugin(p, *r);
  if (!fallback_domain.empty())
    r->set_fallback_domain(fallback_domain);
  return r;
}

} // namespace torch2onnx
