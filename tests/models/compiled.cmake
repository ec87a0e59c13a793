# Builds every exported real architecture for the host (`uma run --compiled --check`): the
# compiled outputs must match the reference interpreter's within 1e-4 of their largest
# magnitude, and torch's like the interpreter's. The export is shared with the models test;
# compiled objects are cached in CACHE, so a rerun compiles only what changed.
include(${SCRIPTS}/export.cmake)
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/check_models.py ${UMA} ${OUT} --compiled --check
                        --cache-dir ${CACHE}
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "a compiled model does not match the reference")
endif()
