// Tensors as numpy arrays, and uma.interpret, the reference interpreter on numpy inputs.
#include "numpy_tensor.h"

#include <pybind11/stl.h>

#include <fmt/ranges.h>

#include <bit>
#include <cstring>

#include "handles.h"
#include "uma/graph/verifier.h"
#include "uma/runtime/interpreter.h"

namespace uma::python {
namespace {

// numpy's type characters of uma's dtypes; bf16 has none.
const char* numpy_name(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "float32";
    case DType::f16:
      return "float16";
    case DType::f64:
      return "float64";
    case DType::i8:
      return "int8";
    case DType::i16:
      return "int16";
    case DType::i32:
      return "int32";
    case DType::i64:
      return "int64";
    case DType::u8:
      return "uint8";
    case DType::u16:
      return "uint16";
    case DType::u32:
      return "uint32";
    case DType::u64:
      return "uint64";
    case DType::boolean:
      return "bool";
    case DType::bf16:
      return nullptr;
  }
  return nullptr;
}

std::optional<DType> uma_dtype(const py::dtype& dtype) {
#define UMA_PYTHON_DTYPE(e, name, type, bytes, kind)                                            \
  if (const char* numpy = numpy_name(DType::e); numpy != nullptr && dtype.is(py::dtype(numpy))) \
    return DType::e;
  UMA_FOR_EACH_DTYPE(UMA_PYTHON_DTYPE)
#undef UMA_PYTHON_DTYPE
  return std::nullopt;
}

// numpy's name of a dtype, and its byte order when it is not the machine's: ">f4" is "float32
// in big-endian byte order", not the float32 a model takes.
std::string numpy_text(const py::dtype& dtype) {
  std::string name = dtype.attr("name").cast<std::string>();
  char order = dtype.attr("byteorder").cast<std::string>().at(0);
  if (order == '=' || order == '|') return name;
  return fmt::format("{} in {} byte order", name, order == '>' ? "big-endian" : "little-endian");
}

// What converts an array of another byte order, for messages: empty for the machine's.
std::string byte_order_hint(const py::dtype& dtype) {
  char order = dtype.attr("byteorder").cast<std::string>().at(0);
  if (order == '=' || order == '|') return "";
  return fmt::format("; uma takes the machine's byte order ({}): astype('{}') converts the array",
                     std::endian::native == std::endian::little ? "little-endian" : "big-endian",
                     dtype.attr("name").cast<std::string>());
}

// The arguments of a function as tensors: positional in parameter order, or by name.
std::vector<TensorPtr> arguments(const Function& function, const py::args& args,
                                 const py::kwargs& kwargs) {
  std::vector<Value*> params = function.params();
  if (args.size() + kwargs.size() != params.size())
    raise(make_error("@{} takes {} input(s), not {}", function.name(), params.size(),
                     args.size() + kwargs.size()));
  std::vector<TensorPtr> tensors;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Value& param = *params[i];
    std::string what = fmt::format("@{} input '{}'", function.name(), param.name());
    if (!param.type().is_tensor()) raise(make_error("{} is a tuple", what));
    py::object value;
    if (i < args.size()) {
      value = args[i];
    } else if (kwargs.contains(param.name())) {
      value = kwargs[py::str(param.name())];
    } else {
      raise(make_error("{} is not given", what));
    }
    checked_array(value, param.tensor_type(), what);
    tensors.push_back(tensor_from_numpy(value, what));
  }
  return tensors;
}

}  // namespace

py::dtype numpy_dtype(DType dtype, std::string_view what) {
  const char* name = numpy_name(dtype);
  if (name == nullptr) raise(make_error("{}: numpy has no dtype {}", what, dtype_name(dtype)));
  return py::dtype(name);
}

py::array tensor_to_numpy(const Tensor& tensor) {
  py::array array(numpy_dtype(tensor.dtype(), "a tensor"), tensor.shape());
  if (!tensor.has_data())
    raise(make_error("a tensor of {} has no data", to_string(Type(tensor.type()))));
  std::memcpy(array.mutable_data(), tensor.bytes().data(), tensor.bytes().size());
  return array;
}

std::shared_ptr<Tensor> tensor_from_numpy(py::handle value, std::string_view what) {
  py::array array = py::array::ensure(value, py::array::c_style);
  if (!array) raise(make_error("{}: not an array", what));
  std::optional<DType> dtype = uma_dtype(array.dtype());
  if (!dtype)
    raise(make_error("{}: numpy dtype {} has no uma dtype{}", what, numpy_text(array.dtype()),
                     byte_order_hint(array.dtype())));
  Shape shape(array.shape(), array.shape() + array.ndim());
  auto tensor = std::make_shared<Tensor>(TensorType{*dtype, shape});
  std::memcpy(tensor->bytes().data(), array.data(), tensor->bytes().size());
  return tensor;
}

py::array checked_array(py::handle value, const TensorType& type, std::string_view what) {
  py::array array = py::array::ensure(value);
  if (!array) raise(make_error("{}: expected a numpy array", what));
  py::dtype expected = numpy_dtype(type.dtype, what);
  if (!array.dtype().is(expected))
    raise(make_error("{}: dtype {}, expected {} ({}){}", what, numpy_text(array.dtype()),
                     numpy_text(expected), dtype_name(type.dtype), byte_order_hint(array.dtype())));
  Shape shape(array.shape(), array.shape() + array.ndim());
  if (shape != type.shape)
    raise(make_error("{}: shape ({}), expected ({})", what, fmt::join(shape, ", "),
                     fmt::join(type.shape, ", ")));
  if (!(array.flags() & py::array::c_style)) array = py::array::ensure(array, py::array::c_style);
  return array;
}

void bind_tensor(py::module_& m) {
  m.def(
      "interpret",
      [](ModuleHandle& handle, const py::args& args, const py::kwargs& kwargs) {
        ModuleHandle::Work work(handle, "uma.interpret", false);
        const Module& module = work.module();
        Function* main = module.find_function("main");
        if (main == nullptr) raise(make_error("module '{}' has no @main", handle.name()));
        std::vector<TensorPtr> inputs = arguments(*main, args, kwargs);
        Expected<std::vector<TensorPtr>> outputs = [&]() -> Expected<std::vector<TensorPtr>> {
          py::gil_scoped_release release;
          // What Python changed is checked before the interpreter relies on it.
          UMA_TRY(verify(module));
          return interpret(module, inputs);
        }();
        py::list result;
        for (const TensorPtr& output : unwrap(std::move(outputs)))
          result.append(tensor_to_numpy(*output));
        return result;
      },
      py::arg("module"),
      "Runs @main with the reference interpreter: positional inputs in "
      "parameter order or by name; a list of arrays");
}

}  // namespace uma::python
