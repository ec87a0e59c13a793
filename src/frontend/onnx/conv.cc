// STUB: to be written.
#include "converter.h"

namespace uma::onnx_import {

void register_conv_converters(ConverterTable&) {}

}  // namespace uma::onnx_import
