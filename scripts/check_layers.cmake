# Each library includes only the headers of the libraries below it (see the dependency graph in
# CMakeLists.txt):
#   builder <- aten_lib <- exporter/core <- exporter/analysis <- exporter/frontend/torchscript
#     <- exporter (export, locate) <- apps
#   exporter/core <- exporter/frontend (input files) <- exporter/verify <- exporter/frontend/torchscript
#   builder <- exporter/options <- exporter/verify
#   exporter (export.h, export_module.h) <- api <- include/torch2onnx (public) <- python, examples
# The front-end seam (issue 27): exporter/core, exporter/analysis, exporter/verify, the files of
# exporter/frontend itself (source_graph.h, input files) and --locate never see a TorchScript
# graph (no <torch/csrc/jit/...> header, nothing from exporter/frontend/torchscript/); only
# export.cpp, which picks the front end, includes the TorchScript one.
# apps/ (the command line) sees the exporter through export.h, options.h, output_files.h, verify/
# (the runner) and the TorchScript reference program's header, never the front end's other
# files, the analyses or LibTorch's graph headers. The public headers include only each other,
# except plugin.h, which includes the converter interface (aten_lib/converter.h, installed beside
# it for plugins).
# A static library does not stop a wrong-way #include by itself, so the build runs this script
# (cmake -DSOURCE_DIR=... -P scripts/check_layers.cmake) and fails on the first violation.

# folder | glob | forbidden #include patterns (regular expressions)
set(rules
  "builder|*|\"(aten_lib|exporter|apps)/|<(torch|ATen|c10)/"
  "aten_lib|*|\"(exporter|apps)/|<(torch|ATen|c10)/"
  "exporter/core|*|\"exporter/(frontend|analysis|verify|options|export|locate)|\"apps/|<torch/csrc/jit/"
  "exporter/analysis|*|\"exporter/(frontend|verify|options|export|locate)|\"apps/|<torch/csrc/jit/"
  "exporter/frontend|*.*|\"exporter/frontend/torchscript/|\"exporter/(verify|options|export|locate)|\"apps/|<torch/csrc/jit/"
  "exporter/verify|*|\"exporter/(analysis|export|locate)|\"exporter/frontend/torchscript/|\"apps/|<torch/csrc/jit/"
  "exporter/frontend/torchscript|*|\"exporter/(options|export|locate|forward_args|output_files)|\"apps/"
  "exporter|locate.*|\"exporter/frontend/torchscript/|<torch/csrc/jit/|\"apps/"
  "exporter|options.*|\"(aten_lib|apps)/|\"exporter/(frontend|analysis|verify|export|core)|<(torch|ATen|c10)/"
  "exporter|*.*|\"apps/"
  "apps|*|\"exporter/(analysis|core)/|\"exporter/frontend/[^t]|\"exporter/frontend/torchscript/[^r]|\"exporter/(locate|forward_args|export_module)|<(ATen|c10)/|<torch/(csrc|script|torch)"
  "api|*|\"(apps|aten_lib)/|\"exporter/(frontend|analysis|verify|core)/|\"exporter/(locate|forward_args)"
  "include/torch2onnx|torch2onnx.h|\"(apps|api|aten_lib|builder|exporter)/"
  "include/torch2onnx|error.h|\"(apps|api|aten_lib|builder|exporter)/"
  "include/torch2onnx|settings.h|\"(apps|api|aten_lib|builder|exporter)/"
  "include/torch2onnx|plugin.h|\"(apps|api|builder|exporter)/|\"aten_lib/([^c]|c[^o]|co[^n])"
  "python|*|\"(apps|api|aten_lib|builder|exporter)/"
  "examples|*|\"(apps|api|aten_lib|builder|exporter)/")

set(failed "")
foreach(rule ${rules})
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 folder)
  list(GET parts 1 glob)
  list(SUBLIST parts 2 -1 forbidden)
  list(JOIN forbidden "|" forbidden)
  if(glob STREQUAL "*")
    file(GLOB_RECURSE files "${SOURCE_DIR}/${folder}/*.h" "${SOURCE_DIR}/${folder}/*.cpp")
  else()
    file(GLOB files "${SOURCE_DIR}/${folder}/${glob}")
  endif()
  foreach(f ${files})
    file(STRINGS "${f}" includes REGEX "^#include ")
    foreach(line ${includes})
      if(line MATCHES "^#include (${forbidden})")
        file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
        string(APPEND failed "\n  ${rel}: ${line} (${folder}/ may not include it)")
      endif()
    endforeach()
  endforeach()
endforeach()
if(failed)
  message(FATAL_ERROR "wrong-way #include:${failed}")
endif()
