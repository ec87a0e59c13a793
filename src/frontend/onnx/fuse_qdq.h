// Recognizing ONNX's QDQ form of quantized convolutions before conversion (fuse_qdq.cc).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "parse_model.h"
#include "uma/support/error.h"

namespace uma::onnx_import {

// Rewrites each Conv whose data and weight come from DequantizeLinear nodes and whose only
// use is a QuantizeLinear, as ONNX's quantization tools write an int8 convolution, into the
// QLinearConv it means, in place of the Conv (the QuantizeLinear goes; DequantizeLinear
// nodes nothing else uses become dead). So the convolution sums 8-bit values in i32 and
// reaches backends as one integer convolution with its scales and zero points, instead of a
// float convolution of dequantized values.
//
// It fuses only what QLinearConv can say: scales and zero points that are initializers,
// per tensor for the data and the result and per tensor or per output channel (axis 0) for
// the weight; a bias, if any, dequantized from i32 with zero point 0 and scale x_scale *
// w_scale. Anything else stays as it is, and converts as the float ops it is.
// `data` holds the raw_data of initializers that parse_model left out of their protos.
Status fuse_qdq_convolutions(onnx::GraphProto& graph, const InitializerData& data,
                             const std::string& model_dir);

}  // namespace uma::onnx_import
