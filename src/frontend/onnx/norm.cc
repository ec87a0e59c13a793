// STUB: to be written.
#include "converter.h"

namespace uma::onnx_import {

void register_norm_converters(ConverterTable&) {}

}  // namespace uma::onnx_import
