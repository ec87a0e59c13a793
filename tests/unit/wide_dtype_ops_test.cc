// Unit tests of the reference kernels on the dtypes added for ONNX's wider types (f64, i16,
// u16, u32, u64): cast between f64 and f32, u64 values beyond 2^53 and 2^63 staying exact
// wherever the kernels compute on integers, unsigned order and division, and the 16-bit
// integers wrapping.
#include <cmath>
#include <limits>

#include "op_test_fixture.h"

namespace uma {
namespace {

using test::make_attrs;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kTwo53 = std::uint64_t{1} << 53;
constexpr std::uint64_t kTwo63 = std::uint64_t{1} << 63;

// A 1-D tensor of `dtype` holding `values` as they are, without a round trip through double.
template <typename T>
std::shared_ptr<Tensor> typed(DType dtype, std::vector<T> values) {
  auto t = std::make_shared<Tensor>(TensorType{dtype, {std::ssize(values)}});
  std::copy(values.begin(), values.end(), t->data<T>());
  return t;
}

template <typename T>
std::vector<T> typed_values(const Tensor& t) {
  return {t.data<T>(), t.data<T>() + t.num_elements()};
}

AttrMap to(const char* dtype) { return make_attrs({{"dtype", std::string(dtype)}}); }

class WideDTypeOpsTest : public test::OpTest {};

TEST_F(WideDTypeOpsTest, KindsOfTheNewDtypes) {
  EXPECT_TRUE(is_float(DType::f64));
  EXPECT_FALSE(is_integer(DType::f64));
  for (DType dtype : {DType::i16, DType::u16, DType::u32, DType::u64}) {
    EXPECT_TRUE(is_integer(dtype)) << dtype_name(dtype);
    EXPECT_FALSE(is_float(dtype)) << dtype_name(dtype);
  }
  EXPECT_FALSE(is_unsigned(DType::i16));
  EXPECT_TRUE(is_unsigned(DType::u64));
  EXPECT_FALSE(is_unsigned(DType::boolean));
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::u16), 2u);
  EXPECT_EQ(parse_dtype("u32"), DType::u32);
  EXPECT_EQ(dtype_names(), "f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool");
}

TEST_F(WideDTypeOpsTest, CastBetweenF64AndF32) {
  // f64 -> f32 rounds to nearest even; beyond f32's range is infinity, below it zero.
  auto narrowed =
      run1("cast", {typed<double>(DType::f64, {0.1, 1e300, -1e-50, 16777217.0})}, to("f32"));
  ASSERT_EQ(narrowed->dtype(), DType::f32);
  std::vector<float> f = typed_values<float>(*narrowed);
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(f[2], 0.0f);
  EXPECT_TRUE(std::signbit(f[2]));
  EXPECT_EQ(f[3], 16777216.0f);  // a tie, to even
  // f32 -> f64 is exact: 0.1f widens to its own value, not to 0.1.
  auto widened = run1("cast", {typed<float>(DType::f32, {0.1f, -3.5f})}, to("f64"));
  ASSERT_EQ(widened->dtype(), DType::f64);
  EXPECT_EQ(typed_values<double>(*widened), (std::vector<double>{double{0.1f}, -3.5}));
}

// f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is just above the tie between 1 and the next f16,
// which rounding to f32 first (to exactly the tie) and then to f16 (to even) would miss.
TEST_F(WideDTypeOpsTest, CastF64ToF16RoundsOnce) {
  auto half =
      run1("cast", {typed<double>(DType::f64, {1.0 + 0x1p-11 + 0x1p-40, 65520.0})}, to("f16"));
  EXPECT_EQ(typed_values<std::uint16_t>(*half), (std::vector<std::uint16_t>{0x3c01, 0x7c00}));
}

TEST_F(WideDTypeOpsTest, CastKeepsU64ExactOnIntegerPaths) {
  auto wide = typed<std::uint64_t>(DType::u64, {kTwo53 + 1, kTwo63 + 1, kU64Max});
  EXPECT_EQ(typed_values<std::int64_t>(*run1("cast", {wide}, to("i64"))),
            (std::vector<std::int64_t>{9007199254740993,
                                       std::numeric_limits<std::int64_t>::min() + 1, -1}));
  EXPECT_EQ(typed_values<std::uint32_t>(*run1("cast", {wide}, to("u32"))),
            (std::vector<std::uint32_t>{1, 1, 4294967295u}));
  auto negative = typed<std::int64_t>(DType::i64, {-1, 9007199254740993});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("cast", {negative}, to("u64"))),
            (std::vector<std::uint64_t>{kU64Max, kTwo53 + 1}));
  // To floats: one rounding, from the exact value.
  EXPECT_EQ(typed_values<double>(*run1("cast", {wide}, to("f64"))),
            (std::vector<double>{0x1p53, 0x1p63, 0x1p64}));
  EXPECT_EQ(typed_values<float>(*run1("cast", {wide}, to("f32"))),
            (std::vector<float>{0x1p53f, 0x1p63f, 0x1p64f}));
  // From floats: truncated, and saturated to u64's range, which reaches beyond int64's.
  auto floats = typed<double>(DType::f64, {0x1p63 + 2048, 1e30, -3.7, 7.9});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("cast", {floats}, to("u64"))),
            (std::vector<std::uint64_t>{kTwo63 + 2048, kU64Max, 0, 7}));
}

