// Load-time state (uma/tir/state.h) on a hand-made function: its init fills the state from
// the weights, its body reads it and counts the runs in it, its fini reports the count;
// two executors of one program each keep their own; a failed init names its function.
#include <gtest/gtest.h>

#include <thread>

#include "c_test_util.h"
#include "tensor_util.h"
#include "uma/runtime/executor.h"
#include "uma/tir/printer.h"
#include "uma/tir/state.h"
#include "uma/tir/verifier.h"

namespace uma::runtime {
namespace {

using namespace tir;
using Kind = ArgLocation::Kind;

Stmt extern_call(const std::string& name, std::vector<Expr> args) {
  return EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), name, std::move(args),
                                           CallNode::CallKind::kExtern));
}

// out[i] = x[i] * (w[i] + 1) + runs, where init puts w[i] + 1 in state[0..3] and the body
// counts its runs in state[4]; the fini reports the count (test_fini below).
PrimFunc scale_by_state() {
  Buffer x = make_buffer("x", DType::f32, {Expr(4)});
  Buffer w = make_buffer("w", DType::u8, {Expr(4)});
  Buffer out = make_buffer("out", DType::f32, {Expr(4)});
  PrimFunc func;
  func.name = "scale";
  func.params = {x, w, out};
  func.num_inputs = 2;
  Buffer state = add_state(func, 8).value();
  Var i = VarNode::make("i"), j = VarNode::make("j");
  auto as_f32 = [](Expr e) { return CastNode::make(DataType::scalar(DType::f32), std::move(e)); };
  func.init = ForNode::make(i, Expr(0), Expr(4), ForKind::kSerial,
                            StoreNode::make(state, LoadNode::make(w, {i}) + 1, {i}));
  Stmt scale = StoreNode::make(out,
                               LoadNode::make(x, {j}) * as_f32(LoadNode::make(state, {j})) +
                                   as_f32(LoadNode::make(state, {Expr(4)})),
                               {j});
  func.body =
      SeqNode::make({ForNode::make(j, Expr(0), Expr(4), ForKind::kSerial, scale),
                     StoreNode::make(state, LoadNode::make(state, {Expr(4)}) + 1, {Expr(4)})});
  func.fini = extern_call("test_fini", {AddressNode::make(state, {Expr(0)})});
  return func;
}

// The same parameters, and an init that refuses to load (test_refuse).
PrimFunc refuser() {
  PrimFunc func = scale_by_state();
  func.name = "refuser";
  const Buffer& state = func.params.back();
  func.init = extern_call("test_refuse", {AddressNode::make(state, {Expr(0)})});
  func.fini = Stmt();
  return func;
}

// A test's own C: statics are fine here, the test reads them through the library.
constexpr const char* kTestExterns = R"(#include <stdint.h>
int64_t test_fini_sum;
int32_t test_fini(void* state) { test_fini_sum += 100 + ((uint8_t*)state)[4]; return 0; }
int32_t test_refuse(void* state) { (void)state; return -9; }
)";

class LoadStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    codegen::CCodegenOptions options;
    options.hooks.extern_status = true;
    auto built = testing_c::build({scale_by_state(), refuser()}, options,
                                  {CSourceFile{"test_externs", kTestExterns}});
    ASSERT_TRUE(built.ok()) << built.error().message();
    source = built->source;
    library = std::make_shared<const Library>(std::move(built->library));
    fini_sum = static_cast<std::int64_t*>(library->symbol("test_fini_sum").value());
  }

  PackedFunction function(const std::string& symbol) const {
    auto f = library->function(symbol);
    EXPECT_TRUE(f.ok()) << f.error().message();
    return f.ok() ? *f : nullptr;
  }

  // A program of one call of `scale` with weights `w`, then optionally one of `refuser`.
  std::shared_ptr<HostProgram> program(std::vector<double> w, bool refuse = false) const {
    auto p = std::make_shared<HostProgram>();
    p->inputs = {TensorType{DType::f32, {4}}};
    p->outputs = {TensorType{DType::f32, {4}}};
    p->weights = Weights::hold({test::make_tensor(DType::u8, {4}, std::move(w))}).value();
    auto call = [&](const codegen::CFunction& f, std::int64_t state) {
      std::vector<ArgLocation> args = {
          {Kind::kInput, 0}, {Kind::kWeight, 0}, {Kind::kOutput, 0}, {Kind::kState, state}};
      PackedFunction fini = f.fini_symbol.empty() ? nullptr : function(f.fini_symbol);
      return HostCall{f.name, function(f.symbol), args, function(f.init_symbol), fini};
    };
    p->calls = {call(source.functions[0], 0)};
    if (refuse) p->calls.push_back(call(source.functions[1], 64));
    p->state_size = refuse ? 128 : 64;
    p->library = library;
    return p;
  }

  codegen::CSource source;
  std::shared_ptr<const Library> library;
  std::int64_t* fini_sum = nullptr;
};

