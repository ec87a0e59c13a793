// lower_function on whole functions: fusion of pointwise chains and epilogues, several
// outputs, constants, composites, and its errors; and the op set's coverage by default rules.
#include <algorithm>

#include "lower_test_util.h"
#include "tensor_util.h"
#include "uma/graph/parser.h"
#include "uma/lower/compute_util.h"
#include "uma/tir/functor.h"

namespace uma::testing_lower {
namespace {

using Ints = std::vector<std::int64_t>;
using test::make_attrs;

AttrMap pad1() { return make_attrs({{"padding", Ints{1, 1, 1, 1}}}); }

// The names of the blocks of `func`, in order.
std::vector<std::string> block_names(const tir::PrimFunc& func) {
  std::vector<std::string> names;
  tir::pre_order_visit(func.body, [&](const tir::ExprNode*, const tir::StmtNode* s) {
    if (s != nullptr && s->kind == tir::StmtKind::Block)
      names.push_back(static_cast<const tir::BlockNode*>(s)->name);
  });
  return names;
}

TEST(LowerFunction, FusedChainsMatchTheInterpreter) {
  check_cases({
      {"conv, bias add, relu",
       {f32({1, 3, 6, 6}), f32({4, 3, 3, 3}), f32({4, 1, 1})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* conv = b.value("nn.conv2d", {p[0], p[1]}, pad1());
         return std::vector<Value*>{b.value("nn.relu", {b.value("add", {conv, p[2]})})};
       }},
      {"pad inlined into conv",
       {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* padded =
             b.value("nn.pad", {p[0]}, make_attrs({{"pad_width", Ints{0, 0, 2, 1, 0, 0, 1, 2}}}));
         return std::vector<Value*>{b.value("nn.conv2d", {padded, p[1]})};
       }},
      {"relu before conv is materialized",
       {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})},
       [](Builder& b, const std::vector<Value*>& p) {
         return std::vector<Value*>{b.value("nn.conv2d", {b.value("nn.relu", {p[0]}), p[1]})};
       }},
      {"pointwise chain with broadcasting",
       {f32({2, 3, 4}), f32({3, 1}), f32({4})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* sum = b.value("add", {p[0], p[1]});
         return std::vector<Value*>{b.value("nn.relu", {b.value("multiply", {sum, p[2]})})};
       }},
      {"conv then pool: two anchors",
       {f32({1, 2, 8, 8}), f32({4, 2, 3, 3})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* conv = b.value("nn.relu", {b.value("nn.conv2d", {p[0], p[1]}, pad1())});
         return std::vector<Value*>{
             b.value("nn.max_pool2d", {conv},
                     make_attrs({{"pool_size", Ints{2, 2}}, {"strides", Ints{2, 2}}}))};
       }},
      {"a reduction read at other indices (broadcast) is materialized",
       {f32({2, 5})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* total = b.value("sum", {p[0]}, make_attrs({{"axes", Ints{1}}}));
         return std::vector<Value*>{b.value("multiply", {p[0], total})};
       }},
      {"two outputs: a conv and its relu",
       {f32({1, 2, 4, 4}), f32({3, 2, 3, 3})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* conv = b.value("nn.conv2d", {p[0], p[1]}, pad1());
         return std::vector<Value*>{b.value("nn.relu", {conv}), conv};
       }},
      {"the same value twice, and a parameter as an output",
       {f32({3, 4}), f32({5, 4})},
       [](Builder& b, const std::vector<Value*>& p) {
         Value* dense = b.value("nn.dense", {p[0], p[1]});
         return std::vector<Value*>{dense, dense, p[0]};
       }},
      {"softmax then multiply",
       {f32({3, 7}), f32({7})},
       [](Builder& b, const std::vector<Value*>& p) {
         return std::vector<Value*>{b.value("multiply", {b.value("nn.softmax", {p[0]}), p[1]})};
       }},
      {"small and large constants",
       {f32({2, 3, 4})},
       [](Builder& b, const std::vector<Value*>& p) {
         auto small = test::f32({3, 1}, {0.5, -1, 2});
         std::vector<double> values(12);
         for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 * static_cast<double>(i);
         auto large = test::f32({3, 4}, values);
         Value* scaled = b.value("multiply", {p[0], b.constant(small)});
         return std::vector<Value*>{b.value("add", {scaled, b.constant(large)})};
       }},
      {"an empty constant",
       {f32({2, 0})},
       [](Builder& b, const std::vector<Value*>& p) {
         auto empty = std::make_shared<Tensor>(TensorType{DType::f32, {0}});
         return std::vector<Value*>{b.value("add", {p[0], b.constant(empty)})};
       }},
  });
}

