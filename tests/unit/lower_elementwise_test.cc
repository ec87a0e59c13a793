// Lowered elementwise ops (arithmetic with broadcasting, unary math, modulo, shifts, cast),
// compiled and compared with the reference interpreter for every dtype; integers bit for
// bit.
#include <cmath>
#include <limits>

#include "lower_test_util.h"
#include "tensor_util.h"

namespace uma::testing_lower {
namespace {

using test::make_attrs;
using test::make_tensor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TensorType typed(DType dtype, Shape shape) { return TensorType{dtype, std::move(shape)}; }

const char* const kBinaryOps[] = {"add",     "subtract", "multiply",  "divide",   "maximum",
                                  "minimum", "power",    "floor_mod", "trunc_mod"};

TEST(LowerElementwise, BinaryOpsBroadcast) {
  std::vector<Case> cases;
  for (const char* op : kBinaryOps) {
    std::string name(op);
    cases.push_back(op_case(name + " same shape", op, {f32({2, 3, 4}), f32({2, 3, 4})}, {}, 1e-6));
    cases.push_back(op_case(name + " row", op, {f32({2, 3, 4}), f32({4})}, {}, 1e-6));
    cases.push_back(op_case(name + " outer", op, {f32({3, 1}), f32({2, 1, 4})}, {}, 1e-6));
    cases.push_back(op_case(name + " scalar", op, {f32({}), f32({2, 2})}, {}, 1e-6));
    cases.push_back(op_case(name + " ones", op, {f32({1, 3, 1}), f32({1, 1, 1})}, {}, 1e-6));
  }
  check_cases(cases);
}

// +, -, * and / of two f16 or bf16 values computed in f32 and rounded once are correctly
// rounded, as the reference's doubles are: bit for bit.
TEST(LowerElementwise, BinaryOpsOfEveryFloatType) {
  std::vector<Case> cases;
  for (DType dtype : {DType::f64, DType::f16, DType::bf16}) {
    for (const char* op : kBinaryOps) {
      // power and floor_mod's r + b round in f32 before they round to the narrow type.
      std::string_view name(op);
      bool exact = (name != "power" && name != "floor_mod") || dtype == DType::f64;
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                              {typed(dtype, {3, 5}), typed(dtype, {5})}, {},
                              exact ? 0.0 : (dtype == DType::f16 ? 1e-3 : 8e-3)));
    }
  }
  check_cases(cases);
}

// Random integers are in [-5, 5] (unsigned [0, 10]); divide and power get chosen operands
// below, since the reference rejects zero divisors and zero to a negative power.
TEST(LowerElementwise, IntegerOpsWrap) {
  std::vector<Case> cases;
  for (DType dtype : {DType::i8, DType::i16, DType::i32, DType::i64, DType::u8, DType::u16,
                      DType::u32, DType::u64}) {
    for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum"})
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                              {typed(dtype, {4, 3}), typed(dtype, {3})}, {}, 0.0));
    for (const char* op : {"nn.relu", "negative", "abs", "sign"})
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                              {typed(dtype, {2, 7})}, {}, 0.0));
  }
  check_cases(cases);
}

// Remainders of every sign combination, the least value by -1, u64 from 2^63 on.
TEST(LowerElementwise, IntegerModulo) {
  const std::vector<double> a = {7, -7, 7, -7, 0, 1, -1, 100, -100, 5, 127, -128};
  const std::vector<double> b = {3, 3, -3, -3, 3, -3, 3, 7, 7, 5, -1, -1};
  std::vector<Case> cases;
  for (const char* op : {"floor_mod", "trunc_mod"}) {
    for (DType dtype : {DType::i8, DType::i16, DType::i32, DType::i64})
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {make_tensor(dtype, {12}, a), make_tensor(dtype, {12}, b)}, {},
                                    0.0));
    cases.push_back(constant_case(
        fmt::format("u64 {}", op), op,
        {make_tensor(DType::u64, {9}, {0x1p63 + 4096, 0x1p64 - 2048, 10, 9, 8, 7, 6, 5, 4}),
         make_tensor(DType::u64, {9}, {10, 0x1p63, 3, 2, 8, 1, 4, 7, 3})},
        {}, 0.0));
    cases.push_back(constant_case(fmt::format("u8 {}", op), op,
                                  {make_tensor(DType::u8, {9}, {255, 254, 10, 9, 8, 7, 6, 5, 0}),
                                   make_tensor(DType::u8, {9}, {1, 3, 3, 2, 8, 1, 4, 7, 3})},
                                  {}, 0.0));
  }
  check_cases(cases);
}

