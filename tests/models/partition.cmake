# Partitions every exported real architecture for the test targets and checks that the
# reference interpreter gives the same bits before and after (the export is shared with the
# models test and made only when missing or stale).
include(${SCRIPTS}/export.cmake)
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/check_partition.py ${UMA} ${OUT} ${OPSETS}
                        --plugin=${PLUGIN}
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "a partitioned model does not give the same outputs")
endif()
