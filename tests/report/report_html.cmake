# ResNet-50 built for vanilla by `uma compile`, and its report.html loaded in headless Chromium
# (check_report_html.py): a large model's page loads without console errors, draws its graph
# with clickable nodes, and stays small and quick. Then TILED_MODEL, two conv1d layers built
# for ultra_trail with a feature memory they do not fit whole: the page shows each layer's
# tiles with report.json's numbers and draws each memory's bar to its peak's share. Then
# npu-sim-layers.uma (beside this file), a small CNN built for npu_sim, its first layer's name
# holding HTML's special characters and a byte that is not UTF-8: the page shows each layer's
# simulated cycles with report.json's estimates, names escaped, bars to scale. Chromium
# is a test dependency (scripts/setup.sh installs it): without it the test fails, it is not
# skipped.
include(${SCRIPTS}/export.cmake)
find_program(chromium NAMES chromium chromium-browser)
if(NOT chromium)
  message(FATAL_ERROR "chromium is not installed (scripts/setup.sh installs it): report.html "
                      "cannot be checked")
endif()
set(report ${WORK}/resnet50_op17)
file(REMOVE_RECURSE ${report})
execute_process(COMMAND ${UMA} compile ${OUT}/resnet50_op17/model.onnx --target vanilla
                        -o ${report} --cache-dir ${CACHE}
                OUTPUT_QUIET RESULT_VARIABLE compiled)
if(NOT compiled EQUAL 0)
  message(FATAL_ERROR "uma compile of resnet50_op17 failed")
endif()
execute_process(COMMAND ${PYTHON} ${CHECK} ${chromium} ${report} --max-bytes 2000000
                        --max-ms 5000
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "report.html of resnet50_op17 fails in chromium")
endif()

set(report ${WORK}/conv1d_tiles)
file(REMOVE_RECURSE ${report})
execute_process(COMMAND ${UMA} compile ${TILED_MODEL} --target "ultra_trail --fmem_kb=4"
                        -o ${report} --cache-dir ${CACHE}
                OUTPUT_QUIET RESULT_VARIABLE compiled)
if(NOT compiled EQUAL 0)
  message(FATAL_ERROR "uma compile of ${TILED_MODEL} for ultra_trail failed")
endif()
execute_process(COMMAND ${PYTHON} ${CHECK} ${chromium} ${report} --tilings
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "report.html of ${TILED_MODEL} fails in chromium")
endif()

set(report ${WORK}/npu_sim_cycles)
file(REMOVE_RECURSE ${report})
execute_process(COMMAND ${UMA} compile ${CMAKE_CURRENT_LIST_DIR}/npu-sim-layers.uma
                        --target "npu_sim --ifmap_kb=1" -o ${report} --cache-dir ${CACHE}
                OUTPUT_QUIET RESULT_VARIABLE compiled)
if(NOT compiled EQUAL 0)
  message(FATAL_ERROR "uma compile of npu-sim-layers.uma for npu_sim failed")
endif()
execute_process(COMMAND ${PYTHON} ${CHECK} ${chromium} ${report} --tilings --estimates
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "report.html of npu-sim-layers.uma fails in chromium")
endif()
