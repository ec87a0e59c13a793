// STUB: to be written.
#include "converter.h"

namespace uma::onnx_import {

void register_reduce_converters(ConverterTable&) {}

}  // namespace uma::onnx_import
