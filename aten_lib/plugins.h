// Loading converter plugins (--converters LIB.so): shared libraries built against
// <torch2onnx/plugin.h> that add converters for custom ops. See docs/plugins.md.
#pragma once

#include "aten_lib/converter.h"

#include <memory>
#include <string>
#include <vector>

namespace torch2onnx {

// Loads the plugin at `path` and adds its converters to `registry`, each labelled with the
// path. Throws Error naming the file when it cannot be loaded (missing, not a shared library,
// a symbol this torch2onnx lacks), is not a torch2onnx plugin, was built against another
// torch2onnx version, or its registration fails. A plugin stays loaded for the process's life.
void load_plugin(const std::string &path, Registry &registry);

// The registry an export uses: `base` (null: Registry::global()) plus the converters of each
// plugin in `plugins`, in order, and the --fallback-domain (empty: off; its name already checked by
// Settings::validate). Null when there is nothing to add (use `base` as it is). Example: auto r =
// registry_with_plugins(nullptr, {"libmylib_converters.so"}, "");
std::unique_ptr<Registry> registry_with_plugins(const Registry *base,
                                                const std::vector<std::string> &plugins,
                                                const std::string &fallback_domain);

} // namespace torch2onnx