TEST_F(LoadStateTest, TheFunctionPrintsAndVerifiesWithItsInitAndFini) {
  PrimFunc func = scale_by_state();
  ASSERT_TRUE(verify(func).ok()) << verify(func).error().message();
  EXPECT_EQ(to_string(func),
            R"(func @scale(%x: f32[4], %w: u8[4]) -> (%out: f32[4], %state: u8[8] in "state") {
  for (j, 0, 4) {
    %out[j] = %x[j] * f32(%state[j]) + f32(%state[4])
  }
  %state[4] = %state[4] + 1u8
} init {
  for (i, 0, 4) {
    %state[i] = %w[i] + 1u8
  }
} fini {
  @extern test_fini<i32>(&%state[0])
}
)");
  EXPECT_EQ(source.functions[0].init_symbol, "scale_init");
  EXPECT_EQ(source.functions[0].fini_symbol, "scale_fini");
  EXPECT_EQ(source.functions[1].fini_symbol, "");
  EXPECT_NE(source.code.find("int32_t scale_init(void* const* args)"), std::string::npos);

  auto second = add_state(func, 4);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(), "func @scale: has a state already ('state')");
}

// Each executor has its own state: the inits fill them from each program's weights, and
// each counts its own runs, also when both run at once.
TEST_F(LoadStateTest, TwoExecutorsKeepTheirOwnState) {
  std::int64_t sum_before = *fini_sum;
  {
    auto a = Executor::create(program({1, 2, 3, 4}));
    auto b = Executor::create(program({0, 0, 0, 9}));
    ASSERT_TRUE(a.ok()) << a.error().message();
    ASSERT_TRUE(b.ok()) << b.error().message();
    auto runs = [](Executor& executor, int count, std::vector<std::vector<double>>& results) {
      for (int k = 0; k < count; ++k) {
        auto outputs = executor.run({test::f32({4}, {1, -1, 0.5, 2})});
        results.push_back(outputs.ok() ? test::values_of(*(*outputs)[0]) : std::vector<double>{});
      }
    };
    std::vector<std::vector<double>> results_a, results_b;
    std::thread thread_a(runs, std::ref(**a), 3, std::ref(results_a));
    std::thread thread_b(runs, std::ref(**b), 5, std::ref(results_b));
    thread_a.join();
    thread_b.join();
    // x * (w + 1) + the runs before this one.
    EXPECT_EQ(results_a,
              (std::vector<std::vector<double>>{{2, -3, 2, 10}, {3, -2, 3, 11}, {4, -1, 4, 12}}));
    ASSERT_EQ(results_b.size(), 5u);
    EXPECT_EQ(results_b[0], (std::vector<double>{1, -1, 0.5, 20}));
    EXPECT_EQ(results_b[4], (std::vector<double>{5, 3, 4.5, 24}));
  }
  // Both finis ran when the executors went: 100 + the runs each counted.
  EXPECT_EQ(*fini_sum - sum_before, 103 + 105);
}

TEST_F(LoadStateTest, AFailedInitNamesItsFunction) {
  std::int64_t sum_before = *fini_sum;
  auto failed = Executor::create(program({1, 2, 3, 4}, /*refuse=*/true));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message(), "the init of @refuser returned -9");
  // The call initialized before it was finished.
  EXPECT_EQ(*fini_sum - sum_before, 100);

  // Made by the constructor, the executor reports the failure on every run.
  Executor executor(program({1, 2, 3, 4}, /*refuse=*/true));
  EXPECT_FALSE(executor.load_status().ok());
  auto outputs = executor.run({test::f32({4}, {1, 1, 1, 1})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.error().message(), "the init of @refuser returned -9");
}

}  // namespace
}  // namespace uma::runtime
