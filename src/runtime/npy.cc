// numpy's .npy format (numpy/lib/format.py): a magic string, a version, a header that is a
// Python dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }) padded
// with spaces to a multiple of 64 bytes, then the raw elements.
#include "uma/runtime/npy.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>

#include "uma/op/shape_util.h"
#include "uma/support/file.h"

namespace uma {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// The element types numpy spells with a kind letter and a size, without the byte order.
struct NpyType {
  std::string_view code;
  DType dtype;
};
constexpr NpyType kTypes[] = {
    {"f4", DType::f32},     {"f2", DType::f16}, {"V2", DType::bf16}, {"f8", DType::f64},
    {"i1", DType::i8},      {"i2", DType::i16}, {"i4", DType::i32},  {"i8", DType::i64},
    {"u1", DType::u8},      {"u2", DType::u16}, {"u4", DType::u32},  {"u8", DType::u64},
    {"b1", DType::boolean},
};

// What the dict literal of a header says.
struct Header {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
};

// A parser for the subset of Python literals numpy writes in headers: a dict of strings,
// booleans and tuples of integers.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Expected<Header> parse() {
    Header header;
    bool has_descr = false, has_order = false, has_shape = false;
    UMA_TRY(expect('{'));
    while (!peek('}')) {
      UMA_TRY_ASSIGN(std::string key, parse_string());
      UMA_TRY(expect(':'));
      if (key == "descr") {
        if (peek('[')) return make_error("structured dtypes (a list 'descr') are not supported");
        UMA_TRY_ASSIGN(header.descr, parse_string());
        has_descr = true;
      } else if (key == "fortran_order") {
        UMA_TRY_ASSIGN(header.fortran_order, parse_bool());
        has_order = true;
      } else if (key == "shape") {
        UMA_TRY_ASSIGN(header.shape, parse_shape());
        has_shape = true;
      } else {
        return make_error("the header has an unknown key '{}'", key);
      }
      if (!peek('}')) UMA_TRY(expect(','));
    }
    UMA_TRY(expect('}'));
    if (!has_descr || !has_order || !has_shape)
      return make_error("the header lacks '{}'", !has_descr   ? "descr"
                                                 : !has_order ? "fortran_order"
                                                              : "shape");
    return header;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  Status expect(char c) {
    if (!peek(c)) return make_error("malformed header: expected '{}' at offset {}", c, pos_);
    ++pos_;
    return Status::success();
  }
  Expected<std::string> parse_string() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return make_error("malformed header: expected a string at offset {}", pos_);
    char quote = text_[pos_++];
    std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return make_error("malformed header: unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  Expected<bool> parse_bool() {
    skip_space();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    return make_error("malformed header: expected True or False at offset {}", pos_);
  }
  Expected<Shape> parse_shape() {
    Shape shape;
    UMA_TRY(expect('('));
    while (!peek(')')) {
      std::int64_t dim = 0;
      auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), dim);
      if (error != std::errc() || dim < 0)
        return make_error("malformed header: expected a dimension at offset {}", pos_);
      pos_ = static_cast<std::size_t>(end - text_.data());
      shape.push_back(dim);
      if (peek('L')) ++pos_;  // Python 2 wrote long integers as 3L
      if (!peek(')')) UMA_TRY(expect(','));
    }
    UMA_TRY(expect(')'));
    return shape;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(std::string_view bytes, std::size_t offset, std::size_t size) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < size; ++i)
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

Expected<DType> dtype_of(std::string_view descr, bool& big_endian) {
  if (descr.size() >= 2 &&
      (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
    big_endian = descr[0] == '>';
    std::string_view code = descr.substr(1);
    for (const NpyType& type : kTypes)
      if (type.code == code) return type.dtype;
  }
  return make_error(
      "dtype '{}' is not supported; uma reads float32, float16, bfloat16 (as '<V2'), float64, "
      "int8, int16, int32, int64, uint8, uint16, uint32, uint64 and bool",
      descr);
}

}  // namespace