Expected<tir::PrimFunc> lower_text(Context& context, std::string_view text,
                                   const lower::LowerOptions& options = {}) {
  UMA_TRY_ASSIGN(auto module, parse_module(context, text));
  return lower::lower_function(*module->find_function("main"), options);
}

// The reduction accumulates into %conv2d_nchw_acc and the epilogue block applies the bias
// and the relu; both carry the convolution's attributes (decompose-reductions fuses them).
TEST(LowerFunction, EpilogueIsABlockWithTheOpsAttributes) {
  Context context;
  auto func = lower_text(context, R"(
func @main(%x: tensor<1x3x6x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>) -> (tensor<1x4x3x3xf32>) {
  %c = nn.conv2d(%x, %w) {padding = [1, 1, 1, 1], strides = [2, 2]} : tensor<1x4x3x3xf32>
  %a = add(%c, %b) : tensor<1x4x3x3xf32>
  %r = nn.relu(%a) : tensor<1x4x3x3xf32>
  return %r
}
)");
  ASSERT_TRUE(func.ok()) << func.error().message();
  EXPECT_EQ(block_names(*func), (std::vector<std::string>{"conv2d_nchw", "conv2d_nchw_epilogue"}));
  const auto* acc = func->body.as<tir::AllocateNode>();
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->buffer->name, "conv2d_nchw_acc");
  const auto* seq = acc->body.as<tir::SeqNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->stmts.size(), 2u);
  for (const tir::Stmt& s : seq->stmts) {
    const auto* block = s.as<tir::BlockNode>();
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(block->attrs.get_ints("strides"), (Ints{2, 2}));
    EXPECT_EQ(block->attrs.get_ints("padding"), (Ints{1, 1, 1, 1}));
  }
  const auto& reduction = *seq->stmts[0].as<tir::BlockNode>();
  EXPECT_EQ(reduction.reads.size(), 2u);
  EXPECT_EQ(reduction.iter_vars.size(), 7u);
  EXPECT_TRUE(reduction.init.defined());
  EXPECT_EQ(seq->stmts[1].as<tir::BlockNode>()->reads.size(), 2u);  // acc and the bias
  EXPECT_EQ(func->attrs.get_string("global_symbol"), "main");
}

