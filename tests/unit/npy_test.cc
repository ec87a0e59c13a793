// Unit tests of numpy's .npy format (runtime/npy.h): round trips of every dtype, the bytes
// numpy itself writes, big-endian data, format versions, and every error.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tensor_util.h"
#include "uma/runtime/npy.h"

namespace uma {
namespace {

using test::make_tensor;
using test::values_of;

// A .npy file from its parts: version, header dict (padded as numpy pads it) and data.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  std::size_t length_bytes = major == 1 ? 2 : 4;
  std::size_t unpadded = 6 + 2 + length_bytes + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string bytes_of(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out += static_cast<char>(v);
  return out;
}

std::string error_of(std::string_view bytes) {
  auto tensor = parse_npy(bytes, "t.npy");
  EXPECT_FALSE(tensor.ok());
  return tensor.ok() ? "" : tensor.error().message();
}

TEST(NpyTest, RoundTripsEveryDtype) {
  const std::vector<double> values = {0, 1, -2, 3.5, 100, -7};
  for (DType dtype : test::kAllDTypes) {
    std::vector<double> typed = values;
    for (double& v : typed) {
      if (is_unsigned(dtype)) v = std::abs(v);
      if (is_integer(dtype)) v = std::trunc(v);
      if (dtype == DType::boolean) v = v != 0;
    }
    auto tensor = make_tensor(dtype, {2, 3}, typed);
    auto back = parse_npy(serialize_npy(*tensor), "t.npy");
    ASSERT_TRUE(back.ok()) << dtype_name(dtype) << ": " << back.error().message();
    EXPECT_TRUE((*back)->same_contents(*tensor)) << dtype_name(dtype);
    EXPECT_EQ(values_of(**back), typed) << dtype_name(dtype);
  }
}

// numpy's codes for the dtypes beyond 32 bits or with 16-bit integers, and the bytes of
// values that only these dtypes hold: f64's precision and u64's range beyond int64's.
TEST(NpyTest, RoundTripsWideAndSixteenBitTypesExactly) {
  struct Case {
    DType dtype;
    const char* descr;
  };
  for (auto [dtype, descr] :
       {Case{DType::f64, "<f8"}, Case{DType::i16, "<i2"}, Case{DType::u16, "<u2"},
        Case{DType::u32, "<u4"}, Case{DType::u64, "<u8"}}) {
    auto tensor = std::make_shared<Tensor>(TensorType{dtype, {2}});
    std::string bytes = serialize_npy(*tensor);
    EXPECT_NE(bytes.find(fmt::format("'descr': '{}'", descr)), std::string::npos) << descr;
  }
  auto doubles = std::make_shared<Tensor>(TensorType{DType::f64, {2}});
  doubles->data<double>()[0] = 0.1;
  doubles->data<double>()[1] = -1e300;
  auto wide = std::make_shared<Tensor>(TensorType{DType::u64, {2}});
  wide->data<std::uint64_t>()[0] = (std::uint64_t{1} << 53) + 1;
  wide->data<std::uint64_t>()[1] = 0xFFFFFFFFFFFFFFFFull;
  auto shorts = std::make_shared<Tensor>(TensorType{DType::i16, {2}});
  shorts->data<std::int16_t>()[0] = -32768;
  shorts->data<std::int16_t>()[1] = 32767;
  for (const auto& tensor : {doubles, wide, shorts}) {
    auto back = parse_npy(serialize_npy(*tensor), "t.npy");
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_TRUE((*back)->same_contents(*tensor)) << dtype_name(tensor->dtype());
  }
  // np.array([1, 2], '>u8'): big-endian 8-byte elements are swapped whole.
  auto big = parse_npy(npy_file("{'descr': '>u8', 'fortran_order': False, 'shape': (1,), }",
                                bytes_of({0x80, 0, 0, 0, 0, 0, 0, 1})),
                       "t.npy");
  ASSERT_TRUE(big.ok()) << big.error().message();
  EXPECT_EQ((*big)->data<std::uint64_t>()[0], 0x8000000000000001ull);
}

TEST(NpyTest, RoundTripsScalarsVectorsAndEmptyTensors) {
  for (Shape shape : {Shape{}, Shape{5}, Shape{0}, Shape{2, 0, 3}, Shape{1, 1, 1, 1, 1}}) {
    auto tensor = std::make_shared<Tensor>(TensorType{DType::f32, shape});
    for (std::int64_t i = 0; i < tensor->num_elements(); ++i) tensor->set(i, 0.5 * i);
    auto back = parse_npy(serialize_npy(*tensor), "t.npy");
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_TRUE((*back)->same_contents(*tensor)) << to_string(shape);
  }
}

// What numpy writes for np.save(f, a): magic, version 1.0, a 118-byte header, the data.
TEST(NpyTest, WritesWhatNumpyWrites) {
  auto header = [](const std::string& dict) {
    return std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict +
           std::string(117 - dict.size(), ' ') + "\n";
  };
  // np.array([[1, 2, 3], [4, 5, 6]], np.float32)
  std::string floats = serialize_npy(*make_tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(floats.size(), 128u + 24u);
  EXPECT_EQ(floats.substr(0, 128),
            header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
  EXPECT_EQ(floats.substr(128, 4), std::string("\x00\x00\x80\x3f", 4));  // 1.0f
  // np.array([1, 2, 3, 4], np.int64), np.array(True)
  EXPECT_EQ(serialize_npy(*make_tensor(DType::i64, {4}, {1, 2, 3, 4})).substr(0, 128),
            header("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }"));
  EXPECT_EQ(serialize_npy(*make_tensor(DType::boolean, {}, {1})),
            header("{'descr': '|b1', 'fortran_order': False, 'shape': (), }") + "\x01");
  // ml_dtypes' bfloat16 arrays save as 2-byte void.
  EXPECT_EQ(serialize_npy(*make_tensor(DType::bf16, {1}, {1})).substr(0, 128),
            header("{'descr': '<V2', 'fortran_order': False, 'shape': (1,), }"));
}

TEST(NpyTest, ReadsBigEndianData) {
  // np.array([1.0, -2.0], '>f4') and np.array([258], '>i4').
  auto floats = parse_npy(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                                   bytes_of({0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0})),
                          "t.npy");
  ASSERT_TRUE(floats.ok()) << floats.error().message();
  EXPECT_EQ(values_of(**floats), (std::vector<double>{1.0, -2.0}));
  auto ints = parse_npy(
      npy_file("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", bytes_of({0, 0, 1, 2})),
      "t.npy");
  ASSERT_TRUE(ints.ok()) << ints.error().message();
  EXPECT_EQ(values_of(**ints), std::vector<double>{258});
}

TEST(NpyTest, ReadsVersions2And3AndOtherKeyOrders) {
  std::string data = bytes_of({1, 0, 0, 0, 2, 0, 0, 0});
  for (int major : {2, 3}) {
    auto tensor = parse_npy(
        npy_file("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}", data, major),
        "t.npy");
    ASSERT_TRUE(tensor.ok()) << tensor.error().message();
    EXPECT_EQ(values_of(**tensor), (std::vector<double>{1, 2}));
  }
  // Python 2's numpy wrote long integers with an L.
  auto old = parse_npy(
      npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (2L,), }", bytes_of({7, 9})),
      "t.npy");
  ASSERT_TRUE(old.ok()) << old.error().message();
  EXPECT_EQ(values_of(**old), (std::vector<double>{7, 9}));
}

TEST(NpyTest, NormalizesBooleans) {
  auto tensor = parse_npy(
      npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", bytes_of({0, 5})),
      "t.npy");
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ((*tensor)->data<std::uint8_t>()[1], 1);
}

TEST(NpyTest, Errors) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight(8, '\0');
  EXPECT_EQ(error_of("hello"), "t.npy: not a .npy file (no \\x93NUMPY magic)");
  std::string v4 = npy_file(f4, eight);
  v4[6] = 4;
  EXPECT_EQ(error_of(v4), "t.npy: .npy format version 4.0 is not supported (1.0, 2.0, 3.0 are)");
  EXPECT_EQ(error_of(npy_file(f4, eight).substr(0, 40)),
            "t.npy: the header is 118 bytes, but the file ends after 30");
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", eight)),
            "t.npy: Fortran-order arrays are not supported; save a C-order array "
            "(numpy.ascontiguousarray)");
  EXPECT_EQ(error_of(npy_file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", eight)),
            "t.npy: dtype '<c8' is not supported; uma reads float32, float16, bfloat16 (as '<V2'), "
            "float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64 and bool");
  EXPECT_EQ(error_of(npy_file("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", eight)),
            "t.npy: dtype '<U3' is not supported; uma reads float32, float16, bfloat16 (as '<V2'), "
            "float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64 and bool");
  EXPECT_EQ(error_of(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                              eight)),
            "t.npy: structured dtypes (a list 'descr') are not supported");
  EXPECT_EQ(error_of(npy_file(f4, eight.substr(0, 7))),
            "t.npy: tensor<2xf32> needs 8 bytes of data, but the file holds 7");
  EXPECT_EQ(error_of(npy_file(f4, eight + "x")),
            "t.npy: tensor<2xf32> needs 8 bytes of data, but the file holds 9");
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': False}", eight)),
            "t.npy: the header lacks 'shape'");
  EXPECT_EQ(
      error_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", eight)),
      "t.npy: the header has an unknown key 'x'");
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", eight)),
            "t.npy: malformed header: expected True or False at offset 34");
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", eight)),
            "t.npy: malformed header: expected a dimension at offset 51");
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4, 'fortran_order': False}", eight)),
            "t.npy: malformed header: expected ',' at offset 17");
  // Element counts that overflow are refused before anything is allocated.
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                              "(4294967296, 4294967296), }",
                              eight)),
            "t.npy: shape 4294967296x4294967296 has more elements than fit in 64 bits");
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                              "(1000000000, 1000000000), }",
                              eight)),
            "t.npy: tensor<1000000000x1000000000xf32> needs 4000000000000000000 bytes of data, "
            "but the file holds 8");
}

TEST(NpyTest, ZeroSizedShapesWithHugeDimensionsAreRefused) {
  EXPECT_EQ(error_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                              "(0, 4294967296, 4294967296), }",
                              "")),
            "t.npy: shape 0x4294967296x4294967296 has more elements than fit in 64 bits");
}

TEST(NpyTest, FilesRoundTrip) {
  auto tensor = make_tensor(DType::i32, {3}, {1, -2, 3});
  std::string path = ::testing::TempDir() + "/npy_test_file.npy";
  ASSERT_TRUE(write_npy_file(path, *tensor).ok());
  auto back = read_npy_file(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_TRUE((*back)->same_contents(*tensor));
  auto missing = read_npy_file(::testing::TempDir() + "/no_such_file.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace uma
