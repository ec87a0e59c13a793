// Unit tests of the ONNX converters of data-movement ops, indexing and reductions
// (src/frontend/onnx/transform.cc, reduce.cc): each opset's way of passing shapes, axes,
// pads and sizes (attributes before, constant inputs after), checked by importing one-node
// models and running them with the reference interpreter against hand-computed values.
#include <gtest/gtest.h>

#include <limits>

#include "onnx_model_builder.h"
#include "tensor_util.h"
#include "uma/runtime/interpreter.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OneNode;
using test::values_of;
using Ints = std::vector<std::int64_t>;
using Values = std::vector<double>;

// 0, 1, ..., n-1 as f32 in `shape`.
TensorPtr iota(Shape shape) {
  std::int64_t n = TensorType{DType::f32, shape}.num_elements();
  Values values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(static_cast<double>(i));
  return f32(std::move(shape), values);
}

TEST(OnnxTransformConverters, ReshapeAndFlatten) {
  auto x = iota({2, 3, 4});
  EXPECT_EQ(OneNode("Reshape", 13).input(x).ints({0, -1}).run1()->shape(), (Shape{2, 12}));
  // allowzero (opset 14) makes 0 a dimension of size 0.
  auto empty = f32({0, 3}, {});
  EXPECT_EQ(OneNode("Reshape", 14)
                .input(empty)
                .ints({3, 0})
                .attr("allowzero", std::int64_t{1})
                .run1()
                ->shape(),
            (Shape{3, 0}));
  EXPECT_EQ(OneNode("Reshape", 13).input(x).input(make_tensor(DType::i64, {2}, {4, 6})).error(),
            "m.onnx: node 'n' (Reshape): input 1 ('shape') must be a constant: uma needs its "
            "value at build time; it is the model's input 'in1', so give its value with --bind "
            "in1=FILE");
  EXPECT_EQ(OneNode("Flatten", 9).input(x).attr("axis", std::int64_t{0}).run1()->shape(),
            (Shape{1, 24}));
  EXPECT_EQ(OneNode("Flatten", 13).input(x).run1()->shape(), (Shape{2, 12}));
  EXPECT_EQ(OneNode("Flatten", 11).input(x).attr("axis", std::int64_t{-1}).run1()->shape(),
            (Shape{6, 4}));
  EXPECT_EQ(
      OneNode("Flatten", 13).input(f32({3, 0}, {})).attr("axis", std::int64_t{2}).run1()->shape(),
      (Shape{0, 1}));
  EXPECT_EQ(
      OneNode("Flatten", 9).input(x).attr("axis", std::int64_t{-1}).error(),
      "m.onnx: node 'n' (Flatten): attribute 'axis' is -1, but must be in [0, 3] for an input "
      "of rank 3");
}

TEST(OnnxTransformConverters, SplitByOpset) {
  auto x = iota({2, 4});
  std::vector<TensorPtr> attr_sizes = OneNode("Split", 11)
                                          .input(x)
                                          .attr("axis", std::int64_t{1})
                                          .attr("split", Ints{1, 3})
                                          .outputs(2)
                                          .run();
  ASSERT_EQ(attr_sizes.size(), 2u);
  EXPECT_EQ(values_of(*attr_sizes[0]), (Values{0, 4}));
  EXPECT_EQ(values_of(*attr_sizes[1]), (Values{1, 2, 3, 5, 6, 7}));
  std::vector<TensorPtr> input_sizes =
      OneNode("Split", 13).input(x).ints({3, 1}).attr("axis", std::int64_t{-1}).outputs(2).run();
  ASSERT_EQ(input_sizes.size(), 2u);
  EXPECT_EQ(values_of(*input_sizes[1]), (Values{3, 7}));
  std::vector<TensorPtr> even = OneNode("Split", 13).input(x).outputs(2).run();
  ASSERT_EQ(even.size(), 2u);
  EXPECT_EQ(values_of(*even[1]), (Values{4, 5, 6, 7}));
  EXPECT_EQ(OneNode("Split", 11).input(x).attr("split", Ints{1, 1}).outputs(3).error(),
            "m.onnx: node 'n' (Split): 'split' has 2 values, but the node has 3 outputs");
}

