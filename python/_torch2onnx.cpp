// The Python extension torch2onnx._torch2onnx: the C++ API (include/torch2onnx/torch2onnx.h)
// bound with pybind11 against the same LibTorch as Debian's python3-torch, so a torch.Tensor and
// a torch.jit.ScriptModule pass in without a copy or a file. python/torch2onnx/__init__.py wraps
// it (tracing an nn.Module, keyword arguments).
#include "torch2onnx/torch2onnx.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/jit/python/module_python.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace {

torch2onnx::ExportSettings
settings_of(int opset, std::vector<std::string> input_names, std::vector<std::string> output_names,
            std::map<std::string, std::map<int64_t, std::string>> dims, bool verify, double rtol,
            double atol, bool external_data, bool optimize, std::vector<std::string> libraries,
            std::vector<std::string> functions, std::string fallback_domain, py::object log) {
  torch2onnx::ExportSettings s;
  s.opset = opset;
  s.input_names = std::move(input_names);
  s.output_names = std::move(output_names);
  s.dynamic_dims = std::move(dims);
  s.verify = verify;
  s.rtol = rtol;
  s.atol = atol;
  s.external_data = external_data;
  s.optimize = optimize;
  s.libraries = std::move(libraries);
  s.functions = std::move(functions);
  s.fallback_domain = std::move(fallback_domain);
  if (!log.is_none())
    s.log = [log](const std::string &line) {
      py::gil_scoped_acquire gil;
      log(line);
    };
  return s;
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
  // torch2onnx.Error carries the message; its `hint` attribute says what to do.
  static py::exception<torch2onnx::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const torch2onnx::Error &e) {
      py::object exc = py::handle(error.ptr())(e.what());
      exc.attr("hint") = e.hint();
      PyErr_SetObject(error.ptr(), exc.ptr());
    }
  });
  m.def(
      "export_module",
      [](py::object script_module, std::vector<at::Tensor> args, std::string output, int opset,
         std::vector<std::string> input_names, std::vector<std::string> output_names,
         std::map<std::string, std::map<int64_t, std::string>> dims, bool verify, double rtol,
         double atol, bool external_data, bool optimize, std::vector<std::string> libraries,
         std::vector<std::string> functions, std::string fallback_domain, py::object log) {
        auto module = torch::jit::as_module(script_module);
        if (!module)
          throw torch2onnx::Error("the model is not a torch.jit.ScriptModule",
                                  "trace or script it first, or pass an nn.Module to "
                                  "torch2onnx.export, which traces it");
        auto s =
            settings_of(opset, std::move(input_names), std::move(output_names), std::move(dims),
                        verify, rtol, atol, external_data, optimize, std::move(libraries),
                        std::move(functions), std::move(fallback_domain), std::move(log));
        torch2onnx::ExportResult r;
        {
          py::gil_scoped_release nogil;
          r = torch2onnx::export_module(*module, args, output, s);
        }
        return dict_of(r);
      },
      py::arg("module"), py::arg("args"), py::arg("output"), py::arg("opset"),
      py::arg("input_names"), py::arg("output_names"), py::arg("dynamic_dims"), py::arg("verify"),
      py::arg("rtol"), py::arg("atol"), py::arg("external_data"), py::arg("optimize"),
      py::arg("libraries"), py::arg("functions"), py::arg("fallback_domain"), py::arg("log"));
  m.def("version", &torch2onnx::version);
}
