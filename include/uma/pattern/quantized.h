// Patterns of the quantized ops as the ONNX importer writes them, for backends that run
// integer arithmetic (an int8 accelerator claims them as one composite each).
#pragma once

#include <string>

#include "uma/pattern/pattern.h"

namespace uma {

// An integer convolution with its scales and zero points: QLinearConv, and the QDQ
// convolutions (DequantizeLinear -> Conv -> QuantizeLinear) the importer fuses into it.
//
//   cast(clip(add?(round(multiply(cast(conv(subtract?(cast(data), const),
//                                           const, const?)), const)), const)))
//
// `conv` is an i32 nn.conv1d/2d/3d (`conv_op`) of the data less its zero point and a
// constant weight less its zero points (one per output channel), with an optional i32 bias;
// the multiply's constant is x_scale * w_scale / y_scale (per output channel), the add's y's
// zero point, and the last cast gives the u8 or i8 result. The subtract and the add are
// absent when the zero point is 0 and the importer left it out. The first cast's operand
// (the quantized data, u8 or i8) is the composite's one input.
PatternPtr quantized_conv(const std::string& conv_op = "nn.conv2d");

}  // namespace uma
