// ONNX TensorProto <-> host Tensor, with every size checked before allocating, and external
// data confined to the model's folder.
#include "uma/frontend/onnx/tensor_proto.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "uma/op/shape_util.h"
#include "uma/support/file.h"

namespace uma {
namespace {

namespace fs = std::filesystem;
using onnx::TensorProto;

// Raw data and our tensors are both little-endian; a big-endian host would need swaps.
static_assert(std::endian::native == std::endian::little);

constexpr struct {
  TensorProto::DataType onnx;
  DType dtype;
} kTypes[] = {
    {TensorProto::FLOAT, DType::f32},     {TensorProto::FLOAT16, DType::f16},
    {TensorProto::BFLOAT16, DType::bf16}, {TensorProto::DOUBLE, DType::f64},
    {TensorProto::INT8, DType::i8},       {TensorProto::INT16, DType::i16},
    {TensorProto::INT32, DType::i32},     {TensorProto::INT64, DType::i64},
    {TensorProto::UINT8, DType::u8},      {TensorProto::UINT16, DType::u16},
    {TensorProto::UINT32, DType::u32},    {TensorProto::UINT64, DType::u64},
    {TensorProto::BOOL, DType::boolean},
};

std::string onnx_type_name(int onnx_type) {
  if (!TensorProto::DataType_IsValid(onnx_type))
    return fmt::format("{} (not an ONNX type)", onnx_type);
  return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnx_type));
}

// Copies typed values (float_data, double_data, int32_data, int64_data, uint64_data), whose
// count was checked, into the tensor element by element: int32_data holds 16-bit floats as
// their bit patterns and the integers of up to 16 bits as values; uint64_data holds u32 and
// u64.
template <typename Field>
void copy_typed(const Field& field, Tensor& tensor) {
  for (int i = 0; i < field.size(); ++i) {
    auto value = field.Get(i);
    // Integer conversions wrap like the C++ casts they are; ONNX leaves out-of-range
    // values undefined, and a double round trip would make them undefined behaviour here.
    switch (tensor.dtype()) {
      case DType::f32:
        tensor.data<float>()[i] = static_cast<float>(value);
        break;
      case DType::f16:
      case DType::bf16:
      case DType::u16:
        tensor.data<std::uint16_t>()[i] = static_cast<std::uint16_t>(value);
        break;
      case DType::f64:
        tensor.data<double>()[i] = static_cast<double>(value);
        break;
      case DType::i8:
        tensor.data<std::int8_t>()[i] = static_cast<std::int8_t>(value);
        break;
      case DType::i16:
        tensor.data<std::int16_t>()[i] = static_cast<std::int16_t>(value);
        break;
      case DType::i32:
        tensor.data<std::int32_t>()[i] = static_cast<std::int32_t>(value);
        break;
      case DType::i64:
        tensor.data<std::int64_t>()[i] = static_cast<std::int64_t>(value);
        break;
      case DType::u8:
        tensor.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(value);
        break;
      case DType::u32:
        tensor.data<std::uint32_t>()[i] = static_cast<std::uint32_t>(value);
        break;
      case DType::u64:
        tensor.data<std::uint64_t>()[i] = static_cast<std::uint64_t>(value);
        break;
      case DType::boolean:
        tensor.data<std::uint8_t>()[i] = value != 0;
        break;
    }
  }
}

// A non-negative decimal number from an external-data entry.
Expected<std::int64_t> parse_size(const std::string& key, const std::string& text) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0)
    return make_error("external data '{}' is '{}', not a non-negative integer", key, text);
  return value;
}

