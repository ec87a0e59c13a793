# ctest's kit-node-tests: `uma test-backend --node-tests` runs ONNX's node tests whose nodes a
# backend claims, through the backend, against the reference interpreter, and counts them in
# its scorecard. The node tests are those of onnx-conformance (generated here when that test
# has not left them). Variables: PYTHON, GENERATOR, OUT, UMA, CACHE, TARGETS (comma-separated),
# PLUGIN (loaded for its backends).
if(NOT EXISTS ${OUT}/node)
  execute_process(COMMAND ${PYTHON} ${GENERATOR} ${OUT} RESULT_VARIABLE generated
                  OUTPUT_QUIET ERROR_VARIABLE generator_errors)
  if(NOT generated EQUAL 0)
    message(FATAL_ERROR "generating ONNX's node tests failed:\n${generator_errors}")
  endif()
endif()
string(REPLACE "," ";" targets "${TARGETS}")
foreach(target ${targets})
  execute_process(COMMAND ${UMA} test-backend --plugin ${PLUGIN} --target ${target}
                          --node-tests ${OUT}/node
                          --cache-dir ${CACHE} --json ${OUT}/../kit-${target}.json
                  OUTPUT_VARIABLE card)
  message("${card}")
  # The node tests' line alone: the patterns' models have their own test (test-backend.test),
  # and the host's f16 abort fails one of dnnl's there. A kit that ran no node test would pass
  # without checking what this test is for.
  if(NOT card MATCHES "node tests: ([1-9][0-9]*) of [0-9]+ claimed by ${target}; ([0-9]+) passed, 0 failed")
    message(FATAL_ERROR "the kit ran no ONNX node test on ${target}, or one failed (see above)")
  endif()
endforeach()
