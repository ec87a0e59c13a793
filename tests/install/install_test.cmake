# The installation test (the fixture of the new-backend test): installs the build into a fresh prefix, builds a plugin against it
# from a clean folder (CMakeLists.txt beside this file), and runs a model on that plugin with
# the installed tool, checked against the reference interpreter.
#   cmake -DBUILD=<uma build> -DOUT=<scratch folder> -DSOURCE=<uma source> -P install_test.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

file(REMOVE_RECURSE ${OUT})
set(prefix ${OUT}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SOURCE}/tests/install -B ${OUT}/plugin -G Ninja
    -DCMAKE_PREFIX_PATH=${prefix} -DPLUGIN_SOURCE=${SOURCE}/tests/plugins/relu_plugin.cc)
run(${CMAKE_COMMAND} --build ${OUT}/plugin)
foreach(plugin relu_cmake relu_pkgconfig)
  run(${prefix}/bin/uma run ${SOURCE}/tests/lit/tool/run-target.uma
      --plugin ${OUT}/plugin/lib${plugin}.so --target plugged --target vanilla --check
      --cache-dir ${OUT}/cache)
endforeach()