TEST(OnnxTransformConverters, SliceByOpset) {
  auto x = iota({3, 4});
  TensorPtr attrs = OneNode("Slice", 9)
                        .input(x)
                        .attr("starts", Ints{1})
                        .attr("ends", Ints{3})
                        .attr("axes", Ints{1})
                        .run1();
  EXPECT_EQ(values_of(*attrs), (Values{1, 2, 5, 6, 9, 10}));
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  TensorPtr inputs = OneNode("Slice", 13)
                         .input(x)
                         .ints({-1, 3})
                         .ints({kMin, 0})
                         .ints({0, 1})
                         .ints({-2, -2})
                         .run1();
  EXPECT_EQ(inputs->shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of(*inputs), (Values{11, 9, 3, 1}));
  TensorPtr no_axes = OneNode("Slice", 10).input(x).ints({1}).ints({2}).skip().ints({1}).run1();
  EXPECT_EQ(values_of(*no_axes), (Values{4, 5, 6, 7}));
}

TEST(OnnxTransformConverters, SqueezeAndUnsqueezeByOpset) {
  auto x = f32({1, 2, 1}, {5, 6});
  EXPECT_EQ(OneNode("Squeeze", 11).input(x).attr("axes", Ints{-1}).run1()->shape(), (Shape{1, 2}));
  EXPECT_EQ(OneNode("Squeeze", 13).input(x).ints({0}).run1()->shape(), (Shape{2, 1}));
  EXPECT_EQ(OneNode("Squeeze", 13).input(x).run1()->shape(), (Shape{2}));
  EXPECT_EQ(OneNode("Unsqueeze", 11).input(x).attr("axes", Ints{0, 4}).run1()->shape(),
            (Shape{1, 1, 2, 1, 1}));
  EXPECT_EQ(OneNode("Unsqueeze", 13).input(x).ints({-1}).run1()->shape(), (Shape{1, 2, 1, 1}));
  EXPECT_EQ(OneNode("Unsqueeze", 13).input(x).error(),
            "m.onnx: node 'n' (Unsqueeze): input 1 ('axes') is missing");
  EXPECT_EQ(OneNode("Unsqueeze", 11).input(x).error(),
            "m.onnx: node 'n' (Unsqueeze): attribute 'axes' is required");
}

TEST(OnnxTransformConverters, PadByOpset) {
  auto x = f32({2, 2}, {1, 2, 3, 4});
  TensorPtr attrs =
      OneNode("Pad", 10).input(x).attr("pads", Ints{0, 1, 0, 0}).attr("value", 9.0).run1();
  EXPECT_EQ(values_of(*attrs), (Values{9, 1, 2, 9, 3, 4}));
  TensorPtr inputs = OneNode("Pad", 11).input(x).ints({1, 0, 0, 0}).constant(f32({}, {-1})).run1();
  EXPECT_EQ(values_of(*inputs), (Values{-1, -1, 1, 2, 3, 4}));
  TensorPtr reflect =
      OneNode("Pad", 13).input(x).ints({0, 1, 0, -1}).attr("mode", "reflect").run1();
  EXPECT_EQ(values_of(*reflect), (Values{2, 1, 4, 3}));
  auto ints = make_tensor(DType::i64, {2}, {7, 8});
  EXPECT_EQ(values_of(*OneNode("Pad", 13).input(ints).ints({0, 1}).skip().run1()),
            (Values{7, 8, 0}));
}

