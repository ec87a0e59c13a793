# Real architectures built for the in-tree backends (`uma run --target <backend> --check`):
# the convolutions the backend claims run on its kernels, the rest on the host, and the
# outputs must match the reference interpreter's (compare_scaled, by `uma run --check`) and
# torch's (check_models.py) by one rule, as the interpreter's must. MODELS lists the
# exported models to build (comma-separated), TARGET the backend (several joined by '+',
# earlier first: "vanilla+dnnl"; each may carry attributes: "vanilla --sram_kb=64"); the
# export is shared with the models test.
include(${SCRIPTS}/export.cmake)
# The folder's name: the target's, with what a path had better not hold (a target's spaces,
# its attributes' '=') made '_'.
string(REGEX REPLACE "[^A-Za-z0-9_+.-]" "_" folder "${TARGET}")
set(subset ${OUT}/../backend-models-${folder})
file(REMOVE_RECURSE ${subset})
file(MAKE_DIRECTORY ${subset})
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
                        --check --cache-dir ${CACHE}
                RESULT_VARIABLE checked)
if(NOT checked EQUAL 0)
  message(FATAL_ERROR "a model built for ${TARGET} does not match the reference")
endif()