// The file an external-data location names, provided it stays inside `model_dir`.
Expected<fs::path> resolve_location(const std::string& location, const std::string& model_dir) {
  if (model_dir.empty())
    return make_error(
        "external data '{}' cannot be read: the model was given in memory, without "
        "a folder",
        location);
  if (location.empty()) return make_error("external data has an empty 'location'");
  if (location.find('\0') != std::string::npos)
    return make_error("external data location contains a NUL byte");
  fs::path relative(location);
  if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory())
    return make_error(
        "external data location '{}' is an absolute path; it must be relative to "
        "the model's folder",
        location);
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::path(model_dir), ec);
  if (ec) return make_error("cannot resolve the model's folder '{}': {}", model_dir, ec.message());
  // weakly_canonical resolves symlinks in the part that exists, so a link pointing out of
  // the folder shows here just like a "../" does.
  fs::path target = fs::weakly_canonical(base / relative, ec);
  if (ec)
    return make_error("cannot resolve external data location '{}': {}", location, ec.message());
  fs::path inside = target.lexically_relative(base);
  if (inside.empty() || inside == "." || *inside.begin() == "..")
    return make_error("external data location '{}' leaves the model's folder (it resolves to '{}')",
                      location, target.string());
  return target;
}

// Where a tensor's bytes are in an external file, checked against the file's size.
struct ExternalSpan {
  fs::path path;
  std::int64_t offset = 0;
};

Expected<ExternalSpan> locate_external(const TensorProto& proto, const std::string& model_dir,
                                       const TensorType& type) {
  std::string location;
  std::optional<std::int64_t> offset, length;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset") {
      UMA_TRY_ASSIGN(offset, parse_size("offset", entry.value()));
    } else if (entry.key() == "length") {
      UMA_TRY_ASSIGN(length, parse_size("length", entry.value()));
    }
  }
  UMA_TRY_ASSIGN(fs::path path, resolve_location(location, model_dir));
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return make_error("external data file '{}' does not exist or is not a regular file", location);
  auto file_size = static_cast<std::int64_t>(fs::file_size(path, ec));
  if (ec) return make_error("external data file '{}': {}", location, ec.message());
  std::int64_t start = offset.value_or(0);
  if (start > file_size)
    return make_error("external data offset {} is past the end of '{}' ({} bytes)", start, location,
                      file_size);
  std::int64_t available = length.value_or(file_size - start);
  if (available > file_size - start)
    return make_error("external data offset {} + length {} goes past the end of '{}' ({} bytes)",
                      start, available, location, file_size);
  if (available != type.num_bytes())
    return make_error("external data holds {} bytes, but {} needs {}", available,
                      to_string(Type(type)), type.num_bytes());
  return ExternalSpan{std::move(path), start};
}

// Checks that the data the proto holds has exactly the type's size, before anything is
// allocated for it: a small model must not be able to ask for a huge buffer.
Status check_inline_size(const TensorProto& proto, std::optional<std::string_view> raw_data,
                         const TensorType& type) {
  std::int64_t count = type.num_elements();
  if (raw_data) {
    if (static_cast<std::int64_t>(raw_data->size()) != type.num_bytes())
      return make_error("raw_data holds {} bytes, but {} needs {}", raw_data->size(),
                        to_string(Type(type)), type.num_bytes());
    return Status::success();
  }
  auto check = [&](std::int64_t size, const char* field) -> Status {
    if (size != count)
      return make_error("{} holds {} value(s), but {} has {} element(s)", field, size,
                        to_string(Type(type)), count);
    return Status::success();
  };
  switch (type.dtype) {
    case DType::f32:
      return check(proto.float_data_size(), "float_data");
    case DType::f64:
      return check(proto.double_data_size(), "double_data");
    case DType::i64:
      return check(proto.int64_data_size(), "int64_data");
    case DType::u32:
    case DType::u64:
      return check(proto.uint64_data_size(), "uint64_data");
    default:
      return check(proto.int32_data_size(), "int32_data");
  }
}

