// Unit tests of the reference interpreter and of random_inputs.
#include "uma/runtime/interpreter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::f32;
using test::make_attrs;
using test::make_tensor;
using test::values_of;

Type tensor(Shape shape, DType dtype = DType::f32) { return TensorType{dtype, std::move(shape)}; }

class InterpreterTest : public ::testing::Test {
 protected:
  InterpreterTest() : module(ctx), main(*module.add_function("main").value()), b(main) {}

  std::vector<TensorPtr> run(const std::vector<TensorPtr>& arguments) {
    auto outputs = interpret(main, arguments);
    EXPECT_TRUE(outputs.ok()) << outputs.error().message();
    return outputs.ok() ? *outputs : std::vector<TensorPtr>{};
  }

  std::string error(const std::vector<TensorPtr>& arguments) {
    auto outputs = interpret(main, arguments);
    return outputs.ok() ? "(no error)" : outputs.error().message();
  }

  Context ctx;
  Module module;
  Function& main;
  Builder b;
};

TEST_F(InterpreterTest, RunsNodesInOrder) {
  Value* x = main.add_param(tensor({2, 2}), "x");
  Value* y = main.add_param(tensor({2}), "y");
  Value* relu = b.value("nn.relu", {x});
  Value* sum = b.value("add", {relu, y});
  main.set_outputs({sum, x});
  std::vector<TensorPtr> outputs = run({f32({2, 2}, {-1, 2, 3, -4}), f32({2}, {10, 20})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(values_of(*outputs[0]), (std::vector<double>{10, 22, 13, 20}));
  EXPECT_EQ(values_of(*outputs[1]), (std::vector<double>{-1, 2, 3, -4}));
}

TEST_F(InterpreterTest, ConstantsAndMultipleResults) {
  Value* x = main.add_param(tensor({1, 4}), "x");
  Value* w = b.constant(f32({1, 4}, {1, 2, 3, 4}));
  Value* scaled = b.value("multiply", {x, w});
  Node* split =
      b.create("split", {scaled},
               make_attrs({{"axis", std::int64_t{1}}, {"sizes", std::vector<std::int64_t>{1, 3}}}));
  main.set_outputs({split->result(1), split->result(0)});
  std::vector<TensorPtr> outputs = run({f32({1, 4}, {1, 1, 2, 2})});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(values_of(*outputs[0]), (std::vector<double>{2, 6, 8}));
  EXPECT_EQ(values_of(*outputs[1]), (std::vector<double>{1}));
}

TEST_F(InterpreterTest, CallsRunTheCallee) {
  Function& helper = *module.add_function("helper").value();
  {
    Builder hb(helper);
    Value* a = helper.add_param(tensor({3}), "a");
    Value* bb = helper.add_param(tensor({3}), "b");
    helper.set_outputs({hb.value("subtract", {a, bb}), a});
  }
  Value* x = main.add_param(tensor({3}), "x");
  Node* call = b.call(&helper, {x, b.value("exp", {x})});
  main.set_outputs({b.value("negative", {call->result(0)}), call->result(1)});
  std::vector<TensorPtr> outputs = run({f32({3}, {0, 1, -1})});
  ASSERT_EQ(outputs.size(), 2u);
  std::vector<double> result = values_of(*outputs[0]);
  std::vector<double> in = {0, 1, -1};
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_FLOAT_EQ(result[i], static_cast<float>(std::exp(in[i]) - in[i]));
  EXPECT_EQ(values_of(*outputs[1]), in);
}

TEST_F(InterpreterTest, TuplesAreFlattenedAtTheBoundary) {
  // @pair(%t: tuple<tensor<2>, tuple<tensor<1>, tensor<2>>>) returns its fields reordered.
  Function& pair = *module.add_function("pair").value();
  {
    Builder pb(pair);
    Value* t = pair.add_param(TupleType{{tensor({2}), TupleType{{tensor({1}), tensor({2})}}}}, "t");
    Value* first = pb.get_item(t, 0);
    Value* inner = pb.get_item(t, 1);
    Value* last = pb.get_item(inner, 1);
    pair.set_outputs({pb.tuple({pb.value("add", {first, last}), pb.get_item(inner, 0)}), first});
  }
  std::vector<TensorPtr> arguments = {f32({2}, {1, 2}), f32({1}, {5}), f32({2}, {10, 20})};
  auto outputs = interpret(pair, arguments);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  ASSERT_EQ(outputs->size(), 3u);
  EXPECT_EQ(values_of(*(*outputs)[0]), (std::vector<double>{11, 22}));
  EXPECT_EQ(values_of(*(*outputs)[1]), (std::vector<double>{5}));
  EXPECT_EQ(values_of(*(*outputs)[2]), (std::vector<double>{1, 2}));

  // A call passes tuples through whole; only interpret's own boundary is flat.
  Value* a = main.add_param(tensor({2}), "a");
  Value* c = main.add_param(tensor({1}), "c");
  Node* call = b.call(&pair, {b.tuple({a, b.tuple({c, a})})});
  main.set_outputs({b.get_item(call->result(0), 1), call->result(1)});
  std::vector<TensorPtr> outputs2 = run({f32({2}, {3, 4}), f32({1}, {9})});
  ASSERT_EQ(outputs2.size(), 2u);
  EXPECT_EQ(values_of(*outputs2[0]), (std::vector<double>{9}));
  EXPECT_EQ(values_of(*outputs2[1]), (std::vector<double>{3, 4}));

  EXPECT_EQ(random_inputs(pair, 1).size(), 3u);
  EXPECT_EQ(interpret(pair, {arguments[0]}).error().message(), "@pair takes 3 argument(s), got 1");
  EXPECT_EQ(interpret(pair, {arguments[0], arguments[0], arguments[2]}).error().message(),
            "argument 1 of @pair is tensor<2xf32>, but parameter 0 (%t) expects tensor<1xf32> "
            "there (its tuple type tuple<tensor<2xf32>, tuple<tensor<1xf32>, tensor<2xf32>>> is "
            "passed flattened)");
}

TEST_F(InterpreterTest, ArgumentErrors) {
  main.add_param(tensor({2}), "x");
  main.add_param(tensor({3}, DType::i32));
  main.set_outputs({main.param(0)});
  EXPECT_EQ(error({f32({2}, {1, 2})}), "@main takes 2 argument(s), got 1");
  EXPECT_EQ(error({f32({3}, {1, 2, 3}), make_tensor(DType::i32, {3}, {1, 2, 3})}),
            "argument 0 of @main is tensor<3xf32>, but parameter 0 (%x) is tensor<2xf32>");
  EXPECT_EQ(error({f32({2}, {1, 2}), f32({3}, {1, 2, 3})}),
            "argument 1 of @main is tensor<3xf32>, but parameter 1 is tensor<3xi32>");
  EXPECT_EQ(error({nullptr, make_tensor(DType::i32, {3}, {1, 2, 3})}),
            "argument 0 of @main is null");
  EXPECT_EQ(error({Tensor::without_data(TensorType{DType::f32, {2}}),
                   make_tensor(DType::i32, {3}, {1, 2, 3})}),
            "argument 0 of @main has no data");
}

TEST_F(InterpreterTest, KernelErrorsNameTheNode) {
  Value* x = main.add_param(tensor({2}, DType::i64));
  Node* divide = b.create("divide", {x, x}, {}, "ratio");
  main.set_outputs({divide->result()});
  EXPECT_EQ(error({make_tensor(DType::i64, {2}, {1, 0})}),
            "node 'ratio' (divide): integer division by zero");

  // Errors inside a callee carry the call's location too.
  Function& outer = *module.add_function("outer").value();
  Builder ob(outer);
  Value* y = outer.add_param(tensor({2}, DType::i64));
  outer.set_outputs({ob.value("nn.relu", {ob.call(&main, {y})->result()})});
  auto result = interpret(outer, {make_tensor(DType::i64, {2}, {0, 1})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(),
            "node #0 (call) in function @outer: node 'ratio' (divide): integer division by zero");
}

TEST_F(InterpreterTest, ConstantWithoutDataIsAnError) {
  auto elided = Tensor::without_data(TensorType{DType::f32, {2}});
  elided->name = "w";
  main.set_outputs({b.constant(elided)});
  EXPECT_EQ(error({}),
            "node #0 (constant) in function @main: constant 'w' has no data (it was printed with "
            "its data elided)");
}

TEST_F(InterpreterTest, OpWithoutKernelIsAnError) {
  ASSERT_TRUE(ctx.ops()
                  .add({.name = "test.opaque",
                        .min_inputs = 1,
                        .max_inputs = 1,
                        .infer = [](const std::vector<Type>& in,
                                    const AttrMap&) -> Expected<std::vector<Type>> { return in; }})
                  .ok());
  Value* x = main.add_param(tensor({2}));
  Value* relu = b.value("nn.relu", {x});
  main.set_outputs({b.create("test.opaque", {relu}, {}, "mystery")->result()});
  EXPECT_EQ(error({f32({2}, {1, 2})}),
            "node 'mystery' (test.opaque): op test.opaque has no reference kernel");
}

TEST_F(InterpreterTest, KernelDisagreeingWithInferenceIsReported) {
  ASSERT_TRUE(ctx.ops()
                  .add({.name = "test.buggy",
                        .min_inputs = 1,
                        .max_inputs = 1,
                        .infer = [](const std::vector<Type>& in,
                                    const AttrMap&) -> Expected<std::vector<Type>> { return in; },
                        .kernel = [](const std::vector<TensorPtr>&, const AttrMap&,
                                     const std::vector<Type>&) -> Expected<std::vector<TensorPtr>> {
                          return std::vector<TensorPtr>{f32({1}, {0})};
                        }})
                  .ok());
  Value* x = main.add_param(tensor({2}));
  main.set_outputs({b.value("test.buggy", {x})});
  EXPECT_EQ(error({f32({2}, {1, 2})}),
            "node #0 (test.buggy) in function @main: the kernel of op test.buggy returned "
            "tensor<1xf32> for result 0, expected tensor<2xf32> (a bug in the kernel)");
}

TEST_F(InterpreterTest, RecursionIsRefused) {
  Value* x = main.add_param(tensor({2}));
  main.set_outputs({x});
  Node* self = b.call(&main, {x});
  main.set_outputs({self->result()});
  EXPECT_EQ(error({f32({2}, {1, 2})}),
            "node #0 (call) in function @main: @main calls itself (directly or through other "
            "functions); the interpreter cannot run recursion");
}

TEST_F(InterpreterTest, NodesOutOfOrderAreAnError) {
  Value* x = main.add_param(tensor({2}));
  Value* e = b.value("exp", {x});
  Value* n = b.value("negative", {e});
  main.set_outputs({n});
  main.move_node(n->producer(), e->producer());
  EXPECT_EQ(error({f32({2}, {1, 2})}),
            "node #0 (negative) in function @main: an operand is not computed before the node "
            "(the function is not in topological order; verify it first)");
}

// Records, when it runs, whether the tensors it watches are still alive.
struct Liveness {
  std::vector<std::weak_ptr<const Tensor>> watched;
  std::vector<bool> alive_at_check;
};

TEST_F(InterpreterTest, IntermediatesAreReleasedAfterTheirLastUse) {
  auto liveness = std::make_shared<Liveness>();
  auto same_type = [](const std::vector<Type>& in, const AttrMap&) -> Expected<std::vector<Type>> {
    return in;
  };
  // test.watch copies its operand and remembers the copy; test.check records which
  // watched copies are still alive.
  ASSERT_TRUE(
      ctx.ops()
          .add({.name = "test.watch",
                .min_inputs = 1,
                .max_inputs = 1,
                .infer = same_type,
                .kernel = [liveness](const std::vector<TensorPtr>& in, const AttrMap&,
                                     const std::vector<Type>&) -> Expected<std::vector<TensorPtr>> {
                  auto copy = std::make_shared<Tensor>(in[0]->type());
                  std::copy(in[0]->bytes().begin(), in[0]->bytes().end(), copy->bytes().begin());
                  liveness->watched.push_back(copy);
                  return std::vector<TensorPtr>{copy};
                }})
          .ok());
  ASSERT_TRUE(
      ctx.ops()
          .add({.name = "test.check",
                .min_inputs = 1,
                .max_inputs = 1,
                .infer = same_type,
                .kernel = [liveness](const std::vector<TensorPtr>& in, const AttrMap&,
                                     const std::vector<Type>&) -> Expected<std::vector<TensorPtr>> {
                  for (const auto& w : liveness->watched)
                    liveness->alive_at_check.push_back(!w.expired());
                  return in;
                }})
          .ok());
  Value* x = main.add_param(tensor({2}));
  Value* used_once = b.value("test.watch", {x});
  b.value("test.watch", {x});  // never used
  Value* kept = b.value("test.watch", {x});
  Value* later = b.value("exp", {used_once});
  Value* checked = b.value("test.check", {later});
  main.set_outputs({b.value("add", {checked, kept}), kept});
  run({f32({2}, {1, 2})});
  // At the check: the first copy was read for the last time by exp, the second never,
  // the third is still needed (by add, and as an output).
  EXPECT_EQ(liveness->alive_at_check, (std::vector<bool>{false, false, true}));
}

TEST_F(InterpreterTest, ModuleRunsMain) {
  Value* x = main.add_param(tensor({1}));
  main.set_outputs({b.value("negative", {x})});
  auto outputs = interpret(module, {f32({1}, {2})});
  ASSERT_TRUE(outputs.ok());
  EXPECT_EQ(values_of(*(*outputs)[0]), (std::vector<double>{-2}));
  Module empty(ctx, "nothing");
  EXPECT_EQ(interpret(empty, {}).error().message(), "module @nothing has no function @main");
}

TEST_F(InterpreterTest, RandomInputsAreDeterministicAndInRange) {
  main.add_param(tensor({64, 64}));
  main.add_param(tensor({1000}, DType::i32));
  main.add_param(tensor({1000}, DType::u8));
  main.add_param(tensor({1000}, DType::boolean));
  main.add_param(tensor({1000}, DType::bf16));
  main.add_param(tensor({}, DType::i64));
  std::vector<TensorPtr> first = random_inputs(main, 42);
  std::vector<TensorPtr> again = random_inputs(main, 42);
  std::vector<TensorPtr> other = random_inputs(main, 43);
  ASSERT_EQ(first.size(), 6u);
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i]->type(), main.param(i)->type().tensor());
    EXPECT_TRUE(first[i]->same_contents(*again[i])) << i;
  }
  EXPECT_FALSE(first[0]->same_contents(*other[0]));

  auto range = [](const Tensor& t) {
    std::vector<double> v = values_of(t);
    return std::pair(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
  };
  auto [f_min, f_max] = range(*first[0]);
  EXPECT_GE(f_min, -1.0);
  EXPECT_LT(f_max, 1.0);
  EXPECT_LT(f_min, -0.9);  // 4096 draws cover the interval
  EXPECT_GT(f_max, 0.9);
  EXPECT_EQ(range(*first[1]), std::pair(-5.0, 5.0));
  EXPECT_EQ(range(*first[2]), std::pair(0.0, 10.0));
  EXPECT_EQ(range(*first[3]), std::pair(0.0, 1.0));
  auto [h_min, h_max] = range(*first[4]);
  EXPECT_GE(h_min, -1.0);
  EXPECT_LT(h_max, 1.0);
  // The same function with the same seed runs to the same result.
  main.set_outputs({main.param(0)});
  EXPECT_TRUE(run(first)[0]->same_contents(*first[0]));
}

}  // namespace
}  // namespace uma
