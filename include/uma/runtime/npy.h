// numpy's .npy files: reading and writing host tensors.
//
// Format versions 1.0, 2.0 and 3.0, little- and big-endian data, C (row-major) order only.
// numpy has no bfloat16: bf16 tensors are written as 2-byte void ('<V2'), which is how
// numpy saves arrays of ml_dtypes' bfloat16 (load them with `.view(ml_dtypes.bfloat16)`),
// and '<V2' is read back as bf16.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "uma/graph/tensor.h"
#include "uma/support/error.h"

namespace uma {

// Parses the bytes of a .npy file. `name` starts every error message ("name: ...").
Expected<std::shared_ptr<Tensor>> parse_npy(std::string_view bytes, std::string_view name);
// The bytes of a .npy file holding `tensor` (version 1.0, or 2.0 when the header needs it;
// little-endian). The tensor must have data.
std::string serialize_npy(const Tensor& tensor);

Expected<std::shared_ptr<Tensor>> read_npy_file(const std::string& path);
Status write_npy_file(const std::string& path, const Tensor& tensor);

}  // namespace uma
