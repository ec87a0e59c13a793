// Unit tests of the core graph passes: infer-types, dce, cse and fold-constant.
// They use small ops of their own (test.*), so they do not depend on the op library.
#include <gtest/gtest.h>

#include "uma/graph/rewriter.h"
#include "uma/graph/verifier.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

TensorType f32(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

TensorPtr filled(Shape shape, float value) {
  auto t = std::make_shared<Tensor>(f32(std::move(shape)));
  for (std::int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = value;
  return t;
}

std::vector<float> values_of(const Value* v) {
  const Node* producer = v->producer();
  EXPECT_TRUE(producer != nullptr && producer->is_op("constant"));
  const TensorPtr& t = producer->attrs().get_tensor("value");
  return std::vector<float>(t->data<float>(), t->data<float>() + t->num_elements());
}

Expected<std::vector<Type>> same_as_inputs(const std::vector<Type>& in, const AttrMap&) {
  for (const Type& t : in)
    if (!(t == in[0]))
      return make_error("operands differ: {} and {}", to_string(in[0]), to_string(t));
  return std::vector<Type>{in[0]};
}

Expected<std::vector<TensorPtr>> add_kernel(const std::vector<TensorPtr>& in, const AttrMap&,
                                            const std::vector<Type>& types) {
  auto out = std::make_shared<Tensor>(types[0].tensor());
  for (std::int64_t i = 0; i < out->num_elements(); ++i) out->set(i, in[0]->get(i) + in[1]->get(i));
  return std::vector<TensorPtr>{out};
}

// Ops with the traits the passes care about: kernels or none, one result or several,
// kernels that fail or misbehave, and a node whose results can be far larger than its
// operands.
void add_test_ops(OpRegistry& ops) {
  auto one = [](std::vector<TensorPtr> t) {
    return Expected<std::vector<TensorPtr>>(std::move(t));
  };
  std::vector<OpDef> defs = {
      {.name = "test.add",
       .min_inputs = 2,
       .max_inputs = 2,
       .infer = same_as_inputs,
       .kernel = add_kernel},
      {.name = "test.opaque", .min_inputs = 1, .max_inputs = 1, .infer = same_as_inputs},
      {.name = "test.identity",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = same_as_inputs,
       .kernel = [=](const std::vector<TensorPtr>& in, const AttrMap&,
                     const std::vector<Type>&) { return one({in[0]}); }},
      {.name = "test.split2",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = [](const std::vector<Type>& in, const AttrMap&) -> Expected<std::vector<Type>> {
         TensorType half = in[0].tensor();
         half.shape[0] /= 2;
         return std::vector<Type>{half, half};
       },
       .kernel =
           [=](const std::vector<TensorPtr>& in, const AttrMap&, const std::vector<Type>& types) {
             auto a = std::make_shared<Tensor>(types[0].tensor());
             auto b = std::make_shared<Tensor>(types[1].tensor());
             std::int64_t n = a->num_elements();
             for (std::int64_t i = 0; i < n; ++i) {
               a->set(i, in[0]->get(i));
               b->set(i, in[0]->get(n + i));
             }
             return one({a, b});
           }},
      {.name = "test.broadcast",
       .min_inputs = 1,
       .max_inputs = 1,
       .attrs = {{"shape", AttrKind::Ints, std::nullopt}},
       .infer = [](const std::vector<Type>& in,
                   const AttrMap& attrs) -> Expected<std::vector<Type>> {
         return std::vector<Type>{TensorType{in[0].tensor().dtype, attrs.get_ints("shape")}};
       },
       .kernel =
           [=](const std::vector<TensorPtr>& in, const AttrMap&, const std::vector<Type>& types) {
             auto out = std::make_shared<Tensor>(types[0].tensor());
             for (std::int64_t i = 0; i < out->num_elements(); ++i) out->set(i, in[0]->get(0));
             return one({out});
           }},
      {.name = "test.fail",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = same_as_inputs,
       .kernel = [](const std::vector<TensorPtr>&, const AttrMap&, const std::vector<Type>&)
           -> Expected<std::vector<TensorPtr>> { return make_error("division by zero"); }},
      {.name = "test.wrong_type",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = same_as_inputs,
       .kernel = [=](const std::vector<TensorPtr>&, const AttrMap&,
                     const std::vector<Type>&) { return one({filled({7}, 0.0f)}); }},
      {.name = "test.wrong_count",
       .min_inputs = 1,
       .max_inputs = 1,
       .infer = same_as_inputs,
       .kernel = [=](const std::vector<TensorPtr>&, const AttrMap&,
                     const std::vector<Type>&) { return one({}); }},
  };
  for (OpDef& def : defs) UMA_CHECK(ops.add(std::move(def)).ok());
}

class PassTest : public ::testing::Test {
 protected:
  PassTest() {
    add_test_ops(ctx.ops());
    x = main->add_param(f32({4}), "x");
    y = main->add_param(f32({4}), "y");
  }

  Value* add(Value* a, Value* b) { return rewriter.value("test.add", {a, b}); }

  // Runs a pass and checks that it leaves a valid module.
  Expected<bool> run(std::unique_ptr<Pass> pass) {
    auto changed = pass->run(module);
    if (changed) {
      Status valid = verify(module);
      EXPECT_TRUE(valid.ok()) << valid.error().message();
    }
    return changed;
  }
  bool changes(std::unique_ptr<Pass> pass) {
    auto changed = run(std::move(pass));
    EXPECT_TRUE(changed.ok()) << changed.error().message();
    return changed.ok() && *changed;
  }
  std::string failure(std::unique_ptr<Pass> pass) {
    auto changed = pass->run(module);
    return changed.ok() ? "ok" : changed.error().message();
  }
  std::vector<std::string> op_names(const Function* f) const {
    std::vector<std::string> names;
    for (const auto& node : f->nodes()) names.push_back(node->op_name());
    return names;
  }
  std::vector<std::string> function_names() const {
    std::vector<std::string> names;
    for (const Function* f : module.functions()) names.push_back(f->name());
    return names;
  }
  // A function @name(p: tensor<4xf32>) returning test.opaque(p).
  Function* helper(std::string name) {
    Function* f = *module.add_function(std::move(name));
    Builder b(*f);
    f->set_outputs({b.value("test.opaque", {f->add_param(f32({4}))})});
    return f;
  }

  Context ctx;
  Module module{ctx, "m"};
  Function* main = *module.add_function("main");
  Rewriter rewriter{*main};
  Value* x = nullptr;
  Value* y = nullptr;
};

// ---- infer-types ----

TEST_F(PassTest, InferTypesLeavesCorrectTypesAlone) {
  main->set_outputs({add(x, y)});
  EXPECT_FALSE(changes(create_infer_types_pass()));
}

TEST_F(PassTest, InferTypesFollowsAChangedParameter) {
  Value* sum = add(add(x, y), y);
  main->set_outputs({sum});
  x->set_type(f32({8}));
  y->set_type(f32({8}));
  EXPECT_TRUE(changes(create_infer_types_pass()));
  EXPECT_EQ(sum->type(), Type(f32({8})));
}

TEST_F(PassTest, InferTypesUpdatesCalleesBeforeTheirCallers) {
  // @f is defined after @main but must be updated first.
  Function* f = helper("f");
  Node* call = rewriter.call(f, {x});
  main->set_outputs({call->result()});
  f->param(0)->set_type(f32({8}));
  x->set_type(f32({8}));
  EXPECT_TRUE(changes(create_infer_types_pass()));
  EXPECT_EQ(call->result()->type(), Type(f32({8})));
}

TEST_F(PassTest, InferTypesReportsTheNode) {
  Node* node = rewriter.create("test.add", {x, y}, {}, "sum");
  main->set_outputs({node->result()});
  y->set_type(f32({5}));
  EXPECT_EQ(failure(create_infer_types_pass()),
            "node 'sum' (test.add): operands differ: tensor<4xf32> and tensor<5xf32>");
}

TEST_F(PassTest, InferTypesCannotChangeTheResultCount) {
  Function* f = helper("f");
  Node* call = rewriter.call(f, {x});
  main->set_outputs({call->result()});
  f->set_outputs({f->param(0), f->param(0)});
  EXPECT_EQ(failure(create_infer_types_pass()),
            "node #0 (call) in function @main: has 1 result(s), inference gives 2");
}

TEST_F(PassTest, InferTypesRejectsRecursion) {
  main->set_outputs({x});
  Function* f = *module.add_function("f");
  Value* p = f->add_param(f32({4}));
  Node* self = f->insert_node(nullptr, ctx.ops().find("call"), {p}, {}, {f32({4})});
  self->set_callee(f);
  self->set_name("again");
  f->set_outputs({self->result()});
  EXPECT_EQ(failure(create_infer_types_pass()),
            "node 'again' (call): calls @f recursively (recursion is not allowed)");
}

// ---- dce ----

TEST_F(PassTest, DceKeepsWhatIsUsed) {
  Value* t = rewriter.tuple({x, y});
  main->set_outputs({rewriter.get_item(t, 0), add(x, y)});
  EXPECT_FALSE(changes(create_dce_pass()));
  EXPECT_EQ(main->num_nodes(), 3u);
}

TEST_F(PassTest, DceErasesDeadChainsInOneRun) {
  Value* live = add(x, y);
  Value* dead = add(add(x, y), y);
  add(dead, dead);
  main->set_outputs({live});
  EXPECT_TRUE(changes(create_dce_pass()));
  EXPECT_EQ(main->node_list(), std::vector<Node*>{live->producer()});
  EXPECT_FALSE(changes(create_dce_pass()));
}

TEST_F(PassTest, DceKeepsANodeWithOneUsedResult) {
  Node* split = rewriter.create("test.split2", {x});
  main->set_outputs({split->result(1)});
  EXPECT_FALSE(changes(create_dce_pass()));
}

TEST_F(PassTest, DceKeepsUnusedParameters) {
  main->set_outputs({x});
  EXPECT_FALSE(changes(create_dce_pass()));
  EXPECT_EQ(main->num_params(), 2u);
}

TEST_F(PassTest, DceErasesFunctionsMainCannotReach) {
  Function* used = helper("used");
  Function* dead_call = helper("dead_call");
  Function* unreached_callee = helper("unreached_callee");
  // Unreached functions that call each other go too, whatever their order.
  Function* unreached = *module.add_function("unreached");
  Value* p = unreached->add_param(f32({4}));
  unreached->set_outputs({Builder(*unreached).call(unreached_callee, {p})->result()});
  main->set_outputs({rewriter.call(used, {x})->result()});
  rewriter.call(dead_call, {y});
  unreached->mutable_attrs().set("global_symbol", std::string("kept_by_nothing"));
  EXPECT_TRUE(changes(create_dce_pass()));
  EXPECT_EQ(function_names(), (std::vector<std::string>{"main", "used"}));
}

TEST_F(PassTest, DceKeepsEveryFunctionWithoutMain) {
  Module library(ctx, "library");
  Function* a = *library.add_function("a");
  Value* p = a->add_param(f32({4}));
  Builder(*a).value("test.opaque", {p});
  a->set_outputs({p});
  Function* b = *library.add_function("b");
  b->set_outputs({b->add_param(f32({4}))});
  auto changed = create_dce_pass()->run(library);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);  // the dead node goes, the functions stay
  EXPECT_EQ(a->num_nodes(), 0u);
  EXPECT_EQ(library.num_functions(), 2u);
}

// ---- cse ----

TEST_F(PassTest, CseMergesEqualNodesAndTheirUsers) {
  Value* a1 = add(x, y);
  Value* a2 = add(x, y);
  Value* b1 = add(a1, x);
  Value* b2 = add(a2, x);
  main->set_outputs({b1, b2});
  EXPECT_TRUE(changes(create_cse_pass()));
  EXPECT_EQ(main->num_nodes(), 2u);
  EXPECT_EQ(main->outputs(), (std::vector<Value*>{b1, b1}));
  EXPECT_FALSE(changes(create_cse_pass()));
}

TEST_F(PassTest, CseKeepsDifferentNodesApart) {
  Value* t = rewriter.tuple({x, y});
  main->set_outputs({add(x, y), add(y, x), rewriter.get_item(t, 0), rewriter.get_item(t, 1),
                     rewriter.value("test.opaque", {x})});
  EXPECT_FALSE(changes(create_cse_pass()));
}

TEST_F(PassTest, CseMergesConstantsByContents) {
  Value* a = rewriter.constant(filled({4}, 1.0f));
  Value* b = rewriter.constant(filled({4}, 1.0f));
  Value* c = rewriter.constant(filled({4}, 2.0f));
  Value* d = rewriter.constant(filled({2, 2}, 1.0f));
  main->set_outputs({a, b, c, d});
  EXPECT_TRUE(changes(create_cse_pass()));
  EXPECT_EQ(main->outputs(), (std::vector<Value*>{a, a, c, d}));
}

TEST_F(PassTest, CseMergesLargeConstantsThatDifferLate) {
  // The hash samples large tensors; the comparison must still look at every byte.
  TensorPtr a = filled({1000}, 1.0f);
  auto b = std::make_shared<Tensor>(f32({1000}));
  for (int i = 0; i < 1000; ++i) b->data<float>()[i] = i == 999 ? 5.0f : 1.0f;
  Value* ca = rewriter.constant(a);
  Value* cb = rewriter.constant(b);
  Value* cc = rewriter.constant(filled({1000}, 1.0f));
  main->set_outputs({ca, cb, cc});
  EXPECT_TRUE(changes(create_cse_pass()));
  EXPECT_EQ(main->outputs(), (std::vector<Value*>{ca, cb, ca}));
}

TEST_F(PassTest, CseMergesCallsOfTheSameCallee) {
  Function* f = helper("f");
  Function* g = helper("g");
  Value* f1 = rewriter.call(f, {x})->result();
  Value* f2 = rewriter.call(f, {x})->result();
  Value* g1 = rewriter.call(g, {x})->result();
  main->set_outputs({f1, f2, g1});
  EXPECT_TRUE(changes(create_cse_pass()));
  EXPECT_EQ(main->outputs(), (std::vector<Value*>{f1, f1, g1}));
}

TEST_F(PassTest, CseMergesEveryResult) {
  Node* s1 = rewriter.create("test.split2", {x});
  Node* s2 = rewriter.create("test.split2", {x});
  main->set_outputs({s1->result(0), s2->result(1)});
  EXPECT_TRUE(changes(create_cse_pass()));
  EXPECT_EQ(main->outputs(), (std::vector<Value*>{s1->result(0), s1->result(1)}));
}

// ---- fold-constant ----

TEST_F(PassTest, FoldConstantEvaluatesChainsInOneRun) {
  Value* one = rewriter.constant(filled({4}, 1.0f));
  Value* two = rewriter.constant(filled({4}, 2.0f));
  main->set_outputs({add(add(one, two), two)});
  EXPECT_TRUE(changes(create_fold_constant_pass()));
  EXPECT_EQ(values_of(main->outputs()[0]), (std::vector<float>{5, 5, 5, 5}));
  EXPECT_EQ(op_names(main), (std::vector<std::string>(4, "constant")));  // dce's job to clean up
}

TEST_F(PassTest, FoldConstantLeavesNonConstantsAlone) {
  Value* one = rewriter.constant(filled({4}, 1.0f));
  Value* t = rewriter.tuple({one, one});
  Function* f = helper("f");
  main->set_outputs(
      {add(one, x), rewriter.value("test.opaque", {one}), t, rewriter.call(f, {one})->result()});
  EXPECT_FALSE(changes(create_fold_constant_pass()));
}

TEST_F(PassTest, FoldConstantSkipsConstantsWithoutData) {
  auto elided = Tensor::without_data(f32({4}));
  elided->name = "weight";
  Value* w = rewriter.constant(elided);
  main->set_outputs({add(w, w)});
  EXPECT_FALSE(changes(create_fold_constant_pass()));
}

TEST_F(PassTest, FoldConstantFoldsEveryResult) {
  auto t = std::make_shared<Tensor>(f32({4}));
  for (int i = 0; i < 4; ++i) t->data<float>()[i] = static_cast<float>(i);
  Node* split = rewriter.create("test.split2", {rewriter.constant(t)});
  split->result(1)->set_name("upper");
  main->set_outputs({split->result(0), split->result(1)});
  EXPECT_TRUE(changes(create_fold_constant_pass()));
  EXPECT_EQ(values_of(main->outputs()[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(values_of(main->outputs()[1]), (std::vector<float>{2, 3}));
  EXPECT_EQ(main->outputs()[1]->name(), "upper");
}

TEST_F(PassTest, FoldConstantSharesTensors) {
  TensorPtr weight = filled({4}, 3.0f);
  main->set_outputs({rewriter.value("test.identity", {rewriter.constant(weight)})});
  EXPECT_TRUE(changes(create_fold_constant_pass()));
  const Node* folded = main->outputs()[0]->producer();
  EXPECT_EQ(folded->attrs().get_tensor("value").get(), weight.get());
}

TEST_F(PassTest, FoldConstantRespectsTheSizeCap) {
  AttrMap attrs;
  attrs.set("shape", std::vector<std::int64_t>{64, 64});
  Value* scalar = rewriter.constant(filled({1}, 1.0f));
  main->set_outputs({rewriter.value("test.broadcast", {scalar}, attrs)});
  EXPECT_FALSE(changes(create_fold_constant_pass_with_options({.max_elements = 4095})));
  EXPECT_TRUE(changes(create_fold_constant_pass_with_options({.max_elements = 4096})));
}

TEST_F(PassTest, FoldConstantDefaultCapIsAMillionElements) {
  AttrMap attrs;
  attrs.set("shape", std::vector<std::int64_t>{1025, 1024});
  Value* scalar = rewriter.constant(filled({1}, 1.0f));
  main->set_outputs({rewriter.value("test.broadcast", {scalar}, attrs)});
  EXPECT_FALSE(changes(create_fold_constant_pass()));
}

TEST_F(PassTest, FoldConstantForwardsTupleFields) {
  Value* t = rewriter.tuple({x, y});
  Value* second = rewriter.get_item(t, 1);
  main->set_outputs({second, add(second, x)});
  EXPECT_TRUE(changes(create_fold_constant_pass()));
  EXPECT_EQ(main->outputs()[0], y);
  EXPECT_EQ(main->outputs()[1]->producer()->operand(0), y);
}

TEST_F(PassTest, FoldConstantKeepsItemsOfOtherTuples) {
  Function* f = *module.add_function("pair");
  Value* p = f->add_param(f32({4}));
  f->set_outputs({Builder(*f).tuple({p, p})});
  Value* t = rewriter.call(f, {x})->result();
  main->set_outputs({rewriter.get_item(t, 0)});
  EXPECT_FALSE(changes(create_fold_constant_pass()));
}

TEST_F(PassTest, FoldConstantReportsKernelErrors) {
  Node* node = rewriter.create("test.fail", {rewriter.constant(filled({4}, 0.0f))}, {}, "div");
  main->set_outputs({node->result()});
  EXPECT_EQ(failure(create_fold_constant_pass()), "node 'div' (test.fail): division by zero");
}

TEST_F(PassTest, FoldConstantReportsKernelBugs) {
  Value* c = rewriter.constant(filled({4}, 0.0f));
  main->set_outputs({rewriter.value("test.wrong_type", {c})});
  EXPECT_EQ(failure(create_fold_constant_pass()),
            "node #1 (test.wrong_type) in function @main: the reference kernel's result 0 is not "
            "a tensor<4xf32> (a bug in the kernel)");
}

TEST_F(PassTest, FoldConstantReportsKernelsGivingTooFewResults) {
  Value* c = rewriter.constant(filled({4}, 0.0f));
  main->set_outputs({rewriter.value("test.wrong_count", {c})});
  EXPECT_EQ(failure(create_fold_constant_pass()),
            "node #1 (test.wrong_count) in function @main: the reference kernel gave 0 result(s) "
            "for 1 (a bug in the kernel)");
}

// ---- the core pipeline together ----

TEST_F(PassTest, FoldThenDceThenCseLeavesOneConstant) {
  Value* one = rewriter.constant(filled({4}, 1.0f));
  Value* two = rewriter.constant(filled({4}, 2.0f));
  Value* a = add(one, two);
  Value* b = add(two, one);
  main->set_outputs({add(a, x), add(b, x)});
  auto pipeline = parse_pipeline(ctx.passes(), "fold-constant,dce,cse", {.verify_each = true});
  ASSERT_TRUE(pipeline.ok());
  auto changed = pipeline->run(module);
  ASSERT_TRUE(changed.ok()) << changed.error().message();
  EXPECT_EQ(op_names(main), (std::vector<std::string>{"constant", "test.add"}));
  EXPECT_EQ(main->outputs()[0], main->outputs()[1]);
}

}  // namespace
}  // namespace uma
