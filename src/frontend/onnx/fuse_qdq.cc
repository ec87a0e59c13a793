// DequantizeLinear -> Conv -> QuantizeLinear chains to QLinearConv (see fuse_qdq.h).
#include "fuse_qdq.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "uma/frontend/onnx/tensor_proto.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

class QdqFusion {
 public:
  QdqFusion(onnx::GraphProto& graph, const InitializerData& data, const std::string& model_dir)
      : graph_(graph), data_(data), model_dir_(model_dir) {
    for (const onnx::TensorProto& init : graph.initializer()) initializers_[init.name()] = &init;
    for (const onnx::NodeProto& node : graph.node()) {
      for (const std::string& output : node.output()) producers_[output] = &node;
      for (const std::string& input : node.input()) {
        ++uses_[input];
        users_[input] = &node;
      }
    }
    for (const onnx::ValueInfoProto& output : graph.output()) ++uses_[output.name()];
  }

  Status run() {
    std::unordered_set<const onnx::NodeProto*> fused_quantize;
    for (onnx::NodeProto& node : *graph_.mutable_node()) {
      if (node.op_type() != "Conv" || !is_default_domain(node.domain())) continue;
      UMA_TRY_ASSIGN(const onnx::NodeProto* quantize, fuse(node));
      if (quantize != nullptr) fused_quantize.insert(quantize);
    }
    if (fused_quantize.empty()) return Status::success();
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    for (onnx::NodeProto& node : *graph_.mutable_node())
      if (!fused_quantize.count(&node)) *kept.Add() = std::move(node);
    graph_.mutable_node()->Swap(&kept);
    return Status::success();
  }

 private:
  // The node of `op_type` that produces `name`, or nullptr.
  const onnx::NodeProto* producer(const std::string& name, const char* op_type) const {
    auto it = producers_.find(name);
    if (it == producers_.end()) return nullptr;
    const onnx::NodeProto* node = it->second;
    return node->op_type() == op_type && is_default_domain(node->domain()) ? node : nullptr;
  }

  // The number of elements of an initializer, or -1 for a name that is none.
  std::int64_t elements(const std::string& name) const {
    auto it = initializers_.find(name);
    if (name.empty() || it == initializers_.end()) return -1;
    std::int64_t count = 1;
    for (std::int64_t dim : it->second->dims()) {
      std::optional<std::int64_t> product = dim < 0 ? std::nullopt : checked_mul(count, dim);
      if (!product) return -1;  // the import refuses such a tensor later, with its reason
      count = *product;
    }
    return count;
  }

  // An initializer of u8 or i8: QLinearConv's data, weight and zero points are (DequantizeLinear
  // also takes i32).
  bool is_8bit(const std::string& name) const {
    auto it = initializers_.find(name);
    if (it == initializers_.end()) return false;
    const int type = it->second->data_type();
    return type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT8;
  }

  // Input i of `node`, or "" when it has none.
  static const std::string& input(const onnx::NodeProto& node, int i) {
    static const std::string none;
    return i < node.input_size() ? node.input(i) : none;
  }

  // A quantization node (DequantizeLinear or QuantizeLinear) with a scale and a zero point
  // of one element each.
  bool per_tensor(const onnx::NodeProto& node) const {
    return elements(input(node, 1)) == 1 && elements(input(node, 2)) == 1;
  }

  // The weight's DequantizeLinear: per tensor, or per output channel along axis 0.
  bool weight_scales_fit(const onnx::NodeProto& dequantize, std::int64_t out_channels) const {
    if (per_tensor(dequantize)) return true;
    std::int64_t axis = 1;
    for (const onnx::AttributeProto& attr : dequantize.attribute())
      if (attr.name() == "axis") axis = attr.i();
    return axis == 0 && elements(input(dequantize, 1)) == out_channels &&
           elements(input(dequantize, 2)) == out_channels;
  }

  Expected<std::shared_ptr<Tensor>> initializer(const std::string& name) const {
    const onnx::TensorProto& proto = *initializers_.at(name);
    return tensor_from_onnx(proto, fmt::format("initializer '{}'", name), model_dir_,
                            raw_data_of(data_, proto));
  }

