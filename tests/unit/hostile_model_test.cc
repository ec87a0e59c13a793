// Models a careless or hostile user can write: long chains, wide operand lists and deep call
// chains must interpret and build in time linear in their size, or be refused with a clear
// error, never overflow the stack.
#include <gtest/gtest.h>

#include "build_check.h"
#include "c_test_util.h"
#include "tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/graph/pass.h"
#include "uma/graph/verifier.h"
#include "uma/lower/lower.h"
#include "uma/runtime/interpreter.h"
#include "uma/runtime/memory_budget.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

TensorPtr filled(Shape shape, float value) {
  auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
  for (std::int64_t i = 0; i < t->num_elements(); ++i) t->set(i, value);
  return t;
}

class HostileModelTest : public ::testing::Test {
 protected:
  HostileModelTest() : module(ctx), main(*module.add_function("main").value()), b(main) {}

  // @main(x) = x + x + ... : `length` adds, each reading the one before and x.
  void add_chain(std::size_t length) {
    Value* x = main.add_param(tensor({4}), "x");
    Value* v = x;
    for (std::size_t i = 0; i < length; ++i) v = b.value("add", {v, x});
    main.set_outputs({v});
  }

  // @main(x) = concatenate(x, x, ...) along its only axis, `width` operands.
  void wide_concat(std::size_t width) {
    Value* x = main.add_param(tensor({1}), "x");
    main.set_outputs({b.value("concatenate", std::vector<Value*>(width, x))});
  }

  build::HostBuild build_and_check() {
    build::BuildOptions options;
    options.compiler.cache_dir = testing_c::run_cache_dir();
    return testing_build::build_and_check(
        main, 1, [&] { return build::build(module, {"c"}, options); }, 1e-5, 1e-6);
  }

  Context ctx;
  Module module;
  Function& main;
  Builder b;
};

TEST_F(HostileModelTest, HundredThousandNodeChainInterprets) {
  add_chain(100000);
  ASSERT_TRUE(verify(module).ok());
  auto outputs = interpret(main, {filled({4}, 1.0f)});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ((*outputs)[0]->get(3), 100001.0);
}

// fuse-ops merges the chain in linear time and cuts it into functions of at most 256 nodes,
// so that no expression lowering makes from one is deeper than that.
TEST_F(HostileModelTest, HundredThousandNodeChainFusesIntoBoundedFunctions) {
  add_chain(100000);
  PassManager passes;
  passes.add(create_fuse_ops_pass());
  ASSERT_TRUE(passes.run(module).ok());
  EXPECT_EQ(module.functions().size(), 1 + (100000 + 255) / 256);
  EXPECT_EQ(main.num_nodes(), (100000 + 255) / 256);
}

// Compiled at a size whose C compiles in about a second: the C compiler's time grows with
// the chain (about 80 ms per function of 256 adds), not lowering's.
TEST_F(HostileModelTest, LongChainBuildsAndMatchesTheInterpreter) {
  add_chain(2000);
  build::HostBuild built = build_and_check();
  EXPECT_EQ(built.functions, 8);
}

TEST_F(HostileModelTest, TenThousandOperandConcatInterprets) {
  wide_concat(10000);
  ASSERT_TRUE(verify(module).ok());
  auto outputs = interpret(main, {filled({1}, 2.0f)});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ((*outputs)[0]->num_elements(), 10000);
  EXPECT_EQ((*outputs)[0]->get(9999), 2.0);
}

// Lowering picks the operand by a balanced tree of selects, as deep as log2 of the width.
// The C compiler takes about 1.4 s per 1000 operands, so the build is tested narrower.
TEST_F(HostileModelTest, WideConcatBuildsAndMatchesTheInterpreter) {
  wide_concat(500);
  build_and_check();
}

// @f0 calls @f1 ... calls @f<depth - 1>, which adds; @main calls @f0.
void call_chain(Module& module, std::size_t depth) {
  std::vector<Function*> chain;
  for (std::size_t i = 0; i < depth; ++i)
    chain.push_back(module.add_function(fmt::format("f{}", i)).value());
  for (std::size_t i = depth; i-- > 0;) {
    Function& f = *chain[i];
    Value* x = f.add_param(tensor({4}), "x");
    Builder fb(f);
    f.set_outputs(
        {i + 1 == depth ? fb.value("add", {x, x}) : fb.call(chain[i + 1], {x})->result()});
  }
  Function& main = *module.find_function("main");
  Value* x = main.add_param(tensor({4}), "x");
  main.set_outputs({Builder(main).call(chain.front(), {x})->result()});
}

TEST_F(HostileModelTest, CallChainAsDeepAsAllowedInterprets) {
  call_chain(module, kMaxCallDepth - 1);
  ASSERT_TRUE(verify(module).ok());
  auto outputs = interpret(module, {filled({4}, 1.5f)});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ((*outputs)[0]->get(0), 3.0);
}

TEST_F(HostileModelTest, TenThousandDeepCallChainIsRefused) {
  call_chain(module, 10000);
  Status status = verify(module);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "function @f9743: calls nest more than 256 functions deep (through @f9744); the "
            "interpreter follows calls on its stack, so a deeper chain is refused");
}

// A valid shape of 160 GB is refused before anything is allocated, naming the node.
TEST_F(HostileModelTest, AValueLargerThanTheMemoryBudgetIsRefused) {
  Value* x = main.add_param(tensor({4}), "x");
  Node* big = b.create("broadcast_to", {x},
                       test::make_attrs({{"shape", std::vector<std::int64_t>{100000, 100000, 4}}}));
  big->set_name("big");
  main.set_outputs({big->result()});
  ASSERT_TRUE(verify(module).ok());
  std::uint64_t budget = runtime::default_memory_budget();
  if (budget >= 160000000000u) GTEST_SKIP() << "this machine has memory for the value";
  Status status = runtime::check_memory_budget(module, budget);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            fmt::format("node 'big' (broadcast_to): its result tensor<100000x100000x4xf32> takes "
                        "160000000000 bytes, more than the memory budget of {} bytes "
                        "(--memory-budget)",
                        budget));
  EXPECT_TRUE(runtime::check_memory_budget(module, 160000000000u).ok());
}

}  // namespace
}  // namespace uma
