# Build time (issue 31; numbers in docs/building.md). Parsing LibTorch's headers costs about 5 s of
# CPU per translation unit, CLI11's about 5 s, and the converter families spend as much time on
# the headers and templates they share as on their own code. So:
#  - precompiled headers, one per group of targets compiled with the same flags (a precompiled
#    header is refused by GCC when -fPIC/-fPIE or a -D it was made with differ): LibTorch for the
#    exporter's libraries, CLI11 and nlohmann-json for the command line, LibTorch and Catch2 for
#    the test executables, ONNX's protobuf classes for the builder;
#  - unity translation units (one file including several .cpp files): the converter families
#    (aten_lib/) in batches of 8 (40% less CPU than one unit per file, where a precompiled header
#    saved 15%), and the exporter's files in groups that share no file-local name (about half the
#    CPU: the LibTorch templates they use are instantiated and optimized once per group).
#    A file that gains a helper named like one of its group's gets "redefinition of ...": rename
#    it, or take the file out of its group (T2O_UNITY_ALONE, t2o_unity_group below). Working on
#    converters, -DT2O_UNITY_BUILD=OFF recompiles one file per change instead of its batch.
#  - the command line's front end (apps/: flags, reports, zoo orchestration, show) and the test
#    executables' own code at -O1: CLI11, nlohmann-json and Catch2 are header-only, and -O3
#    spent 40% more CPU on them for code whose speed nobody notices. The converters (aten_lib/:
#    each runs once per node and builds a few protobuf messages) at -O2, 30% less CPU than -O3.
#    The rest of the exporter's libraries keep the build type's flags (-O3 in Release).
# ccache keeps working: it caches the precompiled headers too (it needs the sloppiness below).
option(T2O_PCH "Precompiled headers for LibTorch, CLI11, Catch2 and ONNX (docs/building.md)" ON)
option(T2O_UNITY_BUILD "Compile the converter families (aten_lib/) as a few unity files" ON)
# Converter files whose file-local names clash with another family's (a helper or a struct of the
# same name in an anonymous namespace): compiled on their own.
set(T2O_UNITY_ALONE aten_lib/math.cpp aten_lib/number.cpp aten_lib/pooling.cpp)
set(T2O_UNITY_BATCH 8 CACHE STRING "aten_lib/ files per unity translation unit")

# -O1 for the front end and the tests, -O2 for the converters, in the optimized build types only
# (Debug stays -O0; the sanitizer build's -O1 is not raised).
set(T2O_OPTIMIZED $<AND:$<OR:$<CONFIG:Release>,$<CONFIG:RelWithDebInfo>>,$<NOT:$<BOOL:${T2O_SANITIZE}>>>)
set(T2O_FRONT_END_OPT $<${T2O_OPTIMIZED}:-O1>)
set(T2O_CONVERTER_OPT $<${T2O_OPTIMIZED}:-O2>)

set(T2O_PCH_STD <algorithm> <functional> <map> <memory> <optional> <set> <string>
                <unordered_map> <vector> <fmt/format.h>)
set(T2O_PCH_TORCH <ATen/ATen.h> <torch/csrc/jit/ir/ir.h> <torch/csrc/jit/api/module.h>)

# ccache hashes a precompiled header it sees used; it needs sloppiness pch_defines and
# time_macros for that. Added to the user's setting (through the environment) when missing.
function(t2o_ccache_for_pch)
  if(NOT T2O_PCH OR NOT T2O_CCACHE OR NOT CMAKE_CXX_COMPILER_LAUNCHER STREQUAL T2O_CCACHE)
    return()
  endif()
  execute_process(COMMAND ${T2O_CCACHE} --get-config sloppiness OUTPUT_VARIABLE sloppy
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    return()
  endif()
  set(need "")
  foreach(word pch_defines time_macros)
    if(NOT sloppy MATCHES "${word}")
      list(APPEND need ${word})
    endif()
  endforeach()
  if(need)
    string(REPLACE ";" "," need "${need}")
    set(value "${need}")
    if(sloppy)
      set(value "${sloppy},${need}")
    endif()
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=${value} ${T2O_CCACHE}
        PARENT_SCOPE)
  endif()
