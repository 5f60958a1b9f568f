# `make package` (cpack -G DEB): torch2onnx_<version>_<arch>.deb for Debian bookworm, holding what
# `cmake --install` installs under /usr: the CLI (bin/torch2onnx, lib/torch2onnx/
# libtorch2onnx-cli.so), --verify's reference program (libexec/torch2onnx/) and ONNX Runtime runner
# (share/torch2onnx/onnxruntime, node_modules included), the C++ library, headers and CMake package,
# and the Python module. `apt install ./torch2onnx_*.deb` pulls in the Debian packages below.
# Tested by ctest package:deb (tests/package/test_package.sh).
# What is installed, built by `make package` before cpack runs: the package target itself does not
# build `all` (the test executables are not in the package).
add_custom_target(t2o_installed)
add_dependencies(t2o_installed torch2onnx t2o_cli torch2onnx-reference t2o_api)
if(T2O_BUILD_PYTHON)
  add_dependencies(t2o_installed t2o_python)
endif()
set(CMAKE_SKIP_PACKAGE_ALL_DEPENDENCY ON)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME torch2onnx)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Convert TorchScript models to ONNX in C++ and verify them in ONNX Runtime")
set(CPACK_PACKAGE_DESCRIPTION
    "torch2onnx converts models saved with torch.jit.trace/script into ONNX files for a\n\
chosen opset, without Python, and with --verify compares ONNX Runtime's outputs with\n\
LibTorch's. The package has the torch2onnx command, its C++ library, headers and CMake\n\
package (find_package(torch2onnx)), the Python module and the pinned ONNX Runtime\n\
(onnxruntime-node) that --verify runs.")
set(CPACK_PACKAGE_CONTACT "torch2onnx maintainers <torch2onnx@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # torch2onnx_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/torch2onnx/torch2onnx")
# The Debian packages of the shared libraries the programs and libraries load (found with dpkg -S
# on what they link; tests/package/test_package.sh checks every library they need is in one of
# them), node for the ONNX Runtime runner, and the Python the module is built for.
set(T2O_DEB_DEPENDS
    "libc6 (>= 2.34)" "libstdc++6 (>= 12)" "libgcc-s1" "libtorch1.13" "libprotobuf32" "libonnx1"
    "libfmt9" "libyaml-cpp0.7" "zlib1g" "nodejs (>= 16)" "python3 (>= 3.11~)" "python3 (<< 3.12)")
string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${T2O_DEB_DEPENDS}")
# The Python module imports torch; OpenBLAS runs LibTorch's reference about 2x faster.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-torch, libopenblas0-pthread")
# Building against the headers (find_package(torch2onnx), converter plugins) needs these.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libtorch-dev, libfmt-dev, cmake")
# libtorch2onnx.so: a shlibs file and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