TEST(OnnxTransformConverters, ExpandBroadcastsBothWays) {
  auto column = f32({3, 1}, {1, 2, 3});
  TensorPtr y = OneNode("Expand", 13).input(column).ints({2, 1, 2}).run1();
  EXPECT_EQ(y->shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values_of(*y), (Values{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(OneNode("Expand", 13).input(column).ints({2, 2}).error(),
            "m.onnx: node 'n' (Expand): input 0 and input 1 ('shape'): operands have incompatible "
            "shapes 3x1 and 2x2 (dimension 0: 3 vs 2)");
}

TEST(OnnxTransformConverters, GatherTileShapeConstantOfShapeRange) {
  auto x = iota({2, 3});
  TensorPtr gathered = OneNode("Gather", 13)
                           .input(x)
                           .input(make_tensor(DType::i64, {2}, {-1, 0}))
                           .attr("axis", std::int64_t{1})
                           .run1();
  EXPECT_EQ(values_of(*gathered), (Values{2, 0, 5, 3}));
  EXPECT_EQ(values_of(*OneNode("Tile", 13).input(f32({2}, {1, 2})).ints({2}).run1()),
            (Values{1, 2, 1, 2}));
  EXPECT_EQ(OneNode("Tile", 13).input(x).ints({2}).error(),
            "m.onnx: node 'n' (Tile): input 1 ('repeats') has 1 values, but input 0 has rank 2");
  TensorPtr shape = OneNode("Shape", 13).input(x).run1();
  EXPECT_EQ(shape->dtype(), DType::i64);
  EXPECT_EQ(values_of(*shape), (Values{2, 3}));
  EXPECT_EQ(values_of(*OneNode("Shape", 15).input(x).attr("start", std::int64_t{-1}).run1()),
            (Values{3}));
  // Before opset 15 start and end do not exist.
  EXPECT_EQ(values_of(*OneNode("Shape", 14).input(x).attr("start", std::int64_t{1}).run1()),
            (Values{2, 3}));
  // (ConstantOfShape's value attribute, which sets the dtype, is covered by ONNX's node tests.)
  EXPECT_EQ(values_of(*OneNode("ConstantOfShape", 9).ints({3}).run1()), (Values{0, 0, 0}));
  auto scalar = [](double v) { return make_tensor(DType::i64, {}, {v}); };
  TensorPtr range =
      OneNode("Range", 11).constant(scalar(10)).constant(scalar(3)).constant(scalar(-3)).run1();
  EXPECT_EQ(range->type(), (TensorType{DType::i64, {3}}));
  EXPECT_EQ(values_of(*range), (Values{10, 7, 4}));
  EXPECT_EQ(
      OneNode("Range", 11).constant(scalar(0)).constant(f32({}, {3})).constant(scalar(1)).error(),
      "m.onnx: node 'n' (Range): input 1 ('limit') is f32, but input 0 ('start') is i64");
}

TEST(OnnxTransformConverters, ReductionsByOpset) {
  auto x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values_of(*OneNode("ReduceSum", 11).input(x).attr("axes", Ints{1}).run1()),
            (Values{6, 15}));
  EXPECT_EQ(
      values_of(
          *OneNode("ReduceSum", 13).input(x).ints({0}).attr("keepdims", std::int64_t{0}).run1()),
      (Values{5, 7, 9}));
  EXPECT_EQ(values_of(*OneNode("ReduceSum", 13).input(x).run1()), (Values{21}));
  // noop_with_empty_axes: no axes means no reduction.
  TensorPtr noop =
      OneNode("ReduceSum", 13).input(x).attr("noop_with_empty_axes", std::int64_t{1}).run1();
  EXPECT_EQ(noop->shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(*OneNode("ReduceSumSquare", 13).input(x).attr("axes", Ints{0}).run1()),
            (Values{17, 29, 45}));
  EXPECT_EQ(values_of(*OneNode("ReduceMean", 13).input(x).attr("axes", Ints{-1}).run1()),
            (Values{2, 5}));
  EXPECT_EQ(values_of(*OneNode("ReduceMax", 7).input(x).run1()), (Values{6}));
  EXPECT_EQ(values_of(*OneNode("ReduceMin", 17).input(x).attr("axes", Ints{0}).run1()),
            (Values{1, 2, 3}));
  auto ties = f32({3}, {4, 1, 4});
  EXPECT_EQ(values_of(*OneNode("ArgMax", 11).input(ties).run1()), (Values{0}));
  EXPECT_EQ(
      values_of(
          *OneNode("ArgMax", 12).input(ties).attr("select_last_index", std::int64_t{1}).run1()),
      (Values{2}));
}

TEST(OnnxTransformConverters, SizeDepthToSpaceSpaceToDepth) {
  auto size = OneNode("Size", 13).input(iota({2, 3, 4})).run1();
  EXPECT_EQ(size->type(), (TensorType{DType::i64, {}}));
  EXPECT_EQ(values_of(*size), (Values{24}));
  // 8 channels of 1x1 into 2 channels of 2x2: DCR takes the blocks outermost, CRD innermost.
  auto x = iota({1, 8, 1, 1});
  EXPECT_EQ(
      values_of(*OneNode("DepthToSpace", 11).input(x).attr("blocksize", std::int64_t{2}).run1()),
      (Values{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(values_of(*OneNode("DepthToSpace", 11)
                           .input(x)
                           .attr("blocksize", std::int64_t{2})
                           .attr("mode", std::string("CRD"))
                           .run1()),
            (Values{0, 1, 2, 3, 4, 5, 6, 7}));
  // SpaceToDepth undoes DCR.
  auto space = OneNode("DepthToSpace", 11)
                   .input(iota({1, 8, 2, 3}))
                   .attr("blocksize", std::int64_t{2})
                   .run1();
  EXPECT_EQ(
      values_of(
          *OneNode("SpaceToDepth", 13).input(space).attr("blocksize", std::int64_t{2}).run1()),
      values_of(*iota({1, 8, 2, 3})));
  EXPECT_EQ(
      OneNode("SpaceToDepth", 13)
          .input(iota({1, 1, 3, 4}))
          .attr("blocksize", std::int64_t{2})
          .error(),
      "m.onnx: node 'n' (SpaceToDepth): dimension 2 of input 0 is 3, which 2 does not divide");
  EXPECT_EQ(
      OneNode("DepthToSpace", 13).input(iota({8, 1})).attr("blocksize", std::int64_t{2}).error(),
      "m.onnx: node 'n' (DepthToSpace): input 0 has shape 8x1, but must be 4-D (NCHW)");
}

TEST(OnnxTransformConverters, EyeLikeTriluOneHotHardmax) {
  EXPECT_EQ(values_of(*OneNode("EyeLike", 9).input(iota({2, 3})).attr("k", std::int64_t{1}).run1()),
            (Values{0, 1, 0, 0, 0, 1}));
  auto m = iota({3, 3});
  EXPECT_EQ(values_of(*OneNode("Trilu", 14).input(m).run1()), (Values{0, 1, 2, 0, 4, 5, 0, 0, 8}));
  EXPECT_EQ(values_of(*OneNode("Trilu", 14)
                           .input(m)
                           .constant(make_tensor(DType::i64, {}, {-1}))
                           .attr("upper", std::int64_t{0})
                           .run1()),
            (Values{0, 0, 0, 3, 0, 0, 6, 7, 0}));
  // Index -1 counts from the end; 5 is beyond the depth and hits nothing.
  auto hot = OneNode("OneHot", 11)
                 .input(make_tensor(DType::i64, {3}, {0, -1, 5}))
                 .constant(make_tensor(DType::i64, {}, {3}))
                 .constant(f32({2}, {-1, 1}))
                 .run1();
  EXPECT_EQ(hot->shape(), (Shape{3, 3}));
  EXPECT_EQ(values_of(*hot), (Values{1, -1, -1, -1, -1, 1, -1, -1, -1}));
  // Ties go to the first maximum; before opset 13 the input is rows from `axis` on.
  auto x = f32({2, 3}, {1, 5, 5, 7, 0, 2});
  EXPECT_EQ(values_of(*OneNode("Hardmax", 13).input(x).run1()), (Values{0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(values_of(*OneNode("Hardmax", 11).input(x).attr("axis", std::int64_t{0}).run1()),
            (Values{0, 0, 0, 1, 0, 0}));
}

// The masks of EyeLike and Trilu are computed by the graph, not stored: importing a Trilu of
// matrices 2^31 - 1 wide makes no constant of their size (it once allocated 4 GB here).
TEST(OnnxTransformConverters, TriluOfHugeMatricesStoresNoMask) {
  test::OnnxModel model("Trilu", 14);
  model.input("x", DType::f32, {3, 2, 2147483647});
  model.output("out0");
  Context context;
  auto module = model.import(context);
  ASSERT_TRUE(module.ok()) << module.error().message();
  for (const Node* node : (*module)->find_function("main")->node_list()) {
    if (node->is_op("constant")) {  // the rows' arange and shapes, folded: a few elements
      EXPECT_LE(node->result()->tensor_type().num_elements(), 2);
    }
  }
}

TEST(OnnxTransformConverters, GatherNdAndScatters) {
  auto x = iota({2, 2, 2});
  auto rows = make_tensor(DType::i64, {2, 1}, {1, 0});
  // batch_dims from opset 12: each batch's row indexes its own slice.
  EXPECT_EQ(values_of(*OneNode("GatherND", 12).input(x).input(rows).run1()),
            (Values{4, 5, 6, 7, 0, 1, 2, 3}));
  EXPECT_EQ(
      values_of(
          *OneNode("GatherND", 12).input(x).input(rows).attr("batch_dims", std::int64_t{1}).run1()),
      (Values{2, 3, 4, 5}));
  // reduction from opset 16; Scatter (opset 10) is ScatterElements.
  auto data = iota({3});
  auto at = make_tensor(DType::i64, {2}, {1, 1});
  auto updates = f32({2}, {10, 20});
  EXPECT_EQ(values_of(*OneNode("ScatterElements", 16)
                           .input(data)
                           .input(at)
                           .input(updates)
                           .attr("reduction", std::string("add"))
                           .run1()),
            (Values{0, 31, 2}));
  EXPECT_EQ(values_of(*OneNode("Scatter", 10).input(data).input(at).input(updates).run1()),
            (Values{0, 20, 2}));
  EXPECT_EQ(values_of(*OneNode("ScatterND", 16)
                           .input(data)
                           .input(make_tensor(DType::i64, {2, 1}, {1, 1}))
                           .input(updates)
                           .attr("reduction", std::string("mul"))
                           .run1()),
            (Values{0, 200, 2}));
  EXPECT_EQ(OneNode("ScatterND", 16)
                .input(data)
                .input(make_tensor(DType::i64, {2, 1}, {1, 1}))
                .input(updates)
                .attr("reduction", std::string("sum"))
                .error(),
            "m.onnx: node 'n' (ScatterND): scatter_nd: attribute 'reduction' is 'sum'; expected "
            "'none', "
            "'add', 'mul', 'max' or 'min'");
}

TEST(OnnxTransformConverters, ReverseSequenceCompressTopK) {
  // time x batch = 3x2: batch 0 reverses its first 3 steps, batch 1 its first 2.
  auto x = iota({3, 2});
  auto lens = make_tensor(DType::i64, {2}, {3, 2});
  EXPECT_EQ(values_of(*OneNode("ReverseSequence", 10).input(x).input(lens).run1()),
            (Values{4, 3, 2, 1, 0, 5}));
  EXPECT_EQ(OneNode("ReverseSequence", 10)
                .input(x)
                .input(lens)
                .attr("batch_axis", std::int64_t{0})
                .attr("time_axis", std::int64_t{0})
                .error(),
            "m.onnx: node 'n' (ReverseSequence): attributes 'batch_axis' and 'time_axis' are 0 "
            "and 0, but must be 0 and 1 or 1 and 0");
  auto keep = make_tensor(DType::boolean, {2}, {0, 1});
  EXPECT_EQ(
      values_of(
          *OneNode("Compress", 11).input(x).constant(keep).attr("axis", std::int64_t{-1}).run1()),
      (Values{1, 3, 5}));
  // Without an axis the input is flattened.
  EXPECT_EQ(values_of(*OneNode("Compress", 11).input(x).constant(keep).run1()), (Values{1}));
  EXPECT_EQ(OneNode("Compress", 11).input(x).input(keep).error(),
            "m.onnx: node 'n' (Compress): input 1 ('condition') must be a constant: the node's "
            "output shape depends on its values, and uma's shapes are static; it is the model's "
            "input 'in1', so give its value with --bind in1=FILE");
  EXPECT_EQ(OneNode("Compress", 11)
                .input(x)
                .constant(make_tensor(DType::boolean, {4}, {0, 0, 0, 1}))
                .attr("axis", std::int64_t{1})
                .error(),
            "m.onnx: node 'n' (Compress): input 1 ('condition') holds at position 3, beyond the "
            "2 elements along the axis");
  // k an attribute before opset 10, an input from 10; largest from 11.
  auto v = f32({4}, {3, 1, 4, 1});
  std::vector<TensorPtr> top =
      OneNode("TopK", 1).input(v).attr("k", std::int64_t{2}).outputs(2).run();
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(values_of(*top[0]), (Values{4, 3}));
  EXPECT_EQ(values_of(*top[1]), (Values{2, 0}));
  std::vector<TensorPtr> low =
      OneNode("TopK", 11).input(v).ints({2}).attr("largest", std::int64_t{0}).outputs(2).run();
  ASSERT_EQ(low.size(), 2u);
  EXPECT_EQ(values_of(*low[0]), (Values{1, 1}));
  EXPECT_EQ(values_of(*low[1]), (Values{1, 3}));
  EXPECT_EQ(OneNode("TopK", 11).input(v).ints({2, 1}).outputs(2).error(),
            "m.onnx: node 'n' (TopK): input 1 ('K') has 2 elements, but must have one");
  EXPECT_EQ(OneNode("TopK", 11).input(v).input(make_tensor(DType::i64, {1}, {2})).error(),
            "m.onnx: node 'n' (TopK): input 1 ('K') must be a constant: the node's output shape "
            "depends on its values, and uma's shapes are static; it is the model's input 'in1', "
            "so give its value with --bind in1=FILE");
}

TEST(OnnxTransformConverters, Einsum) {
  auto einsum = [](const std::string& equation) {
    OneNode node("Einsum", 12);
    node.attr("equation", equation);
    return node;
  };
  auto a = iota({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  auto b = iota({3, 2});  // [[0, 1], [2, 3], [4, 5]]
  // A matmul (f32: nn.matmul), its transpose, and the implicit output (labels used once).
  EXPECT_EQ(values_of(*einsum("ij,jk->ik").input(a).input(b).run1()), (Values{10, 13, 28, 40}));
  EXPECT_EQ(values_of(*einsum("ij,jk->ki").input(a).input(b).run1()), (Values{10, 28, 13, 40}));
  EXPECT_EQ(values_of(*einsum("ij,jk").input(a).input(b).run1()), (Values{10, 13, 28, 40}));
  // A diagonal, a trace, a sum over a label only one input has, and three operands.
  auto square = iota({3, 3});
  EXPECT_EQ(values_of(*einsum("ii->i").input(square).run1()), (Values{0, 4, 8}));
  EXPECT_EQ(values_of(*einsum("ii").input(square).run1()), (Values{12}));
  EXPECT_EQ(values_of(*einsum("ij,j->j").input(a).input(f32({3}, {1, 2, 3})).run1()),
            (Values{3, 10, 21}));
  EXPECT_EQ(values_of(*einsum("ij,jk,k->i").input(a).input(b).input(f32({2}, {1, -1})).run1()),
            (Values{-3, -12}));
  // Batches under an ellipsis; integers multiply and sum without nn.matmul.
  auto batched = einsum("...ij,...jk->...ik").input(iota({2, 1, 2})).input(iota({2, 2, 1})).run1();
  EXPECT_EQ(batched->shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(values_of(*batched), (Values{1, 13}));
  EXPECT_EQ(values_of(*einsum("i,i")
                           .input(make_tensor(DType::i32, {3}, {1, 2, 3}))
                           .input(make_tensor(DType::i32, {3}, {4, 5, 6}))
                           .run1()),
            (Values{32}));
  EXPECT_EQ(einsum("ij,jk->ik").input(a).input(a).error(),
            "m.onnx: node 'n' (Einsum): attribute 'equation': a label's dimensions differ, 3 and "
            "2");
  EXPECT_EQ(einsum("ijk->i").input(a).error(),
            "m.onnx: node 'n' (Einsum): attribute 'equation': term 0 ('ijk') names 3 dimensions, "
            "but input 0 has rank 2");
  EXPECT_EQ(einsum("ij->z").input(a).error(),
            "m.onnx: node 'n' (Einsum): attribute 'equation': the output's label 'z' names no "
            "input's dimension");
  EXPECT_EQ(einsum("ij,jk->ik").input(a).error(),
            "m.onnx: node 'n' (Einsum): attribute 'equation' (\"ij,jk->ik\") has 2 input terms, "
            "but the node has 1 inputs");
}

}  // namespace
}  // namespace uma
