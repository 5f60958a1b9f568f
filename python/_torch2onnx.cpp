// The Python extension torch2onnx._torch2onnx: the C++ API (include/torch2onnx/torch2onnx.h)
// bound with pybind11 against the same LibTorch as Debian's python3-torch, so a torch.Tensor and
// a torch.jit.ScriptModule pass in without a copy or a file. python/torch2onnx/__init__.py wraps
// it (tracing an nn.Module, keyword arguments).
#include "torch2onnx/torch2onnx.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/jit/python/module_python.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace {

using torch2onnx::SettingField;
using torch2onnx::Settings;

std::string fmt_index(size_t i) {
  return "args[" + std::to_string(i) + "]";
}

// An example argument: a torch.Tensor, or a tuple or list of them, nested (a KV cache's tuple of
// (key, value) pairs), or a dict of them by str key.
c10::IValue example_value(const py::handle &v, const std::string &where) {
  if (THPVariable_Check(v.ptr()))
    return py::cast<at::Tensor>(v);
  if (py::isinstance<py::dict>(v)) {
    c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
    for (const auto &kv : py::reinterpret_borrow<py::dict>(v)) {
      if (!py::isinstance<py::str>(kv.first))
        throw py::type_error(where + " is a dict with a key that is not a str");
      const std::string key = kv.first.cast<std::string>();
      c10::IValue value = example_value(kv.second, where + "['" + key + "']");
      if (!value.isTensor())
        throw py::type_error(where + "['" + key +
                             "'] is not a tensor; a dict argument holds "
                             "tensors");
      dict.insert(key, value);
    }
    return dict;
  }
  if (!py::isinstance<py::tuple>(v) && !py::isinstance<py::list>(v))
    throw py::type_error(py::str("{} is a {}; torch2onnx.export takes tensors, or tuples and "
                                 "lists of them")
                             .format(where, py::type::of(v).attr("__name__"))
                             .cast<std::string>());
  std::vector<c10::IValue> elems;
  size_t j = 0;
  for (const auto &e : v)
    elems.push_back(example_value(e, where + "[" + std::to_string(j++) + "]"));
  if (py::isinstance<py::tuple>(v))
    return c10::ivalue::Tuple::create(std::move(elems));
  if (elems.empty())
    return c10::List<at::Tensor>();
  c10::impl::GenericList list(elems[0].type());
  for (auto &e : elems)
    list.push_back(std::move(e));
  return list;
}

[[noreturn]] void wrong_type(const SettingField &f, const py::handle &v, const char *what) {
  throw py::type_error(py::str("{} must be {}, not {}")
                           .format(f.name, what, py::type::of(v).attr("__name__"))
                           .cast<std::string>());
}

// One keyword argument into its setting: a str is read as on the command line (set_setting:
// "a,b" lists, "batch=3" sizes); other values must be of the setting's Python type.
void set_from_python(Settings &s, const SettingField &f, const py::handle &v) {
  const bool is_bool = py::isinstance<py::bool_>(v);
  const bool is_int = py::isinstance<py::int_>(v) && !is_bool;
  std::visit(
      [&](auto m) {
        using T = std::decay_t<decltype(s.*m)>;
        if constexpr (std::is_same_v<T, bool>) {
          if (!is_bool)
            wrong_type(f, v, "True or False");
          s.*m = py::cast<bool>(v);
        } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, uint64_t>) {
          if (!is_int)
            wrong_type(f, v, "an int");
          if (std::is_same_v<T, uint64_t> && py::cast<int64_t>(v) < 0)
            throw py::value_error(f.name + std::string(" must be >= 0"));
          s.*m = py::cast<T>(v);
        } else if constexpr (std::is_same_v<T, double>) {
          if (is_bool || !(is_int || py::isinstance<py::float_>(v)))
            wrong_type(f, v, "a number");
          s.*m = py::cast<double>(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (!py::isinstance<py::str>(v))
            wrong_type(f, v, "a str");
          s.*m = py::cast<std::string>(v);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          if (py::isinstance<py::str>(v))
            return set_setting(s, f, py::cast<std::string>(v));
          if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v))
            wrong_type(f, v, "a list of str");
          for (const auto &e : v) {
            if (!py::isinstance<py::str>(e))
              wrong_type(f, e, "a list of str");
            (s.*m).push_back(py::cast<std::string>(e));
          }
        } else { // verify_dims: {"batch": 3} or "batch=3"
          if (py::isinstance<py::str>(v))
            return set_setting(s, f, py::cast<std::string>(v));
          if (!py::isinstance<py::dict>(v))
            wrong_type(f, v, "a dict of sizes, e.g. {\"batch\": 3}");
          for (const auto &[k, n] : py::cast<py::dict>(v)) {
            if (!py::isinstance<py::str>(k) || !py::isinstance<py::int_>(n) ||
                py::isinstance<py::bool_>(n))
              wrong_type(f, v, "a dict of str to int sizes");
            (s.*m).emplace_back(py::cast<std::string>(k), py::cast<int64_t>(n));
          }
        }
      },
      f.member);
}

