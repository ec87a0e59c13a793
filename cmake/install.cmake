# Installation (`cmake --install build --prefix P`): the public headers, the compiler library
# (uma_core), the tool, a CMake package (find_package(uma)) and a pkg-config file (uma.pc).
# A backend plugin needs only the headers and fmt: it links none of the compiler and resolves
# uma's functions against the tool that loads it (uma/uma/plugin.h).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# What a plugin builds against: the headers, and fmt, which they include.
add_library(uma_plugin_api INTERFACE)
target_include_directories(uma_plugin_api INTERFACE
                           $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(uma_plugin_api INTERFACE fmt::fmt)
target_compile_features(uma_plugin_api INTERFACE cxx_std_20)
set_target_properties(uma_plugin_api PROPERTIES EXPORT_NAME plugin)
target_include_directories(uma_core INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(uma_core PROPERTIES EXPORT_NAME core)

install(DIRECTORY include/uma TYPE INCLUDE)
install(TARGETS uma_core uma_plugin_api uma EXPORT uma-targets)
set(uma_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/uma)
install(EXPORT uma-targets NAMESPACE uma:: FILE umaTargets.cmake DESTINATION ${uma_cmake_dir})
configure_package_config_file(cmake/umaConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/umaConfig.cmake
                              INSTALL_DESTINATION ${uma_cmake_dir})
# The plugin API version (uma/uma/plugin.h) is what must match; the package's version tells
# releases apart.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/umaConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/umaConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/umaConfigVersion.cmake
        DESTINATION ${uma_cmake_dir})

# pkg-config finds the prefix from the file's own place, so an installed tree can move.
file(RELATIVE_PATH uma_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
configure_file(cmake/uma.pc.in ${CMAKE_CURRENT_BINARY_DIR}/uma.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/uma.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
