// Lowered normalizations, softmax and reductions, compiled and compared with the reference
// interpreter.
#include "lower_test_util.h"
#include "tensor_util.h"
#include "uma/tir/schedule.h"

namespace uma::testing_lower {
namespace {

using Ints = std::vector<std::int64_t>;
using test::make_attrs;

TEST(LowerNorm, BatchNorm) {
  check_cases({
      op_case("axis 1", "nn.batch_norm",
              {f32({2, 3, 4, 4}), f32({3}), f32({3}), f32({3}), f32({3})}),
      op_case("axis -1, epsilon", "nn.batch_norm",
              {f32({2, 5}), f32({5}), f32({5}), f32({5}), f32({5})},
              make_attrs({{"axis", std::int64_t{-1}}, {"epsilon", 2.0}})),
  });
}

// The variance of random inputs is near 1/3: epsilon keeps the square root away from 0 for
// the (random, possibly negative) variance operand of batch_norm above; instance and layer
// norms compute theirs.
TEST(LowerNorm, InstanceAndLayerNorm) {
  check_cases({
      op_case("instance 2d", "nn.instance_norm", {f32({2, 3, 4, 5}), f32({3}), f32({3})}),
      op_case("instance 1d", "nn.instance_norm", {f32({1, 2, 7}), f32({2}), f32({2})},
              make_attrs({{"epsilon", 1e-3}})),
      op_case("layer, last axis", "nn.layer_norm", {f32({2, 3, 8}), f32({8}), f32({8})}),
      op_case("layer, axis 1", "nn.layer_norm", {f32({2, 3, 4}), f32({3, 4}), f32({4})},
              make_attrs({{"axis", std::int64_t{1}}})),
      op_case("layer, broadcast gamma, no beta", "nn.layer_norm", {f32({3, 2, 5}), f32({1, 5})},
              make_attrs({{"axis", std::int64_t{-2}}})),
  });
}

TEST(LowerNorm, Softmax) {
  check_cases({
      op_case("softmax last axis", "nn.softmax", {f32({2, 10})}),
      op_case("softmax axis 1", "nn.softmax", {f32({2, 3, 4})},
              make_attrs({{"axis", std::int64_t{1}}})),
      op_case("log_softmax axis 0", "nn.log_softmax", {f32({5, 3})},
              make_attrs({{"axis", std::int64_t{0}}})),
      op_case("log_softmax last axis", "nn.log_softmax", {f32({2, 2, 6})}),
  });
}

AttrMap axes(Ints values, std::int64_t keepdims) {
  return make_attrs({{"axes", values}, {"keepdims", keepdims}});
}

TEST(LowerNorm, HalfPrecision) {
  auto f16 = [](Shape shape) { return TensorType{DType::f16, std::move(shape)}; };
  auto bf16 = [](Shape shape) { return TensorType{DType::bf16, std::move(shape)}; };
  check_cases({
      op_case("f16 softmax", "nn.softmax", {f16({3, 8})}, {}, 1e-3),
      op_case("bf16 log_softmax", "nn.log_softmax", {bf16({3, 8})}, {}, 8e-3),
      op_case("f16 layer_norm", "nn.layer_norm", {f16({2, 6}), f16({6}), f16({6})}, {}, 1e-3),
      op_case("f16 mean", "mean", {f16({4, 6})}, axes({1}, 0), 1e-3),
  });
}

TEST(LowerReduce, FloatReductions) {
  check_cases({
      op_case("sum axis 1", "sum", {f32({3, 4, 5})}, axes({1}, 0)),
      op_case("sum keepdims", "sum", {f32({3, 4, 5})}, axes({0, 2}, 1)),
      op_case("mean of all", "mean", {f32({4, 6})}, axes({}, 0)),
      op_case("mean axis -1 keepdims", "mean", {f32({2, 3, 7})}, axes({-1}, 1)),
      op_case("max axes 0 2", "max", {f32({3, 4, 5})}, axes({0, 2}, 0)),
      op_case("min axis -2", "min", {f32({3, 4, 5})}, axes({-2}, 1)),
      op_case("prod axis 1", "prod", {f32({3, 4, 5})}, axes({1}, 0)),
      op_case("prod of all keepdims", "prod", {f32({2, 3})}, axes({}, 1)),
      // Over no elements: sum 0, max -inf, mean NaN (0 / 0), as the reference gives.
      op_case("sum of nothing", "sum", {f32({3, 0})}, axes({1}, 0)),
      op_case("prod of nothing", "prod", {f32({3, 0})}, axes({1}, 0)),
      op_case("max of nothing", "max", {f32({3, 0})}, axes({1}, 0)),
      op_case("mean of nothing", "mean", {f32({0, 2})}, axes({0}, 1)),
  });
}

// A reduction read by a larger pointwise op: its output is no epilogue of the reduction's
// loops, whose iterations cover only the reduction's own elements.
TEST(LowerReduce, ReductionIntoALargerConcatenation) {
  check_cases({Case{
      "sum, then concatenated",
      {f32({3, 5}), f32({3, 2})},
      [](Builder& b, const std::vector<Value*>& p) {
        Value* total = b.create("sum", {p[0]}, axes({1}, 1))->result();
        return b.create("concatenate", {total, p[1]}, make_attrs({{"axis", std::int64_t{1}}}))
            ->results();
      }}});
}

// What keeps it out: reverse_compute_at refuses to move the concatenation under the sum's
// loops.
TEST(LowerReduce, ALargerConsumerIsNoEpilogue) {
  Context context;
  Module module(context, "case");
  Function& main = **module.add_function("main");
  Builder b(main);
  Value* total = b.create("sum", {main.add_param(f32({3, 5}), "x")}, axes({1}, 1))->result();
  main.set_outputs(b.create("concatenate", {total, main.add_param(f32({3, 2}), "y")},
                            make_attrs({{"axis", std::int64_t{1}}}))
                       ->results());
  auto func = lower::lower_function(main, {.symbol = "f"});
  ASSERT_TRUE(func.ok()) << func.error().message();
  tir::Schedule sch(*func);
  auto sum = sch.get_block("sum");
  auto concatenate = sch.get_block("concatenate");
  ASSERT_TRUE(sum.ok() && concatenate.ok());
  auto loops = sch.get_loops(*sum);
  ASSERT_TRUE(loops.ok() && loops->size() == 3);
  Status moved = sch.reverse_compute_at(*concatenate, (*loops)[1]);
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.error().message(),
            "reverse_compute_at: block 'concatenate' computes %out beyond the elements of %sum "
            "that loop 'i1' writes (dimension 1); moved under it, it would leave the others "
            "unwritten");
}

TEST(LowerReduce, IntegerReductions) {
  auto i32 = [](Shape shape) { return TensorType{DType::i32, std::move(shape)}; };
  auto i8 = [](Shape shape) { return TensorType{DType::i8, std::move(shape)}; };
  auto u8 = [](Shape shape) { return TensorType{DType::u8, std::move(shape)}; };
  check_cases({
      op_case("i32 sum", "sum", {i32({4, 5})}, axes({1}, 0), 0),
      op_case("i8 mean truncates", "mean", {i8({3, 7})}, axes({1}, 0), 0),
      op_case("i8 max", "max", {i8({3, 7})}, axes({0}, 1), 0),
      op_case("u8 min of all", "min", {u8({3, 7})}, axes({}, 0), 0),
      op_case("u8 sum wraps", "sum", {u8({2, 60})}, axes({1}, 0), 0),
      op_case("i8 prod wraps", "prod", {i8({3, 7})}, axes({1}, 0), 0),
      op_case("u8 prod of all", "prod", {u8({2, 5})}, axes({}, 0), 0),
  });
}

// argmax and argmin, sharing their attributes.
TEST(LowerReduce, ArgmaxAndArgmin) {
  auto i32 = [](Shape shape) { return TensorType{DType::i32, std::move(shape)}; };
  auto argmax = [](std::int64_t axis, std::int64_t keepdims, std::int64_t last) {
    return make_attrs({{"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}});
  };
  check_cases({
      op_case("float axis 1", "argmax", {f32({3, 5, 2})}, argmax(1, 0, 0), 0),
      op_case("float axis -1 keepdims", "argmax", {f32({3, 6})}, argmax(-1, 1, 0), 0),
      // Integers in [-5, 5] tie often: first and last positions differ.
      op_case("ints, first", "argmax", {i32({4, 9})}, argmax(1, 0, 0), 0),
      op_case("ints, last", "argmax", {i32({4, 9})}, argmax(1, 1, 1), 0),
      op_case("ints axis 0, last", "argmax", {i32({9, 3})}, argmax(0, 0, 1), 0),
      op_case("argmin float axis 1", "argmin", {f32({3, 5, 2})}, argmax(1, 0, 0), 0),
      op_case("argmin ints, first", "argmin", {i32({4, 9})}, argmax(1, 0, 0), 0),
      op_case("argmin ints, last", "argmin", {i32({4, 9})}, argmax(1, 1, 1), 0),
      op_case("argmin ints axis 0, last", "argmin", {i32({9, 3})}, argmax(0, 0, 1), 0),
  });
}

TEST(LowerReduce, Cumsum) {
  auto i32 = [](Shape shape) { return TensorType{DType::i32, std::move(shape)}; };
  auto cumsum = [](std::int64_t axis, std::int64_t exclusive, std::int64_t reverse) {
    return make_attrs({{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}});
  };
  check_cases({
      op_case("axis 1", "cumsum", {f32({3, 5, 2})}, cumsum(1, 0, 0)),
      op_case("axis -1 exclusive", "cumsum", {f32({3, 6})}, cumsum(-1, 1, 0)),
      op_case("axis 0 reverse", "cumsum", {f32({4, 3})}, cumsum(0, 0, 1)),
      op_case("reverse exclusive", "cumsum", {f32({7})}, cumsum(0, 1, 1)),
      op_case("ints", "cumsum", {i32({4, 9})}, cumsum(1, 0, 0), 0),
  });
}

TEST(LowerReduce, Topk) {
  auto i32 = [](Shape shape) { return TensorType{DType::i32, std::move(shape)}; };
  auto topk = [](std::int64_t k, std::int64_t axis, std::int64_t largest) {
    return make_attrs({{"k", k}, {"axis", axis}, {"largest", largest}});
  };
  check_cases({
      op_case("largest, last axis", "topk", {f32({3, 7})}, topk(3, -1, 1), 0),
      op_case("smallest, axis 0", "topk", {f32({6, 2, 3})}, topk(2, 0, 0), 0),
      op_case("all of them", "topk", {f32({5})}, topk(5, 0, 1), 0),
      // Integers in [-5, 5] tie often: equal elements keep their order.
      op_case("ints, largest", "topk", {i32({4, 9})}, topk(4, 1, 1), 0),
      op_case("ints, smallest", "topk", {i32({9, 3})}, topk(6, 0, 0), 0),
  });
}

}  // namespace
}  // namespace uma::testing_lower
