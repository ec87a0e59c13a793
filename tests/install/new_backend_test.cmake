# The new-backend test: the installed tool (the install test's prefix) writes a backend's
# project, which builds against the installed uma from a clean folder and passes its test.
#   cmake -DOUT=<the install test's scratch folder> -P new_backend_test.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

set(prefix ${OUT}/prefix)
set(project ${OUT}/new-backend/my_npu)
file(REMOVE_RECURSE ${OUT}/new-backend)
file(MAKE_DIRECTORY ${OUT}/new-backend)
run(${prefix}/bin/uma new-backend "My NPU" -o ${project})
run(${CMAKE_COMMAND} -S ${project} -B ${project}/build -G Ninja -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${project}/build)
run(${CMAKE_CTEST_COMMAND} --test-dir ${project}/build --output-on-failure)
