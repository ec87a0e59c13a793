# `uma sim` on ResNet-18 and MobileNetV2 (exported by the models test into MODELS) for TARGET:
# the run must count, layer by layer, the events the performance model estimates (uma sim
# fails otherwise), and print the totals.
foreach(model resnet18_op17 mobilenet_v2_op17)
  execute_process(COMMAND ${UMA} sim ${MODELS}/${model}/model.onnx --target ${TARGET}
                          --cache-dir ${CACHE}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${model}:\n${out}${err}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "uma sim ${model} --target '${TARGET}' failed")
  endif()
  if(NOT out MATCHES "accelerator: .* cycles = ")
    message(FATAL_ERROR "uma sim ${model} printed no totals")
  endif()
endforeach()