  // A bias QLinearConv can take in its place: an i32 initializer dequantized with zero
  // point 0 and scale x_scale * w_scale (per channel), in f32 as quantizers compute it.
  Expected<bool> bias_fits(const onnx::NodeProto& bias, const onnx::NodeProto& x,
                           const onnx::NodeProto& w, std::int64_t out_channels) const {
    const std::string &values = input(bias, 0), &scale = input(bias, 1), &zero = input(bias, 2);
    const std::int64_t scales = elements(scale);
    if (elements(values) != out_channels || (scales != 1 && scales != out_channels)) return false;
    if (initializers_.at(values)->data_type() != onnx::TensorProto::INT32) return false;
    if (!zero.empty()) {
      if (elements(zero) < 1) return false;
      UMA_TRY_ASSIGN(TensorPtr zeros, initializer(zero));
      for (std::int64_t i = 0; i < zeros->num_elements(); ++i)
        if (zeros->get(i) != 0) return false;
    }
    UMA_TRY_ASSIGN(TensorPtr bias_scale, initializer(scale));
    UMA_TRY_ASSIGN(TensorPtr x_scale, initializer(input(x, 1)));
    UMA_TRY_ASSIGN(TensorPtr w_scale, initializer(input(w, 1)));
    for (std::int64_t m = 0; m < out_channels; ++m) {
      auto at = [m](const TensorPtr& t) {
        return static_cast<float>(t->get(t->num_elements() == 1 ? 0 : m));
      };
      if (at(bias_scale) != at(x_scale) * at(w_scale)) return false;
    }
    return true;
  }

  // The QuantizeLinear that `conv`, now a QLinearConv, took the place of; nullptr when the
  // chain around it is not one QLinearConv can say.
  Expected<const onnx::NodeProto*> fuse(onnx::NodeProto& conv) {
    if (conv.input_size() < 2 || conv.output_size() != 1) return nullptr;
    const onnx::NodeProto* x = producer(conv.input(0), "DequantizeLinear");
    const onnx::NodeProto* w = producer(conv.input(1), "DequantizeLinear");
    auto use = uses_.find(conv.output(0));
    if (x == nullptr || w == nullptr || use == uses_.end() || use->second != 1) return nullptr;
    auto user = users_.find(conv.output(0));
    if (user == users_.end()) return nullptr;  // a graph output only
    const onnx::NodeProto* quantize = user->second;
    if (quantize->op_type() != "QuantizeLinear" || !is_default_domain(quantize->domain()) ||
        input(*quantize, 0) != conv.output(0) || !per_tensor(*x) || !per_tensor(*quantize))
      return nullptr;
    const std::int64_t weights = elements(input(*w, 0));
    auto weight_dims = initializers_.find(input(*w, 0));
    if (weights < 1 || weight_dims->second->dims_size() < 1) return nullptr;
    const std::int64_t out_channels = weight_dims->second->dims(0);
    if (!weight_scales_fit(*w, out_channels)) return nullptr;
    for (const std::string* name :
         {&input(*x, 2), &input(*w, 0), &input(*w, 2), &input(*quantize, 2)})
      if (!is_8bit(*name)) return nullptr;
    const onnx::NodeProto* bias = nullptr;
    if (!input(conv, 2).empty()) {
      bias = producer(conv.input(2), "DequantizeLinear");
      if (bias == nullptr) return nullptr;
      UMA_TRY_ASSIGN(bool fits, bias_fits(*bias, *x, *w, out_channels));
      if (!fits) return nullptr;
    }
    onnx::NodeProto fused;
    fused.set_name(conv.name());
    fused.set_op_type("QLinearConv");
    for (const std::string* name :
         {&input(*x, 0), &input(*x, 1), &input(*x, 2), &input(*w, 0), &input(*w, 1), &input(*w, 2),
          &input(*quantize, 1), &input(*quantize, 2)})
      fused.add_input(*name);
    if (bias != nullptr) fused.add_input(input(*bias, 0));
    fused.add_output(quantize->output(0));
    *fused.mutable_attribute() = conv.attribute();
    conv = std::move(fused);
    return quantize;
  }

  onnx::GraphProto& graph_;
  const InitializerData& data_;
  const std::string& model_dir_;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, const onnx::NodeProto*> producers_;
  std::unordered_map<std::string, int> uses_;                      // by nodes and as graph outputs
  std::unordered_map<std::string, const onnx::NodeProto*> users_;  // a node that uses it
};

}  // namespace

Status fuse_qdq_convolutions(onnx::GraphProto& graph, const InitializerData& data,
                             const std::string& model_dir) {
  return QdqFusion(graph, data, model_dir).run();
}

}  // namespace uma::onnx_import
