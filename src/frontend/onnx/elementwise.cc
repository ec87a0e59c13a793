// STUB: to be written.
#include "converter.h"

namespace uma::onnx_import {

void register_elementwise_converters(ConverterTable&) {}

}  // namespace uma::onnx_import