torch2onnx::ExportSettings settings_of(const py::dict &kwargs) {
  torch2onnx::ExportSettings s;
  for (const auto &[key, value] : kwargs) {
    std::string name = py::str(key);
    const SettingField *f = torch2onnx::find_setting(name);
    if (!f) {
      std::vector<std::string> known;
      for (const auto &g : torch2onnx::setting_fields())
        known.push_back(g.name);
      throw py::type_error(
          py::str("export() got an unexpected keyword argument '{}' (settings: {})")
              .format(name, py::str(", ").attr("join")(known))
              .cast<std::string>());
    }
    set_from_python(s, *f, value);
  }
  if (!s.converters.empty()) // a plugin resolves torch2onnx's symbols, private in this module
    throw torch2onnx::UsageError("converters= cannot be used from Python: a converter plugin "
                                 "takes torch2onnx's symbols from the program that loads it",
                                 "use the CLI's --converters or the C++ API (docs/plugins.md)");
  return s;
}

// (name, help, default as text) of every setting, for torch2onnx.export's docstring.
std::vector<std::tuple<std::string, std::string, std::string>> settings_help() {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  const Settings defaults;
  for (const auto &f : torch2onnx::setting_fields())
    out.emplace_back(f.name, f.help, torch2onnx::setting_text(defaults, f));
  return out;
}

py::dict dict_of(const torch2onnx::ExportResult &r) {
  py::dict d;
  d["output_path"] = r.output_path;
  d["opset"] = r.opset;
  d["nodes"] = r.nodes;
  d["parameters"] = r.parameters;
  d["input_names"] = r.input_names;
  d["output_names"] = r.output_names;
  d["notices"] = r.notices;
  d["warnings"] = r.warnings;
  d["seconds"] = r.seconds;
  d["verified"] = r.verified;
  d["verify_ok"] = r.verify_ok;
  py::list outs;
  for (const auto &o : r.outputs) {
    py::dict od;
    od["name"] = o.name;
    od["sizes"] = o.sizes;
    od["ok"] = o.ok;
    od["max_abs_error"] = o.max_abs_error;
    od["tolerance"] = o.tolerance;
    od["problem"] = o.problem;
    outs.append(od);
  }
  d["outputs"] = outs;
  py::list fns;
  for (const auto &f : r.functions) {
    py::dict fd;
    fd["name"] = f.name;
    fd["module_type"] = f.module_type;
    fd["calls"] = f.calls;
    fd["nodes"] = f.nodes;
    fns.append(fd);
  }
  d["functions"] = fns;
  return d;
}

} // namespace

PYBIND11_MODULE(_torch2onnx, m) {
  m.doc() = "torch2onnx's C++ exporter (use torch2onnx.export)";
  // torch2onnx.Error carries the message; its `hint` attribute says what to do. A setting out of
  // range or contradicting another is a torch2onnx.UsageError, also a ValueError.
  static py::exception<torch2onnx::Error> error(m, "Error", PyExc_RuntimeError);
  static py::object usage = py::reinterpret_steal<py::object>(
      PyErr_NewException("torch2onnx._torch2onnx.UsageError",
                         py::make_tuple(error, py::handle(PyExc_ValueError)).ptr(), nullptr));
  m.attr("UsageError") = usage;
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const py::object &type, const torch2onnx::Error &e) {
      py::object exc = type(e.what());
      exc.attr("hint") = e.hint();
      PyErr_SetObject(type.ptr(), exc.ptr());
    };
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const torch2onnx::UsageError &e) {
      raise(usage, e);
    } catch (const torch2onnx::Error &e) {
      raise(py::reinterpret_borrow<py::object>(error.ptr()), e);
    }
  });
  m.def(
      "export_module",
      [](py::object script_module, py::list args, std::string output,
         std::vector<std::string> input_names,
         std::map<std::string, std::map<int64_t, std::string>> dims, py::dict settings,
         py::object log) {
        auto module = torch::jit::as_module(script_module);
        if (!module)
          throw torch2onnx::Error("the model is not a torch.jit.ScriptModule",
                                  "trace or script it first, or pass an nn.Module to "
                                  "torch2onnx.export, which traces it");
        std::vector<c10::IValue> values;
        for (size_t i = 0; i < args.size(); ++i)
          values.push_back(example_value(args[i], fmt_index(i)));
        torch2onnx::ExportSettings s = settings_of(settings);
        s.input_names = std::move(input_names);
        s.dynamic_dims = std::move(dims);
        if (!log.is_none())
          s.log = [log](const std::string &line) {
            py::gil_scoped_acquire gil;
            log(line);
          };
        torch2onnx::ExportResult r;
        {
          py::gil_scoped_release nogil;
          r = torch2onnx::export_module_values(*module, values, output, s);
        }
        return dict_of(r);
      },
      py::arg("module"), py::arg("args"), py::arg("output"), py::arg("input_names"),
      py::arg("dynamic_dims"), py::arg("settings"), py::arg("log"));
  // Checks keyword arguments before the model is traced (a wrong one fails at once).
  m.def("check_settings", [](py::dict settings) { settings_of(settings).validate(); });
  m.def("settings_help", &settings_help);
  m.def("version", &torch2onnx::version);
}