TEST(LowerFunction, CompositeCallsAreInlined) {
  Context context;
  auto func = lower_text(context, R"(
func @main(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> (tensor<2x3xf32>) attributes {Compiler = "npu", global_symbol = "npu_main_0"} {
  %y = call @dense_relu(%x, %w) : tensor<2x3xf32>
  return %y
}
func @dense_relu(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<2x3xf32>) attributes {Composite = "npu.dense_relu"} {
  %d = nn.dense(%a, %b) : tensor<2x3xf32>
  %r = nn.relu(%d) : tensor<2x3xf32>
  return %r
}
)");
  ASSERT_TRUE(func.ok()) << func.error().message();
  EXPECT_EQ(block_names(*func), (std::vector<std::string>{"dense", "dense_epilogue"}));
  EXPECT_EQ(func->attrs.get_string("global_symbol"), "npu_main_0");
  EXPECT_EQ(func->attrs.get_string("Compiler"), "npu");
}

TEST(LowerFunction, LargeConstantsBecomeBoundParameters) {
  Context context;
  auto module = std::make_unique<Module>(context);
  Function& main = **module->add_function("main");
  Value* x = main.add_param(f32({3, 4}), "x");
  std::vector<double> values(12, 1.5);
  values[3] = -2;
  auto weight = test::f32({3, 4}, values);
  Builder b(main);
  main.set_outputs({b.value("add", {x, b.constant(weight)})});
  auto func = lower::lower_function(main);
  ASSERT_TRUE(func.ok()) << func.error().message();
  ASSERT_EQ(func->params.size(), 3u);
  EXPECT_EQ(func->num_inputs, 2u);
  auto constants = lower::bound_constants(*func);
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(constants[0].first, 1u);
  EXPECT_EQ(constants[0].second.get(), weight.get());
}

TEST(LowerFunction, ErrorsNameTheNode) {
  Context context;
  const char* text = R"(
func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>) {
  %y = nn.relu(%x) : tensor<2x4xf32> loc("act")
  return %y
}
)";
  lower::ComputeRegistry failing;
  ASSERT_TRUE(failing
                  .add("nn.relu",
                       [](const Node&, const std::vector<lower::TensorView>&,
                          lower::ComputeBuilder&) -> Expected<std::vector<lower::Stage>> {
                         return make_error("attribute 'alpha' is not supported");
                       })
                  .ok());
  auto func = lower_text(context, text, {.overrides = &failing});
  ASSERT_FALSE(func.ok());
  EXPECT_EQ(func.error().message(), "node 'act' (nn.relu): attribute 'alpha' is not supported");

  lower::ComputeRegistry wrong;
  ASSERT_TRUE(wrong
                  .add("nn.relu",
                       [](const Node&, const std::vector<lower::TensorView>& in,
                          lower::ComputeBuilder&) -> Expected<std::vector<lower::Stage>> {
                         return std::vector<lower::Stage>{
                             lower::pointwise_stage("relu", DType::f32, {4}, in[0].at)};
                       })
                  .ok());
  func = lower_text(context, text, {.overrides = &wrong});
  ASSERT_FALSE(func.ok());
  EXPECT_EQ(func.error().message(),
            "node 'act' (nn.relu): the compute rule gave stage 'relu' of type tensor<4xf32> for "
            "a result of type tensor<2x4xf32>");
  EXPECT_FALSE(failing.add("nn.relu", *wrong.find("nn.relu")).ok());

  func = lower_text(context, R"(
func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  %y = call @f(%x) : tensor<2xf32> loc("c")
  return %y
}
func @f(%a: tensor<2xf32>) -> (tensor<2xf32>) {
  return %a
}
)");
  ASSERT_FALSE(func.ok());
  EXPECT_EQ(func.error().message(),
            "node 'c' (call): calls @f, which is not a composite function; lower each function "
            "on its own");
}

// Every op of the op set has a default rule (the structural ops lower by themselves).
TEST(LowerCoverage, EveryOpHasADefaultRule) {
  Context context;
  const std::vector<std::string> structural = {"call", "constant", "get_item", "tuple"};
  for (const std::string& op : context.ops().names()) {
    bool is_structural = std::find(structural.begin(), structural.end(), op) != structural.end();
    EXPECT_NE(lower::default_computes().find(op) != nullptr, is_structural)
        << op << (is_structural ? " has a rule" : " has no default rule");
  }
}

// fuse-ops groups by OpDef::fusion alone: it trusts that an op it may group has a rule.
TEST(LowerCoverage, EveryFusableOpHasADefaultRule) {
  Context context;
  for (const std::string& name : context.ops().names()) {
    const OpDef& op = *context.ops().find(name);
    if (op.fusion != FusionCategory::kOpaque) {
      EXPECT_NE(lower::default_computes().find(name), nullptr) << name;
    }
  }
}

}  // namespace
}  // namespace uma::testing_lower
