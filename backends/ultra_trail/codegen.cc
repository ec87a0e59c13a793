// ultra-trail-codegen (TIR_PHASE_0): the loop nests of a function partitioned for
// ultra_trail become the calls that drive the accelerator (see passes.h for the shape).
//
// Assumes: the PrimFunc carries "ut.config", "ut.scopes", "ut.operands" and "ut.outputs"
// (layer.h), and no bound constants (ultra-trail-lift-constants made them parameters).
// Guarantees: the body computes what the loop nests did, on the accelerator: one block
// `conv1d_ncw` per layer (attribute "ut.layer" = its index), in the layers' order, whose
// loads, run and stores are extern calls that the core's later passes see as any other
// statement. A layer whose result is no output of the function writes a buffer of the
// function's own, which the next layers load. The accelerator's memories are the
// function's state (uma/tir/state.h), passed first to every call, prepared by its init.
#include <fmt/format.h>

#include "passes.h"
#include "uma/tir/state.h"

namespace uma::backends::ultra_trail {
namespace {

using namespace tir;

// sizeof(struct ut_state) of the functional model (kernels/ultra_trail.c): five i64
// registers, then the weight, feature and bias memories of the hardware's sizes. ut_init
// checks it, so a model that disagrees fails when the executor loads it.
constexpr std::int64_t kStateBytes = 5 * 8 + (64 + 32 + 2) * 1024;

Stmt call(const std::string& name, std::vector<Expr> args) {
  return EvaluateNode::make(CallNode::make(DataType::scalar(DType::i32), name, std::move(args),
                                           CallNode::CallKind::kExtern));
}

// &buffer[first, 0, ...]
Expr address(const Buffer& buffer, Expr first = Expr(0)) {
  std::vector<Expr> indices(buffer->shape.size(), Expr(0));
  if (!indices.empty()) indices[0] = std::move(first);
  return AddressNode::make(buffer, std::move(indices));
}

// The element count of a buffer of constant shape.
std::optional<std::int64_t> elements(const Buffer& buffer) {
  std::int64_t count = 1;
  for (const Expr& dim : buffer->shape) {
    std::optional<std::int64_t> extent = as_const_int(dim);
    if (!extent) return std::nullopt;
    count *= *extent;
  }
  return count;
}

template <typename T>
Expected<const T*> attr(const PrimFunc& func, std::string_view name) {
  const Attribute* value = func.attrs.find(name);
  if (value == nullptr || !std::holds_alternative<T>(*value))
    return make_error(
        "attribute '{}' is missing or of another kind (the ultra_trail graph passes "
        "did not run)",
        name);
  return &std::get<T>(*value);
}

class Emitter {
 public:
  explicit Emitter(const PrimFunc& func) : func_(func) {}

  Expected<PrimFunc> run() {
    if (func_.attrs.has("constants"))
      return make_error("it holds bound constants (ultra-trail-lift-constants did not run)");
    UMA_TRY_ASSIGN(const auto* packed, attr<std::vector<std::int64_t>>(func_, kConfigAttr));
    UMA_TRY_ASSIGN(layers_, unpack_config(*packed));
    UMA_TRY_ASSIGN(scopes_, attr<std::vector<std::string>>(func_, kScopesAttr));
    UMA_TRY_ASSIGN(operands_, attr<std::vector<std::int64_t>>(func_, kOperandsAttr));
    UMA_TRY_ASSIGN(const auto* outputs, attr<std::vector<std::int64_t>>(func_, kOutputsAttr));
    std::size_t num_outputs = func_.params.size() - func_.num_inputs;
    if (scopes_->size() != func_.num_inputs ||
        operands_->size() != layers_.size() * kOperandFields || outputs->size() != num_outputs)
      return make_error(
          "its {} input(s), {} output(s) and {} layer(s) disagree with '{}', '{}' "
          "and '{}'",
          func_.num_inputs, num_outputs, layers_.size(), kScopesAttr, kOperandsAttr, kOutputsAttr);

    // Where each layer's result goes: the outputs it is, else a buffer of the function's own.
    results_.resize(layers_.size());
    for (std::size_t k = 0; k < num_outputs; ++k) {
      std::int64_t layer = (*outputs)[k];
      if (layer < 0 || static_cast<std::size_t>(layer) >= layers_.size())
        return make_error("output {} comes from layer {}, which does not exist", k, layer);
      const Buffer& out = func_.params[func_.num_inputs + k];
      const LayerConfig& c = layers_[static_cast<std::size_t>(layer)];
      if (out->dtype != DType::f32 || elements(out) != c[kBatch] * c[kChannelsOut] * c[kLengthOut])
        return make_error("output %{} does not hold layer {}'s result", out->name, layer);
      results_[static_cast<std::size_t>(layer)].push_back(out);
    }
    std::vector<Buffer> intermediates;
    for (std::size_t j = 0; j < layers_.size(); ++j) {
      if (!results_[j].empty()) continue;
      const LayerConfig& c = layers_[j];
      intermediates.push_back(make_buffer(fmt::format("layer{}", j), DType::f32,
                                          {c[kBatch], c[kChannelsOut], c[kLengthOut]}));
      results_[j].push_back(intermediates.back());
    }

    PrimFunc result = func_;
    UMA_TRY_ASSIGN(state_, add_state(result, kStateBytes, "ut_state"));
    result.init = call("ut_init", {address(state_), Expr(kStateBytes)});
    std::vector<Stmt> blocks;
    for (std::size_t j = 0; j < layers_.size(); ++j) {
      Expected<Stmt> block = layer_block(j);
      if (!block) return block.error().with_context(fmt::format("layer {}", j));
      blocks.push_back(std::move(*block));
    }
    Stmt body = SeqNode::make(std::move(blocks));
    for (auto it = intermediates.rbegin(); it != intermediates.rend(); ++it)
      body = AllocateNode::make(*it, body);
    result.body = body;
    return result;
  }

