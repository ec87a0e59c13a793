// Definitions of the generated code's helpers.
#include "helpers.h"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "uma/support/error.h"

namespace uma::codegen {
namespace {

struct Helper {
  std::string name;
  std::vector<std::string> calls;  // helpers it calls
  std::string text;
};

struct TypeInfo {
  const char* suffix;
  const char* type;
};
constexpr TypeInfo kSignedTypes[] = {{"i32", "int32_t"}, {"i64", "int64_t"}};
constexpr TypeInfo kOrderedTypes[] = {{"i32", "int32_t"},  {"i64", "int64_t"}, {"u32", "uint32_t"},
                                      {"u64", "uint64_t"}, {"f32", "float"},   {"f64", "double"}};
constexpr TypeInfo kFloatTypes[] = {{"f32", "float"}, {"f64", "double"}};
struct IntegerTypeInfo {
  const char* suffix;
  const char* type;
  const char* unsigned_type;  // the unsigned type of its width, for wrapping arithmetic
};
constexpr IntegerTypeInfo kIntegerTypes[] = {{"i32", "int32_t", "uint32_t"},
                                             {"i64", "int64_t", "uint64_t"},
                                             {"u32", "uint32_t", "uint32_t"},
                                             {"u64", "uint64_t", "uint64_t"}};

// The erf series below 2: erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), in
// double; 32 terms reach 1e-14 at x = 2, where the largest term is about 10.
constexpr int kErfSeriesTerms = 32;
// The continued fraction of erfc from 2 on: 12 levels reach 1e-9 relative at x = 2.
constexpr int kErfcFractionDepth = 12;

// Vectorizable f32 exp, sigmoid, tanh and erf: computed in double with a polynomial exp
// good to about 1e-15 relative, so that rounding the result to float is within 1 ulp
// (the bound the tests assert is 2). They call no libm function that is not a single
// instruction (fabs, copysign) and select instead of branching, so that GCC vectorizes a
// lane loop around them (given -fno-trapping-math, which lets it compute both sides of a
// select); a NaN propagates through every step, so it needs no test of its own.
template <typename Add>
void add_vector_math(Add&& add) {
  // e^x = 2^n e^r, |r| <= ln2 / 2 (Cody-Waite, ln2 split so that n * hi is exact), e^r by a
  // degree-12 Taylor polynomial (error below 1e-15). 2^n is made from n's bits, which the
  // shift by 1.5 * 2^52 leaves in the low bits of `shifted`.
  // Horner from the highest term: p = 1/12!, then p = p * r + 1/k! down to k = 0.
  std::string horner;
  std::vector<std::int64_t> factorials = {1};
  for (int k = 1; k <= 12; ++k) factorials.push_back(factorials.back() * k);
  horner += fmt::format("  double p = 1.0 / {}.0;\n", factorials[12]);
  for (int k = 11; k >= 0; --k) horner += fmt::format("  p = p * r + 1.0 / {}.0;\n", factorials[k]);
  add("uma_exp_core", {},
      "static inline double uma_exp_core(double x) {\n"
      "  x = x < -708.0 ? -708.0 : (x > 708.0 ? 708.0 : x);\n"
      "  double shifted = x * 1.4426950408889634 + 0x1.8p52;\n"
      "  double n = shifted - 0x1.8p52;\n"
      "  double r = x - n * 0x1.62e42feep-1;\n"
      "  r = r - n * 0x1.a39ef35793c76p-33;\n" +
          horner +
          "  union { double d; uint64_t u; } scale = {shifted};\n"
          "  scale.u = (scale.u + 1023u) << 52;\n"
          "  return p * scale.d;\n"
          "}\n");
  add("uma_expf", {"uma_exp_core"},
      "static inline float uma_expf(float x) { return (float)uma_exp_core((double)x); }\n");
  add("uma_sigmoidf", {"uma_exp_core"},
      "static inline float uma_sigmoidf(float x) {\n"
      "  return (float)(1.0 / (1.0 + uma_exp_core(-(double)x)));\n"
      "}\n");
  // tanh |x| = 1 - 2 / (e^2|x| + 1), and its Taylor series below 2^-7, where the
  // subtraction would cancel; 1 in float from 20 on.
  add("uma_tanhf", {"uma_exp_core"},
      "static inline float uma_tanhf(float x) {\n"
      "  double z = fabs((double)x);\n"
      "  z = z > 20.0 ? 20.0 : z;\n"
      "  double z2 = z * z;\n"
      "  double large = 1.0 - 2.0 / (uma_exp_core(2.0 * z) + 1.0);\n"
      "  double small = z + z * z2 * (-1.0 / 3.0 + z2 * (2.0 / 15.0 + z2 * (-17.0 / 315.0 + "
      "z2 * (62.0 / 2835.0))));\n"
      "  return copysignf((float)(z < 0x1p-7 ? small : large), x);\n"
      "}\n");
  // erf: the alternating series below 2; from 2 on 1 - erfc, erfc by the continued fraction
  // e^-x^2 / sqrt(pi) * 2x / (2x^2 + 1 - 1*2 / (2x^2 + 5 - 3*4 / (2x^2 + 9 - ...))); 1 in
  // float from 4 on.
  std::string series;
  long double term = 1;  // 1 / n!
  std::vector<double> coefficients;
  for (int n = 0; n < kErfSeriesTerms; ++n) {
    if (n > 0) term /= n;
    coefficients.push_back(static_cast<double>((n % 2 ? -term : term) / (2 * n + 1)));
  }
  series += fmt::format("  double s = {:.17g};\n", coefficients.back());
  for (int n = kErfSeriesTerms - 2; n >= 0; --n)
    series += fmt::format("  s = s * z2 + {:.17g};\n", coefficients[n]);
  std::string fraction = fmt::format("  double t = w + {}.0;\n", 1 + 4 * kErfcFractionDepth);
  for (int k = kErfcFractionDepth; k >= 1; --k)
    fraction += fmt::format("  t = w + {}.0 - {}.0 / t;\n", 1 + 4 * (k - 1), (2 * k - 1) * (2 * k));
  add("uma_erff", {"uma_exp_core"},
      "static inline float uma_erff(float x) {\n"
      "  double z = fabs((double)x);\n"
      "  z = z > 4.0 ? 4.0 : z;\n"
      "  double z2 = z * z, w = 2.0 * z2;\n" +
          series + fraction +
          "  double erfc = uma_exp_core(-z2) * 1.1283791670955126 * z / t;\n"
          "  double y = z < 2.0 ? 1.1283791670955126 * z * s : 1.0 - erfc;\n"
          "  return copysignf((float)y, x);\n"
          "}\n");
}

// Every helper, in an order where callees come before callers.
std::vector<Helper> make_helpers() {
  std::vector<Helper> helpers;
  auto add = [&](std::string name, std::vector<std::string> calls, std::string text) {
    helpers.push_back({std::move(name), std::move(calls), std::move(text)});
  };
  // Floor division and modulo: C's / and % truncate toward zero.
  for (auto [suffix, type] : kSignedTypes) {
    add(fmt::format("uma_floordiv_{}", suffix), {},
        fmt::format("static inline {0} uma_floordiv_{1}({0} a, {0} b) {{\n"
                    "  {0} q = a / b;\n"
                    "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
                    "}}\n",
                    type, suffix));
    add(fmt::format("uma_floormod_{}", suffix), {},
        fmt::format("static inline {0} uma_floormod_{1}({0} a, {0} b) {{\n"
                    "  {0} r = a % b;\n"
                    "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
                    "}}\n",
                    type, suffix));
    add(fmt::format("uma_abs_{}", suffix), {},
        fmt::format("static inline {0} uma_abs_{1}({0} a) {{ return a < 0 ? -a : a; }}\n", type,
                    suffix));
  }
  // Integer division truncating toward zero, defined everywhere: C's `/` traps on a zero
  // divisor and on the least value divided by -1 (which wraps to itself here, as negation).
  // Integer powers by squaring in unsigned arithmetic, so that they wrap like repeated
  // multiplication; a negative exponent truncates the real power toward zero.
  for (auto [suffix, type, unsigned_type] : kIntegerTypes) {
    bool is_signed = type[0] == 'i';
    std::string minus_one =
        is_signed
            ? fmt::format("  if (b == -1) return ({0})(({1})0 - ({1})a);\n", type, unsigned_type)
            : "";
    add(fmt::format("uma_truncdiv_{}", suffix), {},
        fmt::format("static inline {0} uma_truncdiv_{1}({0} a, {0} b) {{\n"
                    "  if (b == 0) return 0;\n"
                    "{2}"
                    "  return a / b;\n"
                    "}}\n",
                    type, suffix, minus_one));
    std::string negative = is_signed ? "  if (exponent < 0) {\n"
                                       "    if (base == 1) return 1;\n"
                                       "    if (base == -1) return exponent % 2 == 0 ? 1 : -1;\n"
                                       "    return 0;\n"
                                       "  }\n"
                                     : "";
    add(fmt::format("uma_pow_{}", suffix), {},
        fmt::format("static inline {0} uma_pow_{1}({0} base, {0} exponent) {{\n"
                    "{3}"
                    "  {2} result = 1, b = ({2})base;\n"
                    "  for ({2} e = ({2})exponent; e > 0; e /= 2) {{\n"
                    "    if (e % 2 == 1) result *= b;\n"
                    "    b *= b;\n"
                    "  }}\n"
                    "  return ({0})result;\n"
                    "}}\n",
                    type, suffix, unsigned_type, negative));
  }
  for (auto [suffix, type] : kFloatTypes) {
    const char* f = suffix[1] == '3' ? "f" : "";
    add(fmt::format("uma_floormod_{}", suffix), {},
        fmt::format("static inline {0} uma_floormod_{1}({0} a, {0} b) {{\n"
                    "  {0} r = fmod{2}(a, b);\n"
                    "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
                    "}}\n",
                    type, suffix, f));
    add(fmt::format("uma_sigmoid_{}", suffix), {},
        fmt::format("static inline {0} uma_sigmoid_{1}({0} x) {{ return 1 / (1 + exp{2}(-x)); }}\n",
                    type, suffix, f));
    add(fmt::format("uma_rsqrt_{}", suffix), {},
        fmt::format("static inline {0} uma_rsqrt_{1}({0} x) {{ return 1 / sqrt{2}(x); }}\n", type,
                    suffix, f));
  }
  add_vector_math(add);
  // min/max as std::min/std::max: a NaN in the first operand propagates (relu of NaN is NaN).
  for (auto [suffix, type] : kOrderedTypes) {
    add(fmt::format("uma_min_{}", suffix), {},
        fmt::format("static inline {0} uma_min_{1}({0} a, {0} b) {{ return b < a ? b : a; }}\n",
                    type, suffix));
    add(fmt::format("uma_max_{}", suffix), {},
        fmt::format("static inline {0} uma_max_{1}({0} a, {0} b) {{ return a < b ? b : a; }}\n",
                    type, suffix));
  }
  // IEEE half and bfloat16, rounding to nearest even (as uma's own conversions do).
  add("uma_f16_to_f32", {},
      "static inline float uma_f16_to_f32(uint16_t h) {\n"
      "  union { uint32_t u; float f; } v;\n"
      "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;\n"
      "  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;\n"
      "  if (exponent == 0x1fu) {\n"
      "    v.u = sign | 0x7f800000u | (mantissa << 13);\n"
      "  } else if (exponent != 0) {\n"
      "    v.u = sign | ((exponent + 112) << 23) | (mantissa << 13);\n"
      "  } else {\n"
      "    float value = (float)mantissa * 0x1p-24f;\n"
      "    return sign ? -value : value;\n"
      "  }\n"
      "  return v.f;\n"
      "}\n");
  add("uma_f32_to_f16", {},
      "static inline uint16_t uma_f32_to_f16(float value) {\n"
      "  union { float f; uint32_t u; } v = {value};\n"
      "  uint16_t sign = (uint16_t)((v.u >> 16) & 0x8000u);\n"
      "  uint32_t abs_bits = v.u & 0x7fffffffu;\n"
      "  if (abs_bits > 0x7f800000u) return sign | 0x7e00u;\n"
      "  if (abs_bits >= 0x477ff000u) return sign | 0x7c00u;\n"
      "  if (abs_bits < 0x38800000u) {\n"
      "    union { uint32_t u; float f; } a = {abs_bits};\n"
      "    float magnitude = a.f * 0x1p24f;\n"
      "    uint32_t m = (uint32_t)magnitude;\n"
      "    float fraction = magnitude - (float)m;\n"
      "    if (fraction > 0.5f || (fraction == 0.5f && (m & 1u))) ++m;\n"
      "    return (uint16_t)(sign | m);\n"
      "  }\n"
      "  uint32_t rounded = abs_bits + 0xfffu + ((abs_bits >> 13) & 1u);\n"
      "  return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));\n"
      "}\n");
  add("uma_bf16_to_f32", {},
      "static inline float uma_bf16_to_f32(uint16_t h) {\n"
      "  union { uint32_t u; float f; } v = {(uint32_t)h << 16};\n"
      "  return v.f;\n"
      "}\n");
  add("uma_f32_to_bf16", {},
      "static inline uint16_t uma_f32_to_bf16(float value) {\n"
      "  union { float f; uint32_t u; } v = {value};\n"
      "  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40u);\n"
      "  return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);\n"
      "}\n");
  // A double rounded to float by rounding to odd: when inexact, the float toward zero with
  // its lowest bit set, from which rounding to f16 or bf16 is correctly rounded.
  add("uma_f64_to_f32_odd", {},
      "static inline float uma_f64_to_f32_odd(double x) {\n"
      "  float f = (float)x;\n"
      "  if (isnan(x) || (double)f == x) return f;\n"
      "  if (fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);\n"
      "  union { float f; uint32_t u; } v = {f};\n"
      "  v.u |= 1u;\n"
      "  return v.f;\n"
      "}\n");
  // Values cast to f16/bf16 but kept in a float: rounded to the narrower format.
  add("uma_round_f16", {"uma_f16_to_f32", "uma_f32_to_f16"},
      "static inline float uma_round_f16(float x) { return uma_f16_to_f32(uma_f32_to_f16(x)); "
      "}\n");
  add("uma_round_bf16", {"uma_bf16_to_f32", "uma_f32_to_bf16"},
      "static inline float uma_round_bf16(float x) { return uma_bf16_to_f32(uma_f32_to_bf16(x)); "
      "}\n");
  // The core's DMA functions (uma/tir/dma.h), where no backend's engine has its own: a copy
  // per row, done when the start returns.
  add("uma_dma_start", {},
      "static inline int32_t uma_dma_start(int64_t queue, void* dst, const void* src,\n"
      "                                    int64_t row_bytes, int64_t rows, int64_t dst_stride,\n"
      "                                    int64_t src_stride) {\n"
      "  (void)queue;\n"
      "  for (int64_t r = 0; r < rows; ++r)\n"
      "    __builtin_memcpy((char*)dst + r * dst_stride, (const char*)src + r * src_stride, (size_t)row_bytes);\n"
      "  return 0;\n"
      "}\n");
  add("uma_dma_wait", {},
      "static inline int32_t uma_dma_wait(int64_t queue) {\n"
      "  (void)queue;\n"
      "  return 0;\n"
      "}\n");
  // Heap scratch: aligned to 64 bytes; aligned_alloc wants a size that is a multiple of it.
  add("uma_alloc", {},
      "static inline void* uma_alloc(size_t bytes) {\n"
      "  size_t size = (bytes + 63) / 64 * 64;\n"
      "  return aligned_alloc(64, size ? size : 64);\n"
      "}\n");
  return helpers;
}

const std::vector<Helper>& all_helpers() {
  static const std::vector<Helper> helpers = make_helpers();
  return helpers;
}

const Helper* find_helper(std::string_view name) {
  for (const Helper& helper : all_helpers())
    if (helper.name == name) return &helper;
  return nullptr;
}

}  // namespace

void HelperSet::use(std::string_view name) {
  const Helper* helper = find_helper(name);
  UMA_CHECK(helper != nullptr, "no C helper named {}", name);
  if (!used_.insert(std::string(name)).second) return;
  for (const std::string& callee : helper->calls) use(callee);
}

void HelperSet::use_generated(std::string_view name, const std::vector<std::string>& calls,
                              const std::string& text) {
  if (!used_.insert(std::string(name)).second) return;
  for (const std::string& callee : calls)
    UMA_CHECK(used_.count(callee) != 0 || find_helper(callee) != nullptr,
              "C helper {} calls {}, which is not defined before it", name, callee);
  for (const std::string& callee : calls)
    if (find_helper(callee) != nullptr) use(callee);
  generated_.emplace_back(name, text);
}

std::string HelperSet::definitions() const {
  std::string text;
  for (const Helper& helper : all_helpers())
    if (used_.count(helper.name) != 0) text += helper.text;
  for (const auto& [name, definition] : generated_) text += definition;
  return text;
}

}  // namespace uma::codegen