endfunction()

# Files of `target` compiled as one unity file named `group`; its other files stay on their own.
function(t2o_unity_group target group)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  list(TRANSFORM ARGN PREPEND ${PROJECT_SOURCE_DIR}/ OUTPUT_VARIABLE files)
  set_source_files_properties(${files} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP ${group})
endfunction()

# The library targets (called after they are defined).
function(t2o_speed_up_libraries)
  target_compile_options(t2o_aten PRIVATE ${T2O_CONVERTER_OPT})
  if(T2O_UNITY_BUILD)
    set_target_properties(t2o_aten PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${T2O_UNITY_BATCH})
    list(TRANSFORM T2O_UNITY_ALONE PREPEND ${PROJECT_SOURCE_DIR}/)
    set_source_files_properties(${T2O_UNITY_ALONE} TARGET_DIRECTORY t2o_aten
                                PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    # zip_reader.cpp (exporter/frontend) and reference.cpp (exporter/frontend/torchscript) share
    # helper names with others: on their own.
    set(ts exporter/frontend/torchscript)
    t2o_unity_group(t2o_frontend load ${ts}/archive_check.cpp ${ts}/bind_inputs.cpp ${ts}/loader.cpp
                    ${ts}/mapped_load.cpp ${ts}/pickle_tensors.cpp ${ts}/recorder.cpp
                    ${ts}/jit_util.cpp)
    t2o_unity_group(t2o_frontend walk ${ts}/walker.cpp ${ts}/walker_values.cpp ${ts}/walker_prim.cpp
                    ${ts}/walker_lists.cpp ${ts}/walker_control_flow.cpp)
    t2o_unity_group(t2o_frontend convert ${ts}/convert.cpp ${ts}/record_graph.cpp
                    ${ts}/baked_dims.cpp ${ts}/source_graph.cpp)
    t2o_unity_group(t2o_core all exporter/core/tensor_util.cpp exporter/core/records.cpp
                    exporter/core/converted.cpp)
    t2o_unity_group(t2o_inputs all exporter/frontend/input_data.cpp
                    exporter/frontend/pickle_check.cpp)
    t2o_unity_group(t2o_exporter all exporter/forward_args.cpp exporter/export.cpp
                    exporter/output_files.cpp exporter/locate.cpp)
  endif()
  target_compile_options(t2o_cli PRIVATE ${T2O_FRONT_END_OPT})
  if(NOT T2O_PCH)
    return()
  endif()
  target_precompile_headers(t2o_builder PRIVATE ${T2O_PCH_STD} <onnx/onnx_pb.h>)
  # The exporter's libraries: one header, made for t2o_core, the lowest of them (their flags
  # agree; the others only add -D's the header does not use).
  target_precompile_headers(t2o_core PRIVATE ${T2O_PCH_STD} ${T2O_PCH_TORCH})
  foreach(t t2o_analysis t2o_inputs t2o_verify t2o_frontend t2o_exporter t2o_api)
    target_precompile_headers(${t} REUSE_FROM t2o_core)
  endforeach()
  target_precompile_headers(t2o_cli PRIVATE ${T2O_PCH_STD} <CLI/CLI.hpp> <nlohmann/json.hpp>)
endfunction()

# The test executables (tests/CMakeLists.txt): one header, made for the first; the others reuse
# it. Executables are -fPIE, libraries -fPIC: they cannot share one.
function(t2o_speed_up_tests)
  foreach(t t2o_testlib ${ARGN})
    target_compile_options(${t} PRIVATE ${T2O_FRONT_END_OPT})
  endforeach()
  if(NOT T2O_PCH)
    return()
  endif()
  set(donor "")
  foreach(t ${ARGN})
    if(NOT donor)
      set(donor ${t})
      target_precompile_headers(${t} PRIVATE ${T2O_PCH_STD} ${T2O_PCH_TORCH} <catch2/catch.hpp>)
    else()
      target_precompile_headers(${t} REUSE_FROM ${donor})
    endif()
  endforeach()
endfunction()
