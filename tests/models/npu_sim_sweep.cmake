# examples/npu_sim/sweep.py --quick: ResNet-18 on npu_sim at 16x16 and 32x32 (ws, 64 KiB
# memories). sweep.csv must have the header and one row per design, the larger array taking
# fewer cycles; sweep.svg one mark per design, titled with the design and the CSV's cycles.
include(${SCRIPTS}/export.cmake)
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${PYTHON} ${SWEEP} --quick --models resnet18 --jobs 1 --out ${WORK}
                        --uma ${UMA} --models-dir ${OUT} --cache-dir ${CACHE}
                RESULT_VARIABLE swept)
if(NOT swept EQUAL 0)
  message(FATAL_ERROR "sweep.py --quick failed")
endif()

file(STRINGS ${WORK}/sweep.csv lines)
set(header "model,rows,cols,dataflow,memory_kb,layers,cycles,compute_cycles,dma_cycles,\
stall_cycles,utilisation,dram_bytes,energy_uj,ms,host_macs")
list(LENGTH lines count)
list(GET lines 0 first)
if(NOT count EQUAL 3 OR NOT first STREQUAL header)
  message(FATAL_ERROR "sweep.csv has ${count} line(s), the header '${first}':\n${lines}")
endif()
file(READ ${WORK}/sweep.svg svg)
string(REGEX MATCHALL "class=\"design\"" marks "${svg}")
list(LENGTH marks drawn)
if(NOT svg MATCHES "^<svg " OR NOT drawn EQUAL 2)
  message(FATAL_ERROR "sweep.svg draws ${drawn} design(s), not 2")
endif()
set(index 1)
foreach(side 16 32)
  list(GET lines ${index} row)
  math(EXPR index "${index} + 1")
  # model,rows,cols,dataflow,memory_kb,layers,cycles,...,host_macs: layers on the array, no
  # MACs left on the host.
  if(NOT row MATCHES "^resnet18,${side},${side},ws,64,([1-9][0-9]*),([1-9][0-9]*),.*,0$")
    message(FATAL_ERROR "sweep.csv's row of ${side}x${side}: ${row}")
  endif()
  set(cycles_${side} ${CMAKE_MATCH_2})
  if(NOT svg MATCHES "<title>resnet18: ${side}x${side} ws 64 KiB: ${cycles_${side}} cycles, ")
    message(FATAL_ERROR "sweep.svg has no mark of ${side}x${side} with ${cycles_${side}} cycles")
  endif()
endforeach()
if(NOT cycles_32 LESS cycles_16)
  message(FATAL_ERROR "32x32 takes ${cycles_32} cycles, 16x16 ${cycles_16}")
endif()
