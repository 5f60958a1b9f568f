# Each library includes only the headers of the libraries below it (see the dependency graph in
# CMakeLists.txt):
#   builder <- aten_lib <- exporter/frontend <- exporter/analysis <- exporter (pipeline) <- apps
#   builder <- exporter/options <- exporter/verify (also uses frontend/torch_util.h) <- exporter
#   exporter (export.h, export_module.h) <- api <- include/torch2onnx (public) <- python, examples
# apps/ (the command line) sees the exporter through export.h, options.h, output_files.h and
# verify/ (the reference and the runner), never the front end, the analyses or LibTorch's
# graph headers. The public headers include only each other, except plugin.h, which includes the
# converter interface (aten_lib/converter.h, installed beside it for plugins).
# A static library does not stop a wrong-way #include by itself, so the build runs this script
# (cmake -DSOURCE_DIR=... -P scripts/check_layers.cmake) and fails on the first violation.

# folder | glob | forbidden #include patterns (regular expressions)
set(rules
  "builder|*|\"(aten_lib|exporter|apps)/|<(torch|ATen|c10)/"
  "aten_lib|*|\"(exporter|apps)/|<(torch|ATen|c10)/"
  "exporter/frontend|*|\"exporter/(analysis|verify|options|export|pipeline)|\"apps/"
  "exporter/analysis|*|\"exporter/(verify|options|export|pipeline)|\"apps/"
  "exporter/verify|*|\"exporter/(analysis|export|pipeline)|\"exporter/frontend/(walker|recorder|loader)|\"apps/"
  "exporter|options.*|\"(aten_lib|apps)/|\"exporter/(frontend|analysis|verify|export|pipeline)|<(torch|ATen|c10)/"
  "exporter|*.*|\"apps/"
  "apps|*|\"exporter/(frontend|analysis)/|\"exporter/(pipeline|locate|forward_args|export_module)|<(ATen|c10)/|<torch/(csrc|script|torch)"
  "api|*|\"(apps|aten_lib)/|\"exporter/(frontend|analysis|verify)/|\"exporter/(pipeline|locate|forward_args)"
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
