# Exports the real architectures (unless an export from the same script is present) and
# checks uma's reference interpreter against torch on each.
include(${SCRIPTS}/export.cmake)
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/check_models.py ${UMA} ${OUT} RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "a model does not match torch")
endif()
