# Real architectures built for the in-tree backends (`uma run --target <backend> --check`):
# the convolutions the backend claims run on its kernels, the rest on the host, and the
# outputs must match the reference interpreter's (compare_scaled, by `uma run --check`) and
# torch's (check_models.py) by one rule, as the interpreter's must. MODELS lists the
# exported models to build (comma-separated), TARGET the backend (several joined by '+',
# earlier first: "vanilla+dnnl"; a target may carry attributes: "ultra_trail --fmem_kb=8");
# the export is shared with the models test. OFFLOADED, when set ("nn.conv1d:0.99"), is the
# least share of an op's MACs the first target must run in each model (check_offload.py, on
# the builds' partition reports).
include(${SCRIPTS}/export.cmake)
# A folder per target text: attributes make it no file name.
string(REGEX REPLACE "[^A-Za-z0-9_+]+" "-" folder "${TARGET}")
set(subset ${OUT}/../backend-models-${folder})
set(reports ${OUT}/../backend-reports-${folder})
file(REMOVE_RECURSE ${subset} ${reports})
file(MAKE_DIRECTORY ${subset} ${reports})
string(REPLACE "," ";" models "${MODELS}")
foreach(model ${models})
  file(CREATE_LINK ${OUT}/${model} ${subset}/${model} SYMBOLIC)
endforeach()
string(REPLACE "+" ";" targets "${TARGET}")
set(target_flags)
foreach(target ${targets})
  list(APPEND target_flags --target ${target})
endforeach()
execute_process(COMMAND ${PYTHON} ${SCRIPTS}/check_models.py ${UMA} ${subset} ${target_flags}
                        --check --cache-dir ${CACHE} --report-dir ${reports}
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "a model built for ${TARGET} does not match the reference")
endif()
if(OFFLOADED)
  string(REPLACE ":" ";" offloaded "${OFFLOADED}")
  list(GET offloaded 0 op)
  list(GET offloaded 1 share)
  # The report names a target by its kind, the first word of its text.
  list(GET targets 0 first)
  string(REGEX REPLACE " .*" "" kind "${first}")
  execute_process(COMMAND ${PYTHON} ${SCRIPTS}/check_offload.py ${reports} --target ${kind}
                          --op ${op} --min-share ${share}
                  RESULT_VARIABLE checked)
  if(NOT checked EQUAL 0)
    message(FATAL_ERROR "${TARGET} runs less than ${share} of the ${op} MACs of a model")
  endif()
endif()