TEST(LowerElementwise, Shifts) {
  std::vector<Case> cases;
  for (DType dtype : {DType::u8, DType::u16, DType::u32, DType::u64}) {
    double width = static_cast<double>(dtype_size(dtype) * 8);
    TensorPtr values = make_tensor(dtype, {8}, {1, 255, 3, 1, 128, 7, 0, 200});
    TensorPtr shifts = make_tensor(dtype, {8}, {3, 1, width, width - 1, 7, 0, 5, width + 1});
    for (const char* op : {"left_shift", "right_shift"})
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {values, shifts}, {}, 0.0));
  }
  check_cases(cases);
}

TEST(LowerElementwise, IntegerDivisionTruncates) {
  const std::vector<double> a = {7, -7, 7, -7, 0, 1, -1, 100, -100, 5, 127, -128};
  const std::vector<double> b = {2, 2, -2, -2, 3, -3, 3, 7, 7, 5, -1, -1};
  std::vector<Case> cases;
  for (DType dtype : {DType::i8, DType::i16, DType::i32, DType::i64})
    cases.push_back(constant_case(fmt::format("{} divide", dtype_name(dtype)), "divide",
                                  {make_tensor(dtype, {12}, a), make_tensor(dtype, {12}, b)}, {},
                                  0.0));
  // The least value divided by -1 wraps to itself; u64 divides unsigned.
  cases.push_back(constant_case(
      "i32 least / -1", "divide",
      {make_tensor(DType::i32, {9}, {-2147483648.0, 2147483647, -2147483647, 0, 1, 2, 3, 4, 5}),
       make_tensor(DType::i32, {9}, {-1, -1, 2, 1, 1, 1, 1, 1, 1})},
      {}, 0.0));
  cases.push_back(constant_case(
      "u64 divide", "divide",
      {make_tensor(DType::u64, {9}, {0x1p63 + 4096, 0x1p64 - 2048, 10, 9, 8, 7, 6, 5, 4}),
       make_tensor(DType::u64, {9}, {3, 0x1p63, 3, 2, 8, 1, 4, 7, 3})},
      {}, 0.0));
  for (DType dtype : {DType::u8, DType::u16, DType::u32})
    cases.push_back(constant_case(fmt::format("{} divide", dtype_name(dtype)), "divide",
                                  {make_tensor(dtype, {9}, {255, 254, 10, 9, 8, 7, 6, 5, 0}),
                                   make_tensor(dtype, {9}, {1, 3, 3, 2, 8, 1, 4, 7, 3})},
                                  {}, 0.0));
  check_cases(cases);
}

TEST(LowerElementwise, IntegerPowerWraps) {
  const std::vector<double> base = {2, -2, 3, 7, 1, -1, -1, 2, -3, 0, 5, 11};
  const std::vector<double> exponent = {10, 3, 40, 30, -5, -5, -4, -1, -2, 0, 0, 19};
  std::vector<Case> cases;
  for (DType dtype : {DType::i8, DType::i16, DType::i32, DType::i64})
    cases.push_back(constant_case(
        fmt::format("{} power", dtype_name(dtype)), "power",
        {make_tensor(dtype, {12}, base), make_tensor(dtype, {12}, exponent)}, {}, 0.0));
  for (DType dtype : {DType::u8, DType::u16, DType::u32, DType::u64})
    cases.push_back(constant_case(fmt::format("{} power", dtype_name(dtype)), "power",
                                  {make_tensor(dtype, {9}, {2, 3, 7, 1, 0, 5, 255, 10, 6}),
                                   make_tensor(dtype, {9}, {10, 40, 30, 50, 0, 3, 2, 19, 63})},
                                  {}, 0.0));
  check_cases(cases);
}

