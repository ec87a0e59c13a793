// Unit tests of the graph IR's data structures, use lists, builder and rewriter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "uma/graph/builder.h"
#include "uma/graph/rewriter.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

TensorType f32(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

TensorPtr filled(Shape shape, float value) {
  auto t = std::make_shared<Tensor>(f32(std::move(shape)));
  for (std::int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = value;
  return t;
}

bool uses_contain(const Value* v, Use use) {
  return std::find(v->uses().begin(), v->uses().end(), use) != v->uses().end();
}

class IrTest : public ::testing::Test {
 protected:
  Context ctx;
  Module module{ctx, "m"};
  Function* main = *module.add_function("main");
};

TEST_F(IrTest, UseListsFollowOperandsAndOutputs) {
  Builder b(*main);
  Value* x = main->add_param(f32({2}), "x");
  Value* t = b.tuple({x, x});
  Value* item = b.get_item(t, 1);
  main->set_outputs({item, x});

  EXPECT_EQ(x->uses().size(), 3u);  // two tuple operands and output 1
  EXPECT_TRUE(uses_contain(x, Use{t->producer(), 0}));
  EXPECT_TRUE(uses_contain(x, Use{t->producer(), 1}));
  EXPECT_TRUE(uses_contain(x, Use{nullptr, 1}));
  EXPECT_TRUE(uses_contain(item, Use{nullptr, 0}));
  EXPECT_EQ(item->type(), Type(f32({2})));
  EXPECT_EQ(t->type(), Type(TupleType{{f32({2}), f32({2})}}));
}

TEST_F(IrTest, ReplaceAllUsesMovesOperandAndOutputUses) {
  Builder b(*main);
  Value* x = main->add_param(f32({2}), "x");
  Value* y = main->add_param(f32({2}), "y");
  Value* t = b.tuple({x});
  main->set_outputs({x});
  x->replace_all_uses_with(y);
  EXPECT_FALSE(x->has_uses());
  EXPECT_EQ(t->producer()->operand(0), y);
  EXPECT_EQ(main->outputs()[0], y);
  EXPECT_EQ(y->uses().size(), 2u);
}

TEST_F(IrTest, SetOperandUpdatesBothUseLists) {
  Builder b(*main);
  Value* x = main->add_param(f32({2}));
  Value* y = main->add_param(f32({2}));
  Node* t = b.tuple({x, x})->producer();
  t->set_operand(1, y);
  EXPECT_EQ(x->uses(), (std::vector<Use>{{t, 0}}));
  EXPECT_EQ(y->uses(), (std::vector<Use>{{t, 1}}));
}

TEST_F(IrTest, BuilderReportsUnknownOpsAndBadAttributes) {
  Builder b(*main);
  Value* x = main->add_param(f32({2}));
  auto unknown = b.try_create("no.such_op", {x}, {}, "n1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(), "node 'n1' (no.such_op): unknown op no.such_op");

  Value* t = b.tuple({x});
  auto missing = b.try_create("get_item", {t});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "get_item: op get_item requires attribute 'index'");

  AttrMap wrong_kind;
  wrong_kind.set("index", std::string("one"));
  auto kind = b.try_create("get_item", {t}, wrong_kind);
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.error().message(),
            "get_item: attribute 'index' of op get_item must be int, not string");

  AttrMap extra;
  extra.set("index", std::int64_t{0});
  extra.set("colour", std::string("red"));
  auto unknown_attr = b.try_create("get_item", {t}, extra);
  ASSERT_FALSE(unknown_attr.ok());
  EXPECT_EQ(unknown_attr.error().message(), "get_item: unknown attribute 'colour' for op get_item");

  AttrMap out_of_range;
  out_of_range.set("index", std::int64_t{3});
  auto range = b.try_create("get_item", {t}, out_of_range);
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.error().message(),
            "get_item: attribute 'index' is 3, but the tuple has 1 field(s)");

  auto arity = b.try_create("get_item", {t, t}, out_of_range);
  ASSERT_FALSE(arity.ok());
  EXPECT_EQ(arity.error().message(), "get_item: op get_item takes 1 operand(s), got 2");
  EXPECT_EQ(main->num_nodes(), 1u);  // failed creations leave nothing behind
}

