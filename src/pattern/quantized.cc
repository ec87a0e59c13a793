// Patterns of the quantized ops as the ONNX importer writes them (uma/pattern/quantized.h).
#include "uma/pattern/quantized.h"

namespace uma {

PatternPtr quantized_conv(const std::string& conv_op) {
  PatternPtr widened = is_op("cast", {wildcard()});
  PatternPtr data = alt(is_op("subtract", {widened, is_constant()}), widened);
  PatternPtr conv = alt(is_op(conv_op, {data, is_constant(), is_constant()}),
                        is_op(conv_op, {data, is_constant()}));
  PatternPtr scaled =
      is_op("multiply", {is_op("cast", {has_dtype(conv, DType::i32)}), is_constant()});
  PatternPtr rounded = is_op("round", {scaled});
  PatternPtr shifted = alt(is_op("add", {rounded, is_constant()}), rounded);
  return is_op("cast", {is_op("clip", {shifted})});
}

}  // namespace uma
