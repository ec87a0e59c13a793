// Unit tests of the graph verifier: one test per rule, each asserting the exact message.
// Broken IR is built with Function::insert_node, which skips every check.
#include <gtest/gtest.h>

#include "uma/graph/builder.h"
#include "uma/graph/verifier.h"
#include "uma/uma/context.h"

namespace uma {

// Value's use list is private and every public mutator keeps it in sync, so the
// corruption the verifier guards against (a bug in ir.cc itself) can only be made by
// reaching the member directly. Names used in an explicit instantiation are exempt from
// access checking ([temp.spec.general]), which is what this relies on.
template <auto Member>
struct UseListAccess {
  friend std::vector<Use>& uses_of(Value& value) { return value.*Member; }
};
template struct UseListAccess<&Value::uses_>;
std::vector<Use>& uses_of(Value& value);

namespace {

TensorType f32(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

AttrMap attrs_with(std::string name, Attribute value) {
  AttrMap attrs;
  attrs.set(std::move(name), std::move(value));
  return attrs;
}

class VerifierTest : public ::testing::Test {
 protected:
  VerifierTest() {
    // An op with one required and one defaulted attribute; the builtins have none of the
    // latter.
    OpDef scale{.name = "test.scale",
                .min_inputs = 1,
                .max_inputs = 1,
                .attrs = {{"axis", AttrKind::Int, std::nullopt},
                          {"factor", AttrKind::Float, Attribute(1.0)}},
                .infer = [](const std::vector<Type>& in, const AttrMap&) {
                  return Expected<std::vector<Type>>(in);
                }};
    UMA_CHECK(ctx.ops().add(std::move(scale)).ok());
    x = main->add_param(f32({2}), "x");
  }

  const OpDef* op(std::string_view name) const { return ctx.ops().find(name); }

  // A node the Builder would create, with the given attributes.
  Node* scale(Value* input, AttrMap attrs, std::vector<Type> types = {}) {
    if (types.empty()) types.push_back(input->type());
    return main->insert_node(nullptr, op("test.scale"), {input}, std::move(attrs),
                             std::move(types));
  }
  AttrMap scale_attrs() {
    AttrMap attrs = attrs_with("axis", std::int64_t{0});
    attrs.set("factor", 2.0);
    return attrs;
  }

  std::string verify_error() {
    Status status = verify(module);
    return status.ok() ? "ok" : status.error().message();
  }

  Context ctx;
  Module module{ctx, "m"};
  Function* main = *module.add_function("main");
  Value* x = nullptr;
};

TEST_F(VerifierTest, AcceptsValidModules) {
  Builder b(*main);
  Value* t = b.tuple({x, x});
  Value* item = b.get_item(t, 1);
  Function* f = *module.add_function("f");
  Value* p = f->add_param(f32({2}));
  f->set_outputs({p});
  Node* call = b.call(f, {item});
  main->set_outputs({call->result(), x});
  main->mutable_attrs().set("global_symbol", std::string("tiny_main"));
  EXPECT_EQ(verify_error(), "ok");
  EXPECT_TRUE(verify(*f).ok());
}

TEST_F(VerifierTest, OperandsMustBeDefinedEarlier) {
  Builder b(*main);
  Node* first = b.create("tuple", {x});
  Node* later = main->insert_node(nullptr, op("tuple"), {x}, {}, {TupleType{{f32({2})}}});
  later->set_name("pack");
  first->set_operand(0, later->result());
  main->set_outputs({x});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (tuple): operand 0 is result 0 of node 'pack' (tuple), "
            "which does not come before it");
}

TEST_F(VerifierTest, ANodeCannotUseItsOwnResult) {
  Node* node = scale(x, scale_attrs());
  node->set_operand(0, node->result());
  main->set_outputs({x});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (test.scale): operand 0 is result 0 of node #0 (test.scale), "
            "which does not come before it");
}

TEST_F(VerifierTest, OperandCountMustFitTheSchema) {
  Node* node = main->insert_node(nullptr, op("get_item"), {}, attrs_with("index", std::int64_t{0}),
                                 {f32({2})});
  main->set_outputs({node->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (get_item): op get_item takes 1 operand(s), got 0");
}

TEST_F(VerifierTest, UnknownAttributesAreRejected) {
  AttrMap attrs = scale_attrs();
  attrs.set("colour", std::string("red"));
  main->set_outputs({scale(x, attrs)->result()});
  EXPECT_EQ(verify_error(), "function @main: node #0 (test.scale): unknown attribute 'colour'");
}

TEST_F(VerifierTest, AttributesMustHaveTheSchemaKind) {
  AttrMap attrs = scale_attrs();
  attrs.set("axis", std::string("zero"));
  main->set_outputs({scale(x, attrs)->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (test.scale): attribute 'axis' is string, the op's schema "
            "says int");
}

TEST_F(VerifierTest, AttributesMustBeNormalized) {
  // The Builder widens an int to a float attribute; an unconverted one is a bug.
  AttrMap attrs = scale_attrs();
  attrs.set("factor", std::int64_t{2});
  main->set_outputs({scale(x, attrs)->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (test.scale): attribute 'factor' is int, the op's schema "
            "says float");
}

TEST_F(VerifierTest, RequiredAttributesMustBePresent) {
  main->set_outputs({scale(x, attrs_with("factor", 2.0))->result()});
  EXPECT_EQ(verify_error(), "function @main: node #0 (test.scale): attribute 'axis' is missing");
}

TEST_F(VerifierTest, DefaultedAttributesMustBeFilledIn) {
  main->set_outputs({scale(x, attrs_with("axis", std::int64_t{0}))->result()});
  EXPECT_EQ(verify_error(), "function @main: node #0 (test.scale): attribute 'factor' is missing");
}

TEST_F(VerifierTest, InferenceErrorsNameTheNode) {
  Node* node = main->insert_node(nullptr, op("get_item"), {x}, attrs_with("index", std::int64_t{0}),
                                 {f32({2})});
  node->set_name("item");
  main->set_outputs({node->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node 'item' (get_item): operand is tensor<2xf32>, not a tuple");
}

TEST_F(VerifierTest, ResultCountMustMatchInference) {
  Node* node = scale(x, scale_attrs(), {f32({2}), f32({2})});
  main->set_outputs({node->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (test.scale): has 2 result(s), inference gives 1");
}

TEST_F(VerifierTest, ResultTypesMustMatchInference) {
  Node* node = scale(x, scale_attrs(), {f32({3})});
  node->set_name("conv1");
  main->set_outputs({node->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node 'conv1' (test.scale): result 0 has type tensor<3xf32>, "
            "inference gives tensor<2xf32>");
}

TEST_F(VerifierTest, StaleTypesAreCaughtAfterATypeChange) {
  Builder b(*main);
  Value* t = b.tuple({x});
  main->set_outputs({t});
  x->set_type(f32({4}));
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (tuple): result 0 has type tuple<tensor<2xf32>>, inference "
            "gives tuple<tensor<4xf32>>");
}

TEST_F(VerifierTest, CallsNeedACallee) {
  Node* call = main->insert_node(nullptr, op("call"), {x}, {}, {f32({2})});
  main->set_outputs({call->result()});
  EXPECT_EQ(verify_error(), "function @main: node #0 (call): a call without a callee");
}

TEST_F(VerifierTest, OnlyCallsHaveACallee) {
  Function* f = *module.add_function("f");
  f->set_outputs({f->add_param(f32({2}))});
  Builder b(*main);
  Node* t = b.create("tuple", {x});
  t->set_callee(f);
  main->set_outputs({x});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (tuple): names callee @f, but only call nodes have one");
}

TEST_F(VerifierTest, CalleesMustBelongToTheModule) {
  Module other(ctx, "other");
  Function* f = *other.add_function("f");
  f->set_outputs({f->add_param(f32({2}))});
  Node* call = main->insert_node(nullptr, op("call"), {x}, {}, {f32({2})});
  call->set_callee(f);
  main->set_outputs({call->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node #0 (call): calls @f, a function of another module");
}

TEST_F(VerifierTest, CallArgumentsMustMatchTheCallee) {
  Function* f = *module.add_function("f");
  f->set_outputs({f->add_param(f32({3}))});
  Node* call = main->insert_node(nullptr, op("call"), {x}, {}, {f32({3})});
  call->set_callee(f);
  call->set_name("head");
  main->set_outputs({call->result()});
  EXPECT_EQ(verify_error(),
            "function @main: node 'head' (call): call to @f: argument 0 is tensor<2xf32>, the "
            "parameter is tensor<3xf32>");
}

TEST_F(VerifierTest, CallResultsFollowTheCallee) {
  Function* f = *module.add_function("f");
  Value* p = f->add_param(f32({2}));
  f->set_outputs({p});
  Builder b(*main);
  Node* call = b.call(f, {x});
  main->set_outputs({call->result()});
  f->set_outputs({p, p});
  EXPECT_EQ(verify_error(), "function @main: node #0 (call): has 1 result(s), inference gives 2");
}

TEST_F(VerifierTest, RecursionIsRejected) {
  Function* f = *module.add_function("f");
  Value* p = f->add_param(f32({2}));
  Node* self = f->insert_node(nullptr, op("call"), {p}, {}, {f32({2})});
  self->set_callee(f);
  f->set_outputs({self->result()});
  Builder b(*main);
  main->set_outputs({b.call(f, {x})->result()});
  EXPECT_EQ(verify_error(), "function @f: recursive calls @f -> @f (recursion is not allowed)");
  // Each function alone is fine: the cycle is a property of the module.
  EXPECT_TRUE(verify(*f).ok());
}

TEST_F(VerifierTest, RecursionThroughSeveralFunctionsIsRejected) {
  Function* g = *module.add_function("g");
  Function* h = *module.add_function("h");
  Value* gp = g->add_param(f32({2}));
  Value* hp = h->add_param(f32({2}));
  Node* g_calls_h = g->insert_node(nullptr, op("call"), {gp}, {}, {f32({2})});
  g_calls_h->set_callee(h);
  g->set_outputs({g_calls_h->result()});
  Node* h_calls_g = h->insert_node(nullptr, op("call"), {hp}, {}, {f32({2})});
  h_calls_g->set_callee(g);
  h->set_outputs({h_calls_g->result()});
  Builder b(*main);
  main->set_outputs({b.call(g, {x})->result()});
  EXPECT_EQ(verify_error(),
            "function @g: recursive calls @g -> @h -> @g (recursion is not allowed)");
}

TEST_F(VerifierTest, SharedCalleesAreNotCycles) {
  // A diamond: main calls f and g, both call h.
  Function* h = *module.add_function("h");
  h->set_outputs({h->add_param(f32({2}))});
  Function* f = *module.add_function("f");
  Function* g = *module.add_function("g");
  for (Function* fn : {f, g}) {
    Builder fb(*fn);
    fn->set_outputs({fb.call(h, {fn->add_param(f32({2}))})->result()});
  }
  Builder b(*main);
  main->set_outputs({b.call(f, {x})->result(), b.call(g, {x})->result()});
  EXPECT_EQ(verify_error(), "ok");
}

TEST_F(VerifierTest, FunctionsWithNodesNeedAnOutput) {
  Builder b(*main);
  b.tuple({x});
  EXPECT_EQ(verify_error(),
            "function @main: has nodes but no outputs (ops have no side effects, so they compute "
            "nothing anyone can see)");
}

TEST_F(VerifierTest, EmptyFunctionsNeedNoOutput) {
  // A stub: `func @stub() -> () { return }`, and a call of it, which has no results.
  Function* stub = *module.add_function("stub");
  Builder b(*main);
  EXPECT_EQ(b.call(stub, {})->num_results(), 0u);
  main->set_outputs({x});
  EXPECT_EQ(verify_error(), "ok");
}

TEST_F(VerifierTest, FunctionAttributesHaveTheirKinds) {
  main->set_outputs({x});
  for (const char* name : {"Composite", "Compiler", "global_symbol"}) {
    main->mutable_attrs().set(name, std::int64_t{1});
    EXPECT_EQ(verify_error(),
              fmt::format("function @main: attribute '{}' is int, it must be a string", name));
    main->mutable_attrs().set(name, std::string("fine"));
  }
  main->mutable_attrs().set("anything_else", std::vector<std::int64_t>{1, 2});
  EXPECT_EQ(verify_error(), "ok");
}

TEST_F(VerifierTest, ErrorsNameTheFunction) {
  main->set_outputs({x});
  Function* f = *module.add_function("helper");
  Value* p = f->add_param(f32({2}));
  Node* node = f->insert_node(nullptr, op("tuple"), {p}, {}, {f32({2})});
  f->set_outputs({node->result()});
  EXPECT_EQ(verify_error(),
            "function @helper: node #0 (tuple): result 0 has type tensor<2xf32>, inference gives "
            "tuple<tensor<2xf32>>");
}

// ---- use lists out of sync: bugs in the IR's own bookkeeping ----

class UseListTest : public VerifierTest {
 protected:
  UseListTest() {
    Builder b(*main);
    pack = b.create("tuple", {x}, {}, "pack");
    main->set_outputs({pack->result()});
  }
  Node* pack = nullptr;
};

TEST_F(UseListTest, AUseThatIsNotThere) {
  uses_of(*x).push_back(Use{pack, 5});
  EXPECT_EQ(verify_error(),
            "function @main: use lists out of sync: parameter 0 records a use as operand 5 of "
            "node 'pack' (tuple), which is not it");
}

TEST_F(UseListTest, AnOutputUseThatIsNotThere) {
  uses_of(*x).push_back(Use{nullptr, 0});
  EXPECT_EQ(verify_error(),
            "function @main: use lists out of sync: parameter 0 records a use as output 0, "
            "which is not it");
}

TEST_F(UseListTest, AUseByANodeOfAnotherFunction) {
  Function* f = *module.add_function("f");
  Value* p = f->add_param(f32({2}));
  Builder fb(*f);
  Node* elsewhere = fb.create("tuple", {p});
  f->set_outputs({p});
  uses_of(*x).push_back(Use{elsewhere, 0});
  EXPECT_EQ(verify_error(),
            "function @main: use lists out of sync: parameter 0 records a use by a node that is "
            "not in the function");
}

TEST_F(UseListTest, AUseRecordedTwice) {
  uses_of(*x).push_back(Use{pack, 0});
  EXPECT_EQ(verify_error(),
            "function @main: use lists out of sync: parameter 0 records its use as operand 0 of "
            "node 'pack' (tuple) twice");
}

TEST_F(UseListTest, AnOperandMissingFromTheUseList) {
  uses_of(*x).clear();
  EXPECT_EQ(verify_error(),
            "function @main: use lists out of sync: operand 0 of node 'pack' (tuple) is missing "
            "from the use list of parameter 0");
}

TEST_F(UseListTest, AnOutputMissingFromTheUseList) {
  uses_of(*pack->result()).clear();
  EXPECT_EQ(verify_error(),
            "function @main: use lists out of sync: output 0 is missing from the use list of "
            "result 0 of node 'pack' (tuple)");
}

}  // namespace
}  // namespace uma