 private:
  // The buffer operand `field` of layer j names, with the memory it goes to, checked to be
  // `scope` and to hold `bytes`.
  Expected<std::pair<Buffer, std::string>> operand(std::size_t j, OperandField field,
                                                   std::string_view scope, std::int64_t bytes) {
    std::int64_t index = (*operands_)[j * kOperandFields + field];
    Buffer buffer;
    std::string memory = "fmem";  // an earlier layer's result: features
    if (index < 0 && field == kFeatures && static_cast<std::size_t>(-index - 1) < j) {
      buffer = results_[static_cast<std::size_t>(-index - 1)].front();
    } else if (index >= 0 && static_cast<std::size_t>(index) < func_.num_inputs) {
      buffer = func_.params[static_cast<std::size_t>(index)];
      memory = (*scopes_)[static_cast<std::size_t>(index)];
    } else {
      return make_error("operand {} is {}, which names no parameter or earlier layer",
                        static_cast<std::size_t>(field), index);
    }
    if (memory != scope)
      return make_error("%{} is in scope '{}', but the layer reads it into {}", buffer->name,
                        memory, scope);
    std::optional<std::int64_t> count = elements(buffer);
    if (buffer->dtype != DType::f32 || !count || *count * 4 != bytes)
      return make_error("%{} does not hold the {} bytes of f32 the configuration says",
                        buffer->name, bytes);
    return std::pair{buffer, memory};
  }

  Expected<Stmt> layer_block(std::size_t j) {
    const LayerConfig& c = layers_[j];
    LayerBytes bytes = layer_bytes(c);
    std::int64_t batch = c[kBatch];
    // Features, weights and bias hold every sample; the memories one sample at a time.
    UMA_TRY_ASSIGN(auto features, operand(j, kFeatures, "fmem", bytes.input * batch));
    UMA_TRY_ASSIGN(auto weights, operand(j, kWeights, "wmem", bytes.weights));
    std::vector<Buffer> reads = {features.first, weights.first};
    Expr state = address(state_);
    std::vector<Stmt> body = {
        call("ut_load_" + weights.second, {state, address(weights.first), Expr(bytes.weights)})};
    if (c[kBias]) {
      UMA_TRY_ASSIGN(auto bias, operand(j, kBiasOperand, "bmem", bytes.bias));
      reads.push_back(bias.first);
      body.push_back(
          call("ut_load_" + bias.second, {state, address(bias.first), Expr(bytes.bias)}));
    }

    Var n = VarNode::make("n");
    Expr sample = batch == 1 ? Expr(0) : n;
    std::vector<Expr> config = {state};
    for (std::size_t f = kDimension; f < kConfigFields; ++f)
      config.push_back(IntImmNode::make(DataType::scalar(DType::i32), c[f]));
    std::vector<Stmt> per_sample = {
        call("ut_load_" + features.second,
             {state, address(features.first, sample), Expr(bytes.input)}),
        call("ut_run", std::move(config))};
    for (const Buffer& result : results_[j])
      per_sample.push_back(
          call("ut_store_fmem", {state, address(result, sample), Expr(bytes.output)}));
    Stmt samples = SeqNode::make(std::move(per_sample));
    if (batch != 1) samples = ForNode::make(n, Expr(0), Expr(batch), ForKind::kSerial, samples);
    body.push_back(samples);

    AttrMap attrs;
    attrs.set("ut.layer", static_cast<std::int64_t>(j));
    return BlockNode::make("conv1d_ncw", std::move(reads), results_[j], SeqNode::make(body),
                           std::move(attrs));
  }

  const PrimFunc& func_;
  std::vector<LayerConfig> layers_;
  const std::vector<std::string>* scopes_ = nullptr;
  const std::vector<std::int64_t>* operands_ = nullptr;
  std::vector<std::vector<Buffer>> results_;  // per layer: the buffers its result goes to
  Buffer state_;                              // the accelerator's memories
};

}  // namespace

Expected<PrimFunc> emit_accelerator_calls(const PrimFunc& func, const Target&) {
  Expected<PrimFunc> emitted = Emitter(func).run();
  if (!emitted) return emitted.error().with_context(fmt::format("func @{}", func.name));
  return emitted;
}

}  // namespace uma::backends::ultra_trail
