// The types of an ONNX graph's inputs, with symbolic dimensions resolved from the shapes a
// user gives (--input-shape).
#pragma once

#include <onnx/onnx_pb.h>

#include "uma/graph/type.h"

namespace uma::onnx_import {

// The tensor type of graph input `input`. `given` (may be null) is the user's shape for
// it: it fills symbolic and unknown dimensions, and must agree with the fixed ones.
Expected<TensorType> input_type(const onnx::ValueInfoProto& input, const Shape* given);

}  // namespace uma::onnx_import
