// GCC vector types and their helpers. Loads and stores go through __builtin_memcpy, which
// the C compiler makes one unaligned vector move without breaking the aliasing rules; the
// lane-by-lane helpers are loops over GCC's vector subscripts, which it turns into one
// vector instruction where the CPU has one (vfmadd, vmaxps) and into lanes elsewhere.
#include "vector_types.h"

#include <fmt/format.h>

#include "c_types.h"

namespace uma::codegen {

using tir::DataType;

bool has_vector_type(DataType type) {
  if (type.handle || type.lanes < 2) return false;
  switch (type.dtype) {
    case DType::f32:
    case DType::f64:
    case DType::i32:
    case DType::i64:
      break;
    default:
      return false;
  }
  std::size_t bytes = dtype_size(type.dtype) * type.lanes;
  return (type.lanes & (type.lanes - 1)) == 0 && bytes <= 256;
}

std::string use_vector_type(HelperSet& helpers, DataType type) {
  std::string name = fmt::format("uma_{}x{}", helper_suffix(type.dtype), type.lanes);
  helpers.use_generated(
      name, {},
      fmt::format("typedef {} {} __attribute__((vector_size({})));\n", value_type(type.dtype), name,
                  dtype_size(type.dtype) * type.lanes));
  return name;
}

namespace {

std::string_view stem(VectorHelper helper) {
  switch (helper) {
    case VectorHelper::kLoad:
      return "vload";
    case VectorHelper::kStore:
      return "vstore";
    case VectorHelper::kSplat:
      return "vsplat";
    case VectorHelper::kFma:
      return "vfma";
    case VectorHelper::kMin:
      return "vmin";
    case VectorHelper::kMax:
      return "vmax";
  }
  return "";
}

}  // namespace

std::string use_vector_helper(HelperSet& helpers, VectorHelper helper, DataType type) {
  std::string vector = use_vector_type(helpers, type);
  std::string_view scalar = value_type(type.dtype), suffix = helper_suffix(type.dtype);
  std::string name = fmt::format("uma_{}_{}x{}", stem(helper), suffix, type.lanes);
  // The body of a lane-by-lane helper: v[uma_lane] = <lane>.
  auto lane_by_lane = [&](std::string_view params, std::string_view lane) {
    return fmt::format(
        "static inline {0} {1}({2}) {{\n"
        "  {0} v;\n"
        "  for (int uma_lane = 0; uma_lane < {3}; ++uma_lane) v[uma_lane] = {4};\n"
        "  return v;\n"
        "}}\n",
        vector, name, params, type.lanes, lane);
  };
  std::vector<std::string> calls = {vector};
  std::string text;
  switch (helper) {
    case VectorHelper::kLoad:
      text = fmt::format(
          "static inline {0} {1}(const {2}* p) {{\n"
          "  {0} v;\n"
          "  __builtin_memcpy(&v, p, sizeof v);\n"
          "  return v;\n"
          "}}\n",
          vector, name, scalar);
      break;
    case VectorHelper::kStore:
      text = fmt::format(
          "static inline void {1}({2}* p, {0} v) {{ __builtin_memcpy(p, &v, sizeof v); }}\n",
          vector, name, scalar);
      break;
    case VectorHelper::kSplat:
      text = lane_by_lane(fmt::format("{} s", scalar), "s");
      break;
    case VectorHelper::kFma:
      text = lane_by_lane(fmt::format("{0} a, {0} b, {0} c", vector),
                          fmt::format("fma{}(a[uma_lane], b[uma_lane], c[uma_lane])",
                                      type.dtype == DType::f64 ? "" : "f"));
      break;
    case VectorHelper::kMin:
    case VectorHelper::kMax: {
      std::string scalar_helper =
          fmt::format("uma_{}_{}", helper == VectorHelper::kMin ? "min" : "max", suffix);
      calls.push_back(scalar_helper);
      text = lane_by_lane(fmt::format("{0} a, {0} b", vector),
                          fmt::format("{}(a[uma_lane], b[uma_lane])", scalar_helper));
      break;
    }
  }
  helpers.use_generated(name, calls, text);
  return name;
}

std::string use_vector_sigmoid(HelperSet& helpers, DataType type) {
  std::string vector = use_vector_type(helpers, type);
  std::string ints = use_vector_type(helpers, DataType{DType::i32, type.lanes});
  std::string name = fmt::format("uma_vsigmoid_f32x{}", type.lanes);
  // Cephes' expf (x = n ln 2 + r, e^r by a polynomial, 2^n written into the exponent) in
  // vector arithmetic, with no call that would spill a tile's accumulators.
  std::string text = fmt::format(
      "static inline {0} {1}({0} a) {{\n"
      "  {0} x;\n"
      "  for (int uma_lane = 0; uma_lane < {3}; ++uma_lane) {{\n"
      "    float t = -a[uma_lane];\n"
      "    x[uma_lane] = t < -87.3f ? -87.3f : (t > 88.0f ? 88.0f : t);\n"
      "  }}\n"
      "  {0} n = x * 1.44269504088896341f + 12582912.0f;\n"
      "  n = n - 12582912.0f;\n"
      "  {0} r = x - n * 0.693359375f + n * 2.12194440e-4f;\n"
      "  {0} p = r * 1.9875691500e-4f + 1.3981999507e-3f;\n"
      "  p = p * r + 8.3334519073e-3f;\n"
      "  p = p * r + 4.1665795894e-2f;\n"
      "  p = p * r + 1.6666665459e-1f;\n"
      "  p = p * r + 5.0000001201e-1f;\n"
      "  p = p * (r * r) + r + 1.0f;\n"
      "  {2} e = (__builtin_convertvector(n, {2}) + 127) << 23;\n"
      "  return 1.0f / (1.0f + p * ({0})e);\n"
      "}}\n",
      vector, name, ints, type.lanes);
  helpers.use_generated(name, {vector, ints}, text);
  return name;
}

}  // namespace uma::codegen