// NaN in either operand of maximum and minimum, signed zeros, infinities.
TEST(LowerElementwise, MaximumAndMinimumPropagateNaN) {
  const std::vector<double> a = {kNaN, 1, kNaN, -0.0, 0.0, kInf, -kInf, 2, -1, 3, kNaN, 0.5};
  const std::vector<double> b = {1, kNaN, kNaN, 0.0, -0.0, 1, 5, -kInf, -1, kInf, -kInf, 0.25};
  std::vector<Case> cases;
  for (DType dtype : {DType::f32, DType::f64, DType::f16}) {
    for (const char* op : {"maximum", "minimum", "add", "multiply", "divide", "power"})
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {make_tensor(dtype, {12}, a), make_tensor(dtype, {12}, b)}, {},
                                    0.0));
    for (const char* op : {"nn.relu", "negative", "abs", "sqrt", "log", "exp", "reciprocal"})
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {make_tensor(dtype, {12}, a)}, {},
                                    dtype == DType::f16 ? 1e-3 : 1e-6));
  }
  check_cases(cases);
}

TEST(LowerElementwise, UnaryMath) {
  std::vector<Case> cases;
  for (auto [dtype, tolerance] : {std::pair{DType::f32, 1e-6}, std::pair{DType::f64, 1e-12},
                                  std::pair{DType::f16, 1e-3}, std::pair{DType::bf16, 8e-3}}) {
    for (const char* op : {"nn.relu", "negative", "abs",        "sigmoid", "tanh", "exp",   "log",
                           "sqrt",    "erf",      "reciprocal", "sin",     "cos",  "tan",   "atan",
                           "sinh",    "cosh",     "asinh",      "floor",   "ceil", "round", "sign"})
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                              {typed(dtype, {3, 7})}, {}, tolerance));
  }
  check_cases(cases);
}

// The inverse functions inside and outside their domains, halves for round.
TEST(LowerElementwise, InverseFunctionsAndRounding) {
  const std::vector<double> values = {-2,  -1,  -0.75, -0.5, 0,    0.25, 0.5,   1,
                                      1.5, 2.5, 3,     10,   kNaN, kInf, -kInf, -0.0};
  std::vector<Case> cases;
  for (auto [dtype, tolerance] :
       {std::pair{DType::f32, 1e-6}, std::pair{DType::f64, 1e-12}, std::pair{DType::f16, 1e-3}}) {
    for (const char* op :
         {"asin", "acos", "atan", "asinh", "acosh", "atanh", "floor", "ceil", "round", "sign"})
      cases.push_back(constant_case(fmt::format("{} {}", dtype_name(dtype), op), op,
                                    {make_tensor(dtype, {16}, values)}, {}, tolerance));
  }
  check_cases(cases);
}

// Every pair of dtypes, from values that cover each type's edges: fractions, halves,
// values beyond each integer range (saturated), NaN (to 0, or true), infinities.
TEST(LowerElementwise, CastBetweenEveryPairOfDTypes) {
  const std::vector<double> floats = {-1e20, -3e9, -40000, -129.7, -1.5,    -0.5,   -0.0,
                                      0.5,   1.5,  127.5,  200.3,  3e9,     7e4,    1e20,
                                      kNaN,  kInf, -kInf,  65504,  1.0 / 3, 0x1p-20};
  const std::vector<double> ints = {-9e15, -3e9, -70000,   -129, -128,     -1,    0,
                                    1,     127,  128,      255,  256,      65535, 65536,
                                    3e9,   9e15, 16842753, 2049, 12345678, -5};
  std::vector<Case> cases;
  for (DType from : test::kAllDTypes) {
    const std::vector<double>& values = is_float(from) ? floats : ints;
    TensorPtr input = make_tensor(from, {20}, values);
    for (DType to : test::kAllDTypes)
      cases.push_back(constant_case(fmt::format("{} to {}", dtype_name(from), dtype_name(to)),
                                    "cast", {input},
                                    make_attrs({{"dtype", std::string(dtype_name(to))}}), 0.0));
  }
  check_cases(cases);
}

}  // namespace
}  // namespace uma::testing_lower
