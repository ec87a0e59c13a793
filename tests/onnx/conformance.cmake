# ctest's onnx-conformance: generate ONNX's node tests into the build folder, then run them,
# interpreted and compiled for the host.
# Variables: PYTHON, GENERATOR (generate_node_tests.py), OUT, RUNNER, KNOWN, KNOWN_COMPILED,
# EXCLUDED (the tests left out of the count),
# CACHE (the folder of compiled C objects, kept between runs), EXTRA (more runner arguments,
# separated by '|': "--target|dnnl|--filter|test_conv").
execute_process(COMMAND ${PYTHON} ${GENERATOR} ${OUT} RESULT_VARIABLE generated
                OUTPUT_QUIET ERROR_VARIABLE generator_errors)
if(NOT generated EQUAL 0)
  message(FATAL_ERROR "generating ONNX's node tests failed:\n${generator_errors}")
endif()
string(REPLACE "|" ";" extra "${EXTRA}")
execute_process(COMMAND ${RUNNER} ${OUT}/node ${KNOWN} --excluded ${EXCLUDED}
                        --compiled --cache-dir ${CACHE}
                        --known-compiled-failures ${KNOWN_COMPILED} ${extra}
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "ONNX conformance: unexpected results (see above)")
endif()