TEST_F(WideDTypeOpsTest, U64OrdersAndDividesAsUnsigned) {
  auto a = typed<std::uint64_t>(DType::u64, {kTwo63 + 1, 5, kU64Max});
  auto b = typed<std::uint64_t>(DType::u64, {7, kU64Max, 2});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("maximum", {a, b})),
            (std::vector<std::uint64_t>{kTwo63 + 1, kU64Max, kU64Max}));
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("minimum", {a, b})),
            (std::vector<std::uint64_t>{7, 5, 2}));
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("divide", {a, b})),
            (std::vector<std::uint64_t>{kTwo63 / 7, 0, kU64Max / 2}));
  EXPECT_EQ(typed_values<std::uint8_t>(*run1("less", {a, b})),
            (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(typed_values<std::uint8_t>(*run1("greater_equal", {a, b})),
            (std::vector<std::uint8_t>{1, 0, 1}));
  // Wrapping arithmetic is the same bits as for i64.
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("add", {a, b})),
            (std::vector<std::uint64_t>{kTwo63 + 8, 4, 1}));
  // relu and abs leave every unsigned value alone.
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("nn.relu", {a})), typed_values<std::uint64_t>(*a));
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("abs", {a})), typed_values<std::uint64_t>(*a));
  // An exponent from 2^63 on is huge, not negative: 2^(2^63) wraps to 0, 1 to it is 1.
  auto base = typed<std::uint64_t>(DType::u64, {2, 1, 3});
  auto exponent = typed<std::uint64_t>(DType::u64, {kTwo63, kU64Max, 2});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("power", {base, exponent})),
            (std::vector<std::uint64_t>{0, 1, 9}));
  auto zero = typed<std::uint64_t>(DType::u64, {0});
  auto huge = typed<std::uint64_t>(DType::u64, {kU64Max});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("power", {zero, huge})),
            (std::vector<std::uint64_t>{0}));
}

TEST_F(WideDTypeOpsTest, U64ReductionsClipAndArgmax) {
  auto t = typed<std::uint64_t>(DType::u64, {3, kU64Max, kTwo63, 1});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("max", {t})), (std::vector<std::uint64_t>{kU64Max}));
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("min", {t})), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(
      typed_values<std::int64_t>(*run1("argmax", {t}, make_attrs({{"axis", std::int64_t{0}}}))),
      (std::vector<std::int64_t>{1}));
  // The sum 2^63 + 2 would be negative in int64; the mean divides it as unsigned.
  auto pair = typed<std::uint64_t>(DType::u64, {kTwo63, 2});
  EXPECT_EQ(typed_values<std::uint64_t>(*run1("mean", {pair})),
            (std::vector<std::uint64_t>{(kTwo63 + 2) / 2}));
  auto clipped = run1("clip", {t}, make_attrs({{"a_min", 2.0}, {"a_max", 0x1p63}}));
  EXPECT_EQ(typed_values<std::uint64_t>(*clipped),
            (std::vector<std::uint64_t>{3, kTwo63, kTwo63, 2}));
}

TEST_F(WideDTypeOpsTest, SixteenAndThirtyTwoBitIntegersWrap) {
  auto i16 = typed<std::int16_t>(DType::i16, {32767, -32768});
  auto one = typed<std::int16_t>(DType::i16, {1, 1});
  EXPECT_EQ(typed_values<std::int16_t>(*run1("add", {i16, one})),
            (std::vector<std::int16_t>{-32768, -32767}));
  EXPECT_EQ(typed_values<std::int16_t>(*run1("maximum", {i16, one})),
            (std::vector<std::int16_t>{32767, 1}));
  auto u16 = typed<std::uint16_t>(DType::u16, {0, 65535});
  auto u16_one = typed<std::uint16_t>(DType::u16, {1, 1});
  EXPECT_EQ(typed_values<std::uint16_t>(*run1("subtract", {u16, u16_one})),
            (std::vector<std::uint16_t>{65535, 65534}));
  auto u32 = typed<std::uint32_t>(DType::u32, {4294967295u, 3});
  EXPECT_EQ(typed_values<std::uint32_t>(*run1("multiply", {u32, u32})),
            (std::vector<std::uint32_t>{1, 9}));
  EXPECT_EQ(typed_values<std::uint32_t>(
                *run1("minimum", {u32, typed<std::uint32_t>(DType::u32, {4, 4})})),
            (std::vector<std::uint32_t>{4, 3}));
}

TEST_F(WideDTypeOpsTest, F64ComputesInDoublePrecision) {
  auto a = typed<double>(DType::f64, {0.1, 1e300});
  auto b = typed<double>(DType::f64, {0.2, 1e300});
  EXPECT_EQ(typed_values<double>(*run1("add", {a, b})), (std::vector<double>{0.1 + 0.2, 2e300}));
  EXPECT_EQ(typed_values<double>(*run1("sqrt", {typed<double>(DType::f64, {2.0})})),
            (std::vector<double>{std::sqrt(2.0)}));
  // The neural-network kernels read operands as f32, so they refuse f64 rather than lose it.
  EXPECT_EQ(error("nn.dense",
                  {test::tensor_type({2, 3}, DType::f64), test::tensor_type({4, 3}, DType::f64)}),
            "data is f64, but only floating-point types (f32, f16, bf16) are supported");
}

TEST_F(WideDTypeOpsTest, TakeRefusesU64IndicesBeyondInt64) {
  auto data = typed<float>(DType::f32, {1, 2, 3});
  auto indices = typed<std::uint64_t>(DType::u64, {2, kU64Max});
  EXPECT_EQ(run_error("take", {data, indices}, make_attrs({{"axis", std::int64_t{0}}})),
            "index 18446744073709551615 (element 1 of indices) is out of range for axis 0 of "
            "size 3");
}

}  // namespace
}  // namespace uma