Expected<std::shared_ptr<Tensor>> parse_npy(std::string_view bytes, std::string_view name) {
  auto fail = [&](const Error& error) { return error.with_context(name); };
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic)
    return fail(make_error("not a .npy file (no \\x93NUMPY magic)"));
  auto major = static_cast<unsigned char>(bytes[6]);
  auto minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return fail(
        make_error(".npy format version {}.{} is not supported (1.0, 2.0, 3.0 are)", major, minor));
  std::size_t length_size = major == 1 ? 2 : 4;
  std::size_t header_start = 8 + length_size;
  if (bytes.size() < header_start) return fail(make_error("the file ends inside its header"));
  std::size_t header_length = read_le(bytes, 8, length_size);
  if (header_length > bytes.size() - header_start)
    return fail(make_error("the header is {} bytes, but the file ends after {}", header_length,
                           bytes.size() - header_start));
  auto header = HeaderParser(bytes.substr(header_start, header_length)).parse();
  if (!header) return fail(header.error());
  if (header->fortran_order)
    return fail(
        make_error("Fortran-order arrays are not supported; save a C-order array "
                   "(numpy.ascontiguousarray)"));
  bool big_endian = false;
  auto dtype = dtype_of(header->descr, big_endian);
  if (!dtype) return fail(dtype.error());
  TensorType type{*dtype, header->shape};
  auto count = type.checked_num_elements();
  if (!count) return fail(count.error());
  std::string_view data = bytes.substr(header_start + header_length);
  auto expected_bytes = static_cast<std::size_t>(*count) * dtype_size(*dtype);
  if (data.size() != expected_bytes)
    return fail(make_error("{} needs {} bytes of data, but the file holds {}",
                           to_string(Type(type)), expected_bytes, data.size()));
  auto tensor = std::make_shared<Tensor>(std::move(type));
  std::byte* out = tensor->bytes().data();
  std::memcpy(out, data.data(), data.size());
  std::size_t element = dtype_size(*dtype);
  if (big_endian && element > 1)
    for (std::size_t i = 0; i < data.size(); i += element) std::reverse(out + i, out + i + element);
  if (*dtype == DType::boolean)
    for (std::size_t i = 0; i < data.size(); ++i) out[i] = std::byte{out[i] != std::byte{0}};
  return tensor;
}

std::string serialize_npy(const Tensor& tensor) {
  UMA_CHECK(tensor.has_data(), "writing a tensor without data");
  std::string_view code;
  for (const NpyType& type : kTypes)
    if (type.dtype == tensor.dtype()) code = type.code;
  std::string shape;
  for (std::int64_t dim : tensor.shape()) shape += fmt::format("{}, ", dim);
  // A 1-tuple needs its trailing comma; others are written as numpy writes them.
  if (tensor.shape().size() > 1) shape.resize(shape.size() - 2);
  if (tensor.shape().size() == 1) shape.pop_back();
  std::string dict = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': ({}), }}",
                                 dtype_size(tensor.dtype()) == 1 ? '|' : '<', code, shape);
  // Version 1.0 stores the header length in 2 bytes; longer headers need 2.0.
  std::size_t unpadded = kMagic.size() + 2 + 2 + dict.size() + 1;
  bool v2 = unpadded + 64 > 65535;
  if (v2) unpadded += 2;
  std::size_t padded = (unpadded + 63) / 64 * 64;
  dict.append(padded - unpadded, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  std::size_t length = dict.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out += static_cast<char>((length >> (8 * i)) & 0xff);
  out += dict;
  auto data = tensor.bytes();
  out.append(reinterpret_cast<const char*>(data.data()), data.size());
  return out;
}

Expected<std::shared_ptr<Tensor>> read_npy_file(const std::string& path) {
  UMA_TRY_ASSIGN(std::string bytes, read_file(path));
  return parse_npy(bytes, path);
}

Status write_npy_file(const std::string& path, const Tensor& tensor) {
  return write_file(path, serialize_npy(tensor));
}

}  // namespace uma
