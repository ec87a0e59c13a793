// Parsing a ModelProto with its initializers' raw_data left in the model's bytes. The walk
// reads protobuf's wire format with protobuf's own CodedInputStream, three messages deep
// (ModelProto.graph, GraphProto.initializer, TensorProto.raw_data), copying every other
// field as it is and writing new lengths for the messages it shortens.
#include "parse_model.h"

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <limits>

namespace uma::onnx_import {
namespace {

namespace io = google::protobuf::io;

// Field numbers of onnx.proto.
constexpr std::uint32_t kModelGraph = 7;
constexpr std::uint32_t kGraphInitializer = 5;
constexpr std::uint32_t kTensorRawData = 9;

enum class Message { kModel, kGraph, kTensor };

// Wire types of protobuf's encoding.
enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void append_varint(std::string& out, std::uint32_t value) {
  std::uint8_t buffer[5];  // a varint of 32 bits takes at most 5 bytes
  std::uint8_t* end = io::CodedOutputStream::WriteVarint32ToArray(value, buffer);
  out.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(end - buffer));
}

// Appends the message `bytes` (of kind `message`) to `out`, without the raw_data of the
// initializers inside it, which go to `raw_data`. False on broken framing.
bool slim(std::string_view bytes, Message message, std::string& out,
          std::vector<std::optional<std::string_view>>& raw_data) {
  io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  std::size_t tensor = raw_data.size();
  if (message == Message::kTensor) raw_data.emplace_back();
  for (;;) {
    auto start = static_cast<std::size_t>(in.CurrentPosition());
    std::uint32_t tag = in.ReadTag();
    if (tag == 0) return start == bytes.size();  // the end, or a zero tag (invalid)
    auto tag_end = static_cast<std::size_t>(in.CurrentPosition());
    std::uint32_t field = tag >> 3;
    switch (tag & 7) {
      case kVarint: {
        std::uint64_t value = 0;
        if (!in.ReadVarint64(&value)) return false;
        break;
      }
      case kFixed64:
        if (!in.Skip(8)) return false;
        break;
      case kFixed32:
        if (!in.Skip(4)) return false;
        break;
      case kLengthDelimited: {
        std::uint32_t length = 0;
        if (!in.ReadVarint32(&length)) return false;
        auto payload = static_cast<std::size_t>(in.CurrentPosition());
        if (length > bytes.size() - payload || !in.Skip(static_cast<int>(length))) return false;
        std::string_view inner = bytes.substr(payload, length);
        std::optional<Message> nested;
        if (message == Message::kModel && field == kModelGraph) nested = Message::kGraph;
        if (message == Message::kGraph && field == kGraphInitializer) nested = Message::kTensor;
        if (message == Message::kTensor && field == kTensorRawData) {
          raw_data[tensor] = inner;
          continue;
        }
        if (nested) {
          std::string slimmed;
          if (!slim(inner, *nested, slimmed, raw_data)) return false;
          out.append(bytes.substr(start, tag_end - start));
          append_varint(out, static_cast<std::uint32_t>(slimmed.size()));
          out += slimmed;
          continue;
        }
        break;
      }
      default:  // groups, or no wire type at all
        return false;
    }
    out.append(bytes.substr(start, static_cast<std::size_t>(in.CurrentPosition()) - start));
  }
}

}  // namespace

std::optional<SlimModel> slim_model(std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  SlimModel model;
  if (!slim(bytes, Message::kModel, model.bytes, model.raw_data)) return std::nullopt;
  return model;
}

bool parse_model(std::string_view bytes, onnx::ModelProto& model, InitializerData& data) {
  data.clear();
  if (std::optional<SlimModel> slimmed = slim_model(bytes)) {
    if (model.ParseFromString(slimmed->bytes) &&
        static_cast<std::size_t>(model.graph().initializer_size()) == slimmed->raw_data.size()) {
      for (int i = 0; i < model.graph().initializer_size(); ++i)
        if (const auto& raw = slimmed->raw_data[static_cast<std::size_t>(i)])
          data.emplace(&model.graph().initializer(i), *raw);
      return true;
    }
    model.Clear();
  }
  return model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace uma::onnx_import
