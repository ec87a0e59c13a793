# Packaging, included last: what the package depends on follows from what was built.
# A Debian package of the same installation under /usr (`cpack -G DEB` in the build folder;
# tests/install/deb_test.sh installs it in a fresh Debian 12 root). Its libraries' packages
# come from dpkg-shlibdeps; beside them, the C compiler the tool runs, and the headers that
# find_package(uma) and a plugin's build need.
set(CPACK_PACKAGE_NAME uma)
set(CPACK_PACKAGE_CONTACT "uma developers <uma@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "uma, a deep-learning compiler built around the Universal Modular Accelerator interface")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "gcc, libc6-dev, libfmt-dev, nlohmann-json3-dev, libprotobuf-dev, libonnx-dev, libssl-dev")
# The Python package, when built, runs on Debian's python3 and hands out numpy arrays.
if(TARGET _uma)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", python3, python3-numpy")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, cmake, pkg-config, graphviz")
# cpack installs what is built, without building the tests first: `ninja uma` is enough.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
include(CPack)
