// Unit tests of the ONNX converters of ops whose output shapes depend on their inputs' values
// (src/frontend/onnx/data_dependent.cc): NonZero, Unique and NonMaxSuppression computed at
// import from constant inputs, what ONNX's node tests leave out (scalars, exact 64-bit
// integers, NaNs, empty results), and every error with its message.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OneNode;
using test::values_of;
using Values = std::vector<double>;

// The error for input `i` of the node given as a model's input, "in<i>".
std::string not_constant(int i) {
  return fmt::format(
      " must be a constant: the node's output shape depends on its values, and uma's shapes are "
      "static; it is the model's input 'in{0}', so give its value with --bind in{0}=FILE",
      i);
}

TEST(OnnxDataDependent, NonZeroGivesCoordinatesInRowMajorOrder) {
  auto x = make_tensor(DType::i32, {2, 3}, {0, 5, 0, -1, 0, 2});
  TensorPtr result = OneNode("NonZero", 13).constant(x).run1();
  EXPECT_EQ(result->dtype(), DType::i64);
  EXPECT_EQ(result->shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(*result), (Values{0, 1, 1, 1, 0, 2}));
  // NaN is nonzero; a scalar is a one-element vector; nothing nonzero gives no columns.
  EXPECT_EQ(values_of(*OneNode("NonZero", 9).constant(f32({3}, {0, NAN, 0})).run1()), (Values{1}));
  EXPECT_EQ(OneNode("NonZero", 9).constant(f32({}, {7})).run1()->shape(), (Shape{1, 1}));
  EXPECT_EQ(OneNode("NonZero", 9).constant(f32({2, 2}, {0, 0, 0, 0})).run1()->shape(),
            (Shape{2, 0}));
  EXPECT_EQ(OneNode("NonZero", 13).input(x).error(),
            std::string("m.onnx: node 'n' (NonZero): input 0 ('X')") + not_constant(0));
}

