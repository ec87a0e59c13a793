// Unit tests of parsing a model with its initializers' raw_data left in the model's bytes
// (src/frontend/onnx/parse_model.cc): whatever the bytes, the result is protobuf's own
// parse, with the raw_data moved out of the initializers and nothing else changed.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "../../src/frontend/onnx/parse_model.h"
#include "tensor_util.h"
#include "uma/frontend/onnx/tensor_proto.h"

namespace uma::onnx_import {
namespace {

using google::protobuf::util::MessageDifferencer;

// A field of wire type 2 (a message or bytes), encoded as protobuf encodes it.
std::string length_delimited(std::uint32_t field, const std::string& payload) {
  std::string out;
  std::uint8_t buffer[5];
  auto append = [&](std::uint32_t value) {
    std::uint8_t* end =
        google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(value, buffer);
    out.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(end - buffer));
  };
  append(field << 3 | 2);
  append(static_cast<std::uint32_t>(payload.size()));
  return out + payload;
}

onnx::TensorProto raw_tensor(const std::string& name, std::vector<double> values) {
  return tensor_to_onnx(*test::f32({static_cast<std::int64_t>(values.size())}, values), name);
}

// A model of two raw initializers, one of typed int64_data, and a Constant node whose
// tensor attribute has raw_data of its own (not an initializer: left to protobuf).
onnx::ModelProto model_with_initializers() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("g");
  *g.add_initializer() = raw_tensor("a", {1, 2, 3});
  onnx::TensorProto& typed = *g.add_initializer();
  typed.set_name("b");
  typed.set_data_type(onnx::TensorProto::INT64);
  typed.add_dims(2);
  typed.add_int64_data(4);
  typed.add_int64_data(5);
  *g.add_initializer() = raw_tensor("c", {6});
  onnx::NodeProto& node = *g.add_node();
  node.set_op_type("Constant");
  node.add_output("k");
  onnx::AttributeProto& value = *node.add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  *value.mutable_t() = raw_tensor("", {7, 8});
  return model;
}

// Parses `bytes` both ways and checks they agree: the initializers' raw_data comes out of
// the protos and into `data`, and putting it back gives protobuf's own parse. Returns the
// number of initializers whose raw_data went to `data`.
std::size_t expect_same_as_protobuf(const std::string& bytes) {
  onnx::ModelProto whole;
  EXPECT_TRUE(whole.ParseFromString(bytes));
  onnx::ModelProto model;
  InitializerData data;
  EXPECT_TRUE(parse_model(bytes, model, data));
  EXPECT_EQ(model.graph().initializer_size(), whole.graph().initializer_size());
  for (int i = 0; i < model.graph().initializer_size(); ++i) {
    onnx::TensorProto& tensor = *model.mutable_graph()->mutable_initializer(i);
    std::optional<std::string_view> raw = raw_data_of(data, tensor);
    EXPECT_FALSE(tensor.has_raw_data()) << tensor.name();
    EXPECT_EQ(raw.has_value(), whole.graph().initializer(i).has_raw_data()) << tensor.name();
    if (raw) tensor.set_raw_data(std::string(*raw));
  }
  std::string difference;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&difference);
  EXPECT_TRUE(differencer.Compare(whole, model)) << difference;
  return data.size();
}

TEST(OnnxParseModel, LeavesOnlyTheInitializersRawDataInTheBytes) {
  std::string bytes = model_with_initializers().SerializeAsString();
  std::optional<SlimModel> slim = slim_model(bytes);
  ASSERT_TRUE(slim.has_value());
  ASSERT_EQ(slim->raw_data.size(), 3u);
  EXPECT_EQ(slim->raw_data[0], raw_tensor("a", {1, 2, 3}).raw_data());
  EXPECT_EQ(slim->raw_data[1], std::nullopt);
  EXPECT_EQ(slim->raw_data[2], raw_tensor("c", {6}).raw_data());
  // The slim bytes are the model without those two fields, every other field as it was.
  onnx::ModelProto expected = model_with_initializers();
  expected.mutable_graph()->mutable_initializer(0)->clear_raw_data();
  expected.mutable_graph()->mutable_initializer(2)->clear_raw_data();
  EXPECT_EQ(slim->bytes, expected.SerializeAsString());
  EXPECT_EQ(expect_same_as_protobuf(bytes), 2u);
}

TEST(OnnxParseModel, MergesRepeatedFieldsAsProtobufDoes) {
  // Two serialized models one after the other are one model whose graphs merge: the
  // initializers of both, in order.
  onnx::ModelProto second;
  *second.mutable_graph()->add_initializer() = raw_tensor("d", {9, 10});
  std::string bytes = model_with_initializers().SerializeAsString() + second.SerializeAsString();
  EXPECT_EQ(expect_same_as_protobuf(bytes), 3u);

  // A tensor whose raw_data comes twice keeps the last, as protobuf does; the first may be
  // of another size.
  std::string tensor = raw_tensor("e", {1, 2, 3, 4}).SerializeAsString() +
                       raw_tensor("e", {5, 6}).SerializeAsString();
  std::string twice = length_delimited(7, length_delimited(5, tensor));
  std::optional<SlimModel> slim = slim_model(twice);
  ASSERT_TRUE(slim.has_value());
  ASSERT_EQ(slim->raw_data.size(), 1u);
  EXPECT_EQ(slim->raw_data[0], raw_tensor("", {5, 6}).raw_data());
  EXPECT_EQ(expect_same_as_protobuf(twice), 1u);
}

TEST(OnnxParseModel, LeavesBrokenFramingToProtobuf) {
  std::string bytes = model_with_initializers().SerializeAsString();
  onnx::ModelProto model;
  InitializerData data;
  for (std::size_t cut : {bytes.size() - 1, bytes.size() / 2, std::size_t{1}}) {
    std::string truncated = bytes.substr(0, cut);
    EXPECT_FALSE(slim_model(truncated).has_value()) << cut;
    EXPECT_FALSE(parse_model(truncated, model, data)) << cut;
    EXPECT_TRUE(data.empty());
  }
  EXPECT_FALSE(slim_model(std::string("\0", 1)).has_value());  // a zero tag

  // A group (field 99, start and end), which ONNX never writes: protobuf keeps it as an
  // unknown field, so the model parses whole, with its raw_data in the protos.
  std::string group = bytes + "\x9b\x06\x9c\x06";
  EXPECT_FALSE(slim_model(group).has_value());
  ASSERT_TRUE(parse_model(group, model, data));
  EXPECT_TRUE(data.empty());
  EXPECT_EQ(model.graph().initializer(0).raw_data(), raw_tensor("a", {1, 2, 3}).raw_data());
}

}  // namespace
}  // namespace uma::onnx_import