void fill_inline(const TensorProto& proto, std::optional<std::string_view> raw_data,
                 Tensor& tensor) {
  if (raw_data) {
    std::memcpy(tensor.bytes().data(), raw_data->data(), raw_data->size());
    if (tensor.dtype() == DType::boolean)
      for (std::byte& b : tensor.bytes()) b = std::byte{b != std::byte{0}};
    return;
  }
  switch (tensor.dtype()) {
    case DType::f32:
      copy_typed(proto.float_data(), tensor);
      break;
    case DType::f64:
      copy_typed(proto.double_data(), tensor);
      break;
    case DType::i64:
      copy_typed(proto.int64_data(), tensor);
      break;
    case DType::u32:
    case DType::u64:
      copy_typed(proto.uint64_data(), tensor);
      break;
    default:
      copy_typed(proto.int32_data(), tensor);
      break;
  }
}

}  // namespace

std::optional<DType> dtype_from_onnx(int onnx_type) {
  for (const auto& entry : kTypes)
    if (entry.onnx == onnx_type) return entry.dtype;
  return std::nullopt;
}

TensorProto::DataType dtype_to_onnx(DType dtype) {
  for (const auto& entry : kTypes)
    if (entry.dtype == dtype) return entry.onnx;
  internal_error(__FILE__, __LINE__, fmt::format("no ONNX type for {}", dtype_name(dtype)));
}

Error unsupported_onnx_type(std::string_view what, int onnx_type) {
  std::string supported;
  for (const auto& entry : kTypes)
    supported += (supported.empty() ? "" : ", ") + TensorProto::DataType_Name(entry.onnx);
  return make_error("{} has element type {}, which uma does not support (it supports {})", what,
                    onnx_type_name(onnx_type), supported);
}

Expected<std::shared_ptr<Tensor>> tensor_from_onnx(const TensorProto& proto, std::string_view what,
                                                   const std::string& model_dir,
                                                   std::optional<std::string_view> raw_data) {
  std::optional<DType> dtype = dtype_from_onnx(proto.data_type());
  if (!dtype) return unsupported_onnx_type(what, proto.data_type());
  if (proto.has_segment()) return make_error("{}: segmented tensors are not supported", what);
  TensorType type{*dtype, Shape(proto.dims().begin(), proto.dims().end())};
  if (auto count = type.checked_num_elements(); !count) return count.error().with_context(what);
  if (proto.data_location() == TensorProto::EXTERNAL) {
    auto span = locate_external(proto, model_dir, type);
    if (!span) return span.error().with_context(what);
    auto tensor = Tensor::for_overwrite(std::move(type));
    std::ifstream in(span->path, std::ios::binary);
    in.seekg(span->offset);
    in.read(reinterpret_cast<char*>(tensor->bytes().data()),
            static_cast<std::streamsize>(tensor->bytes().size()));
    if (!in) return make_error("{}: cannot read its external data", what);
    tensor->name = proto.name();
    return tensor;
  }
  if (!raw_data && proto.has_raw_data()) raw_data = proto.raw_data();
  if (Status sized = check_inline_size(proto, raw_data, type); !sized)
    return sized.error().with_context(what);
  auto tensor = Tensor::for_overwrite(std::move(type));
  fill_inline(proto, raw_data, *tensor);
  tensor->name = proto.name();
  return tensor;
}

TensorProto tensor_to_onnx(const Tensor& tensor, const std::string& name) {
  UMA_CHECK(tensor.has_data(), "converting a tensor without data");
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(dtype_to_onnx(tensor.dtype()));
  for (std::int64_t dim : tensor.shape()) proto.add_dims(dim);
  auto bytes = tensor.bytes();
  proto.set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return proto;
}

Expected<std::shared_ptr<Tensor>> read_onnx_tensor_file(const std::string& path) {
  UMA_TRY_ASSIGN(std::string bytes, read_file(path));
  TensorProto proto;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromString(bytes))
    return make_error("{}: not a serialized ONNX TensorProto", path);
  return tensor_from_onnx(proto, path, "");
}

Status write_onnx_tensor_file(const std::string& path, const Tensor& tensor,
                              const std::string& name) {
  return write_file(path, tensor_to_onnx(tensor, name).SerializeAsString());
}

}  // namespace uma
