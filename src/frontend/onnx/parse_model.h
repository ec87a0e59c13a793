// Parsing a ModelProto without copying its weights (parse_model.cc).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace uma::onnx_import {

// The raw_data of the main graph's initializers, by initializer, pointing into the model's
// bytes. tensor_from_onnx takes it in place of the proto's own field, which is left empty.
using InitializerData = std::unordered_map<const onnx::TensorProto*, std::string_view>;

// The raw_data `data` holds for `proto`, if any: tensor_from_onnx's last argument.
inline std::optional<std::string_view> raw_data_of(const InitializerData& data,
                                                   const onnx::TensorProto& proto) {
  auto it = data.find(&proto);
  if (it == data.end()) return std::nullopt;
  return it->second;
}

// Parses `bytes` into `model`, except the raw_data fields of the main graph's initializers,
// which go to `data` instead: protobuf copies every bytes field it parses, and ResNet-50's
// 97 MB of weights would otherwise be copied twice (into the proto, then into tensors).
// `bytes` must outlive `data`. False when protobuf cannot parse the bytes.
bool parse_model(std::string_view bytes, onnx::ModelProto& model, InitializerData& data);

// The model's bytes without those raw_data fields, and each initializer's raw_data in
// initializer order (the last one when a proto repeats the field, as protobuf keeps it;
// nullopt for one without). nullopt when the bytes do not frame as protobuf messages (or use
// groups, which ONNX never does): then they are parsed whole and protobuf reports them.
struct SlimModel {
  std::string bytes;
  std::vector<std::optional<std::string_view>> raw_data;
};
std::optional<SlimModel> slim_model(std::string_view bytes);

}  // namespace uma::onnx_import