TEST_F(IrTest, CallsCheckTheCalleeSignature) {
  Function* callee = *module.add_function("f");
  Value* p = callee->add_param(f32({2}));
  callee->set_outputs({p, p});

  Builder b(*main);
  Value* x = main->add_param(f32({2}));
  Node* call = b.call(callee, {x});
  EXPECT_EQ(call->callee(), callee);
  EXPECT_EQ(call->num_results(), 2u);

  Value* wrong = main->add_param(f32({3}));
  auto bad = b.try_call(callee, {wrong});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "call to @f: argument 0 is tensor<3xf32>, the parameter is tensor<2xf32>");
  auto count = b.try_call(callee, {});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message(), "call to @f passes 0 argument(s), the function takes 1");
}

TEST_F(IrTest, FunctionsAreUniqueByName) {
  auto again = module.add_function("main");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message(), "function @main is defined twice");
  EXPECT_EQ(module.find_function("main"), main);
  EXPECT_EQ(module.find_function("nope"), nullptr);
  Function* g = *module.add_function("g");
  module.erase_function(g);
  EXPECT_EQ(module.find_function("g"), nullptr);
  EXPECT_EQ(module.num_functions(), 1u);
}

TEST_F(IrTest, ConstantsAreSharedNotCopied) {
  TensorPtr weight = filled({16}, 2.0f);
  Rewriter r(*main);
  Value* c = r.constant(weight);
  main->set_outputs({c});
  ValueMap mapping;
  std::vector<Node*> clones = r.clone(std::vector<Node*>{c->producer()}, mapping);
  ASSERT_EQ(clones.size(), 1u);
  EXPECT_EQ(clones[0]->attrs().get_tensor("value").get(), weight.get());
  EXPECT_EQ(weight.use_count(), 3);  // ours, the original node's, the clone's
}

TEST_F(IrTest, CloneRemapsOperandsAndKeepsOthers) {
  Value* x = main->add_param(f32({2}), "x");
  Value* y = main->add_param(f32({2}), "y");
  Rewriter r(*main);
  Value* t = r.tuple({x, y});
  Value* item = r.get_item(t, 0);
  main->set_outputs({item});

  ValueMap mapping{{x, y}};
  std::vector<Node*> clones = r.clone(std::vector<Node*>{t->producer(), item->producer()}, mapping);
  ASSERT_EQ(clones.size(), 2u);
  EXPECT_EQ(clones[0]->operand(0), y);  // remapped
  EXPECT_EQ(clones[0]->operand(1), y);  // not in the mapping: used as is
  EXPECT_EQ(clones[1]->operand(0), clones[0]->result());
  EXPECT_EQ(mapping.at(item), clones[1]->result());
  EXPECT_EQ(clones[1]->attrs().get_int("index"), 0);
  EXPECT_TRUE(r.changed());
}

TEST_F(IrTest, ReplaceNodeAndEraseKeepOrderAndUses) {
  Value* x = main->add_param(f32({2}), "x");
  Rewriter r(*main);
  Value* t = r.tuple({x});
  Value* item = r.get_item(t, 0);
  main->set_outputs({item});
  EXPECT_FALSE(r.changed());

  r.replace_node(item->producer(), {x});
  EXPECT_TRUE(r.changed());
  EXPECT_EQ(main->outputs()[0], x);
  r.erase(t->producer());
  EXPECT_EQ(main->num_nodes(), 0u);
  EXPECT_EQ(x->uses(), (std::vector<Use>{{nullptr, 0}}));
}

TEST_F(IrTest, InsertionPointAndMoves) {
  Value* x = main->add_param(f32({2}));
  Builder b(*main);
  Node* last = b.tuple({x})->producer();
  b.set_insertion_point(last);
  Node* first = b.tuple({x, x})->producer();
  EXPECT_EQ(main->node_list(), (std::vector<Node*>{first, last}));
  EXPECT_EQ(main->node_after(first), last);
  EXPECT_EQ(main->node_before(first), nullptr);
  main->move_node(first, nullptr);
  EXPECT_EQ(main->node_list(), (std::vector<Node*>{last, first}));
}

TEST_F(IrTest, NodeLocationsNameTheNode) {
  Value* x = main->add_param(f32({2}));
  Builder b(*main);
  Node* named = b.create("tuple", {x}, {}, "pack");
  Node* unnamed = b.create("tuple", {x});
  EXPECT_EQ(named->location(), "node 'pack' (tuple)");
  EXPECT_EQ(unnamed->location(), "node #1 (tuple) in function @main");
}

