// uma's tensors and numpy arrays: dtypes both ways, and copies of tensors both ways.
#pragma once

#include <pybind11/numpy.h>

#include <memory>
#include <string_view>

#include "bindings.h"
#include "uma/graph/tensor.h"

namespace uma::python {

// The numpy dtype of `dtype`; bf16, which numpy lacks, is an error naming `what`.
py::dtype numpy_dtype(DType dtype, std::string_view what);
// A copy of the tensor as a new array.
py::array tensor_to_numpy(const Tensor& tensor);
// A copy of an array (or anything numpy.asarray takes) as a tensor; an error names `what`
// when numpy's dtype has no uma dtype.
std::shared_ptr<Tensor> tensor_from_numpy(py::handle value, std::string_view what);
// The array `value` as the dtype and shape of `type`, without a copy when it is one already
// and C-contiguous; else an error naming `what` (a wrong dtype or shape is never converted).
py::array checked_array(py::handle value, const TensorType& type, std::string_view what);

}  // namespace uma::python