TEST(OnnxDataDependent, UniqueSortedOrByFirstOccurrence) {
  auto x = f32({6}, {2, 1, 1, 3, 4, 3});
  std::vector<TensorPtr> sorted = OneNode("Unique", 11).constant(x).outputs(4).run();
  ASSERT_EQ(sorted.size(), 4u);
  EXPECT_EQ(values_of(*sorted[0]), (Values{1, 2, 3, 4}));
  EXPECT_EQ(values_of(*sorted[1]), (Values{1, 0, 3, 4}));
  EXPECT_EQ(values_of(*sorted[2]), (Values{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(values_of(*sorted[3]), (Values{2, 1, 2, 1}));
  std::vector<TensorPtr> first =
      OneNode("Unique", 11).constant(x).attr("sorted", std::int64_t{0}).outputs(4).run();
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(values_of(*first[0]), (Values{2, 1, 3, 4}));
  EXPECT_EQ(values_of(*first[1]), (Values{0, 1, 3, 4}));
  EXPECT_EQ(values_of(*first[2]), (Values{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(values_of(*first[3]), (Values{1, 2, 2, 1}));
}

TEST(OnnxDataDependent, UniqueAlongAnAxisComparesWholeSlices) {
  // Columns [1, 1, 2], [0, 0, 3], [0, 0, 3]: two distinct ones, [0, 0, 3] first.
  auto x = f32({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 3});
  std::vector<TensorPtr> y =
      OneNode("Unique", 11).constant(x).attr("axis", std::int64_t{-1}).outputs(4).run();
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0]->shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of(*y[0]), (Values{0, 1, 0, 1, 3, 2}));
  EXPECT_EQ(values_of(*y[1]), (Values{1, 0}));
  EXPECT_EQ(values_of(*y[2]), (Values{1, 0, 0}));
  EXPECT_EQ(values_of(*y[3]), (Values{2, 1}));
}

TEST(OnnxDataDependent, UniqueComparesExactlyAndKeepsTheDType) {
  // Two i64 values a double cannot tell apart stay two.
  auto x = std::make_shared<Tensor>(TensorType{DType::i64, {3}});
  x->data<std::int64_t>()[0] = (std::int64_t{1} << 53) + 1;
  x->data<std::int64_t>()[1] = std::int64_t{1} << 53;
  x->data<std::int64_t>()[2] = (std::int64_t{1} << 53) + 1;
  std::vector<TensorPtr> y = OneNode("Unique", 11).constant(x).outputs(4).run();
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0]->dtype(), DType::i64);
  EXPECT_EQ(y[0]->data<std::int64_t>()[0], std::int64_t{1} << 53);
  EXPECT_EQ(y[0]->data<std::int64_t>()[1], (std::int64_t{1} << 53) + 1);
  EXPECT_EQ(values_of(*y[3]), (Values{1, 2}));
  // NaNs are one value, after every number; bools work too.
  std::vector<TensorPtr> nan =
      OneNode("Unique", 11).constant(f32({4}, {NAN, 1, NAN, 0})).outputs(4).run();
  ASSERT_EQ(nan.size(), 4u);
  EXPECT_EQ(values_of(*nan[3]), (Values{1, 1, 2}));
  EXPECT_TRUE(std::isnan(nan[0]->get(2)));
  auto flags = make_tensor(DType::boolean, {3}, {1, 0, 1});
  EXPECT_EQ(values_of(*OneNode("Unique", 11).constant(flags).outputs(1).run()[0]), (Values{0, 1}));
}

TEST(OnnxDataDependent, UniqueErrors) {
  auto x = f32({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(OneNode("Unique", 11).input(x).outputs(4).error(),
            std::string("m.onnx: node 'n' (Unique): input 0 ('X')") + not_constant(0));
  EXPECT_EQ(OneNode("Unique", 11).constant(x).attr("axis", std::int64_t{2}).outputs(4).error(),
            "m.onnx: node 'n' (Unique): attribute 'axis' is 2, but must be in [-2, 1] for an "
            "input of rank 2");
  EXPECT_EQ(OneNode("Unique", 11).constant(x).attr("sorted", std::int64_t{2}).outputs(4).error(),
            "m.onnx: node 'n' (Unique): attribute 'sorted' is 2, but must be 0 or 1");
}

// Six boxes in one class: 0, 1 and 2 overlap (IoU above 0.5), 3 and 4 overlap, 5 alone.
TensorPtr six_boxes() {
  return f32({1, 6, 4}, {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                         0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101});
}
TensorPtr six_scores() { return f32({1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3}); }

// NonMaxSuppression of `boxes` and `scores` with the optional inputs given (negative: left
// out).
OneNode nms(TensorPtr boxes, TensorPtr scores, double max_boxes, double iou, double score) {
  OneNode node("NonMaxSuppression", 11);
  node.constant(boxes).constant(scores);
  if (max_boxes >= 0)
    node.constant(make_tensor(DType::i64, {1}, {max_boxes}));
  else
    node.skip();
  if (iou >= 0)
    node.constant(f32({1}, {iou}));
  else
    node.skip();
  if (score >= 0) node.constant(f32({1}, {score}));
  return node;
}

TEST(OnnxDataDependent, NonMaxSuppressionSelectsByScoreAndOverlap) {
  TensorPtr selected = nms(six_boxes(), six_scores(), 3, 0.5, 0).run1();
  EXPECT_EQ(selected->dtype(), DType::i64);
  EXPECT_EQ(selected->shape(), (Shape{3, 3}));
  EXPECT_EQ(values_of(*selected), (Values{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // The score threshold drops box 5 (0.3); a limit of 2 keeps the two best.
  EXPECT_EQ(values_of(*nms(six_boxes(), six_scores(), 3, 0.5, 0.4).run1()),
            (Values{0, 0, 3, 0, 0, 0}));
  EXPECT_EQ(values_of(*nms(six_boxes(), six_scores(), 2, 0.5, 0).run1()),
            (Values{0, 0, 3, 0, 0, 0}));
  // No limit given selects none, as the spec's default of 0 says.
  EXPECT_EQ(nms(six_boxes(), six_scores(), -1, -1, -1).run1()->shape(), (Shape{0, 3}));
  // Equal scores keep the lower index first; identical boxes suppress each other.
  auto same = f32({1, 2, 4}, {0, 0, 1, 1, 0, 0, 1, 1});
  EXPECT_EQ(values_of(*nms(same, f32({1, 1, 2}, {0.5, 0.5}), 5, 0.5, -1).run1()),
            (Values{0, 0, 0}));
  // Centre format, [x, y, width, height]: a unit box inside a 2x2 one overlaps it by 1/4,
  // above the threshold; read as corners the two overlap by 1/9 only.
  auto nested = f32({1, 2, 4}, {0.5, 0.5, 1, 1, 0.5, 0.5, 2, 2});
  auto nested_scores = f32({1, 1, 2}, {0.8, 0.9});
  EXPECT_EQ(
      values_of(
          *nms(nested, nested_scores, 5, 0.2, -1).attr("center_point_box", std::int64_t{1}).run1()),
      (Values{0, 0, 1}));
  EXPECT_EQ(values_of(*nms(nested, nested_scores, 5, 0.2, -1).run1()), (Values{0, 0, 1, 0, 0, 0}));
}

TEST(OnnxDataDependent, NonMaxSuppressionErrors) {
  auto boxes = six_boxes();
  auto scores = six_scores();
  EXPECT_EQ(
      OneNode("NonMaxSuppression", 11).input(boxes).constant(scores).error(),
      std::string("m.onnx: node 'n' (NonMaxSuppression): input 0 ('boxes')") + not_constant(0));
  EXPECT_EQ(OneNode("NonMaxSuppression", 10)
                .constant(boxes)
                .constant(scores)
                .input(make_tensor(DType::i64, {1}, {3}))
                .error(),
            std::string("m.onnx: node 'n' (NonMaxSuppression): input 2 "
                        "('max_output_boxes_per_class')") +
                not_constant(2));
  EXPECT_EQ(nms(f32({1, 6, 3}, Values(18, 0)), scores, 3, 0.5, 0).error(),
            "m.onnx: node 'n' (NonMaxSuppression): input 0 ('boxes') has shape 1x6x3, but must "
            "be batches x boxes x 4");
  EXPECT_EQ(nms(boxes, f32({1, 5}, Values(5, 0)), 3, 0.5, 0).error(),
            "m.onnx: node 'n' (NonMaxSuppression): input 1 ('scores') has shape 1x5, but must be "
            "1 x classes x 6 for boxes of shape 1x6x4");
  EXPECT_EQ(nms(boxes, scores, 3, 0.5, 0).attr("center_point_box", std::int64_t{2}).error(),
            "m.onnx: node 'n' (NonMaxSuppression): attribute 'center_point_box' is 2, but must "
            "be 0 or 1");
  EXPECT_EQ(nms(boxes, scores, 3, 1.5, 0).error(),
            "m.onnx: node 'n' (NonMaxSuppression): input 3 ('iou_threshold') is 1.5, but must be "
            "in [0, 1]");
  EXPECT_EQ(OneNode("NonMaxSuppression", 11)
                .constant(boxes)
                .constant(scores)
                .constant(make_tensor(DType::i64, {2}, {3, 3}))
                .error(),
            "m.onnx: node 'n' (NonMaxSuppression): input 2 ('max_output_boxes_per_class') has 2 "
            "elements, but must have one");
  EXPECT_EQ(OneNode("NonMaxSuppression", 11)
                .constant(boxes)
                .constant(scores)
                .constant(make_tensor(DType::i64, {1}, {-1}))
                .error(),
            "m.onnx: node 'n' (NonMaxSuppression): input 2 ('max_output_boxes_per_class') is -1, "
            "but must be at least 0");
  EXPECT_EQ(nms(make_tensor(DType::f64, {1, 6, 4}, Values(24, 0)), scores, 3, 0.5, 0).error(),
            "m.onnx: node 'n' (NonMaxSuppression): input 0 ('boxes') is f64, but must be f32");
}

}  // namespace
}  // namespace uma
