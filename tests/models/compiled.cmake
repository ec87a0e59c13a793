# Builds every exported real architecture for the host (`uma run --compiled --check`): the
# compiled outputs must match the reference interpreter's and torch's by one rule (1e-4
# relative plus 1e-5 of the largest magnitude: compare_scaled for `uma run --check`,
# check_models.py for torch, as the interpreter's must). The export is shared with the models test;
# compiled objects are cached in CACHE, so a rerun compiles only what changed.
include(${SCRIPTS}/export.cmake)
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/check_models.py ${UMA} ${OUT} --compiled --check
                        --cache-dir ${CACHE}
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "a compiled model does not match the reference")
endif()