// What a holder that may outlive a node, value, function or module watches (the Python
// handles): it expires when the object is destroyed, not before, and a new object at the
// same address has a token of its own.
TEST_F(IrTest, LivenessExpiresWithTheObject) {
  Builder b(*main);
  Value* x = main->add_param(f32({2}), "x");
  Node* relu = b.create("nn.relu", {x});
  main->set_outputs({x});
  std::weak_ptr<const void> node = relu->liveness().watch();
  std::weak_ptr<const void> result = relu->result()->liveness().watch();
  std::weak_ptr<const void> param = x->liveness().watch();
  EXPECT_FALSE(node.expired());
  Rewriter(*main).erase(relu);
  EXPECT_TRUE(node.expired() && result.expired());
  EXPECT_FALSE(param.expired());

  Function* other = *module.add_function("other");
  std::weak_ptr<const void> function = other->liveness().watch();
  Value* y = other->add_param(f32({2}), "y");
  std::weak_ptr<const void> other_param = y->liveness().watch();
  module.erase_function(other);
  EXPECT_TRUE(function.expired() && other_param.expired());

  auto owned = std::make_unique<Module>(ctx, "gone");
  std::weak_ptr<const void> gone = owned->liveness().watch();
  Function* kept = *owned->add_function("main");
  std::weak_ptr<const void> in_gone = kept->liveness().watch();
  owned.reset();
  EXPECT_TRUE(gone.expired() && in_gone.expired());
  EXPECT_FALSE(main->liveness().watch().expired());
}

TEST(Types, CheckedElementCountCatchesOverflowAndNegatives) {
  EXPECT_EQ(*f32({2, 3, 4}).checked_num_elements(), 24);
  EXPECT_EQ(*f32({}).checked_num_elements(), 1);
  EXPECT_EQ(*f32({0, 5}).checked_num_elements(), 0);
  auto negative = f32({2, -1}).checked_num_elements();
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().message(), "negative dimension -1 in shape 2x-1");
  auto huge = f32({1LL << 32, 1LL << 32}).checked_num_elements();
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message(),
            "shape 4294967296x4294967296 has more elements than fit in 64 bits");
  // Empty, but a product of its other dimensions would overflow: invalid.
  auto empty_huge = f32({0, 1LL << 32, 1LL << 32}).checked_num_elements();
  ASSERT_FALSE(empty_huge.ok());
  EXPECT_EQ(empty_huge.error().message(),
            "shape 0x4294967296x4294967296 has more elements than fit in 64 bits");
  EXPECT_EQ(to_string(Type(f32({1, 3}))), "tensor<1x3xf32>");
  EXPECT_EQ(to_string(Type(TensorType{DType::boolean, {}})), "tensor<bool>");
}

TEST(Tensors, SetConvertsLikeCThroughInt64WithoutUndefinedBehaviour) {
  Tensor u8(TensorType{DType::u8, {4}});
  u8.set(0, -1.0);   // wraps
  u8.set(1, 300.0);  // wraps
  u8.set(2, 2.9);    // truncates toward zero
  u8.set(3, std::nan(""));
  EXPECT_EQ(u8.get(0), 255.0);
  EXPECT_EQ(u8.get(1), 44.0);
  EXPECT_EQ(u8.get(2), 2.0);
  EXPECT_EQ(u8.get(3), 0.0);
  Tensor i64(TensorType{DType::i64, {2}});
  i64.set(0, 1e30);  // saturates
  i64.set(1, -1e30);
  EXPECT_EQ(i64.data<std::int64_t>()[0], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(i64.data<std::int64_t>()[1], std::numeric_limits<std::int64_t>::min());
}

TEST(DTypes, SixteenBitFloatsRoundToNearestEven) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);  // largest finite f16
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(f32_to_f16(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(f16_to_f32(0x0001), 0x1p-24f);
  EXPECT_EQ(f32_to_f16(1.0f + 0x1p-11f), 0x3c00);  // tie goes to even
  EXPECT_EQ(f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);  // tie goes to even
  // Every f16 value converts to f32 and back unchanged (nan payloads aside).
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    auto h = static_cast<std::uint16_t>(bits);
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;
    ASSERT_EQ(f32_to_f16(f16_to_f32(h)), h) << bits;
  }
}

}  // namespace
}  // namespace uma
