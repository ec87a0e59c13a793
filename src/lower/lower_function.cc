// lower_function: a graph function becomes one PrimFunc (see uma/lower/lower.h).
//
// Every graph value is a `Lazy`: the stage that computes it, and the buffer holding it once
// something needed it written. Reading a value decides, at the moment of the read, whether
// it is inlined or materialized:
// - a pointwise stage is inlined, except inside a reduction's body when it is not injective
//   (recomputing it once per reduction step would be costly): then it is materialized;
// - a reduction is materialized when anything reads it while the function's nodes lower
//   (a reduction, a materialized stage). Only at the end, when the outputs are built, are
//   its reads recorded as placeholders, so that the output it feeds can be fused with it.
// Materializing emits the stage's block right away, after the blocks of whatever its body
// needed materialized: the blocks come out in an order that computes every buffer before
// it is read.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "emit_block.h"
#include "uma/lower/compute_util.h"
#include "uma/lower/lower.h"
#include "uma/tir/functor.h"
#include "uma/tir/run_checks.h"
#include "uma/tir/simplify.h"

namespace uma::lower {

using namespace tir;

namespace {

struct Lazy {
  Stage stage;
  // The buffer holding the value, once written (parameters, large constants: from the start).
  std::optional<TensorView> materialized;
  // The first function output that is this value, or -1: materializing it writes there.
  int output = -1;
  std::size_t order = 0;  // creation order
};
using LazyPtr = std::shared_ptr<Lazy>;

// A graph value: a tensor, or a tuple of values.
struct Slot {
  LazyPtr tensor;
  std::vector<Slot> fields;
};

// A read of a pending reduction while the outputs are built: the variable standing for it.
struct Placeholder {
  Var var;
  LazyPtr lazy;
  Indices indices;
};

TensorView buffer_view(const Buffer& buffer, DType dtype, const Shape& shape) {
  return TensorView{dtype, shape,
                    [buffer](const Indices& idx) { return LoadNode::make(buffer, idx); }, buffer};
}

std::vector<Expr> shape_exprs(const Shape& shape) {
  std::vector<Expr> dims;
  for (std::int64_t d : shape) dims.push_back(Expr(d));
  return dims;
}

// Element i of a constant as an immediate of its dtype, read exactly (integers are not
// rounded through double).
Expr constant_element(const Tensor& t, std::int64_t i) {
  DataType type = DataType::scalar(t.dtype());
  switch (t.dtype()) {
#define UMA_LOWER_INT_ELEMENT(e, name, ctype, bytes, kind)                          \
  case DType::e:                                                                    \
    if constexpr (kind != DTypeKind::Float)                                         \
      return IntImmNode::make(type, static_cast<std::int64_t>(t.data<ctype>()[i])); \
    break;
    UMA_FOR_EACH_DTYPE(UMA_LOWER_INT_ELEMENT)
#undef UMA_LOWER_INT_ELEMENT
  }
  return FloatImmNode::make(type, t.get(i));
}

std::string value_name(const Value& value, std::string_view fallback) {
  return value.name().empty() ? std::string(fallback) : value.name();
}

Status check_stage(const Stage& stage, const Type& type) {
  const TensorType& result = type.tensor();
  if (stage.dtype != result.dtype || stage.shape != result.shape)
    return make_error("the compute rule gave stage '{}' of type {} for a result of type {}",
                      stage.name, to_string(Type(TensorType{stage.dtype, stage.shape})),
                      to_string(type));
  if (stage.name.empty()) return make_error("the compute rule gave a stage without a name");
  if ((stage.element != nullptr) == stage.reduction.has_value())
    return make_error("the compute rule's stage '{}' must be pointwise or a reduction", stage.name);
  if (stage.reduction && stage.reduction->body == nullptr)
    return make_error("the compute rule's stage '{}' has a reduction without a body", stage.name);
  return Status::success();
}

class Lowerer final : public ComputeBuilder {
 public:
  Lowerer(const Function& function, const LowerOptions& options)
      : function_(function), options_(options) {}

  Expected<PrimFunc> run() {
    std::unordered_map<const Value*, Slot> slots;
    for (std::size_t i = 0; i < function_.num_params(); ++i) {
      const Value* param = function_.param(i);
      if (!param->type().is_tensor())
        return make_error("function @{}: parameter {} is a tuple, which lowering does not take",
                          function_.name(), i);
      const TensorType& type = param->tensor_type();
      Buffer buffer = make_buffer(value_name(*param, fmt::format("p{}", i)), type.dtype,
                                  shape_exprs(type.shape));
      params_.push_back(buffer);
      slots[param].tensor =
          new_lazy(pointwise_stage(buffer->name, type.dtype, type.shape, nullptr), buffer);
    }
    for (std::size_t k = 0; k < function_.outputs().size(); ++k) {
      const Value* out = function_.outputs()[k];
      if (!out->type().is_tensor())
        return make_error("function @{}: output {} is a tuple, which lowering does not take",
                          function_.name(), k);
      output_index_.emplace(out, static_cast<int>(k));
      std::string fallback = function_.outputs().size() == 1 ? "out" : fmt::format("out{}", k);
      const TensorType& type = out->tensor_type();
      outputs_.push_back(
          make_buffer(value_name(*out, fallback), type.dtype, shape_exprs(type.shape)));
    }
    written_.assign(outputs_.size(), false);
    for (const Value* param : function_.params()) mark_output(param, slots.at(param));
    UMA_TRY(lower_nodes(function_, slots));
    write_outputs(slots);
    return finish();
  }

  TensorView materialize(Stage stage) override {
    if (stage.attrs.empty() && current_ != nullptr) stage.attrs = block_attrs(*current_);
    Buffer buffer = new_intermediate(stage.name, stage.dtype, stage.shape);
    emit(stage, buffer, output_vars(stage), nullptr);
    return buffer_view(buffer, stage.dtype, stage.shape);
  }

  Var var(std::string_view name) override { return VarNode::make(std::string(name)); }

  void check(const Shape& shape, const std::function<Expr(const Indices&)>& failed,
             const std::function<Expr(const Indices&)>& value, std::string_view message) override {
    UMA_CHECK(current_ != nullptr, "a run-time check outside a node's compute rule");
    // Nothing is read from an empty tensor, and the interpreter refuses nothing there.
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return;
    if (error_record_ == nullptr)
      error_record_ =
          make_buffer("uma_error", DType::i64, {Expr(kErrorRecordSize)}, std::string(kErrorScope));
    // The location is text from the model, and the message a template: its braces are
    // escaped.
    std::string where;
    for (char c : current_->location()) {
      where += c;
      if (c == '{' || c == '}') where += c;
    }
    bool saved = in_reduction_;
    in_reduction_ = false;
    // Built before it is appended: a read may first emit the block of what it reads.
    Stmt block = emit_check_block(shape, failed, value, error_record_,
                                  static_cast<std::int64_t>(checks_.size()) + 1);
    in_reduction_ = saved;
    if (!block.defined()) return;
    checks_.push_back(fmt::format("{}: {}", where, message));
    blocks_.push_back(block);
  }

 private:
  // ---- values ----

  LazyPtr new_lazy(Stage stage, const Buffer& buffer = nullptr) {
    auto lazy = std::make_shared<Lazy>();
    lazy->order = next_order_++;
    if (buffer != nullptr) lazy->materialized = buffer_view(buffer, stage.dtype, stage.shape);
    lazy->stage = std::move(stage);
    return lazy;
  }

  void mark_output(const Value* value, const Slot& slot) {
    auto it = output_index_.find(value);
    if (it != output_index_.end() && slot.tensor && slot.tensor->output < 0)
      slot.tensor->output = it->second;
  }

  TensorView view(const LazyPtr& lazy) {
    const Stage& stage = lazy->stage;
    // A value already in a buffer is read from it, not through its padding.
    return TensorView{stage.dtype, stage.shape,
                      [this, lazy](const Indices& idx) { return read(lazy, idx); },
                      lazy->materialized ? lazy->materialized->buffer : nullptr,
                      lazy->materialized ? nullptr : stage.padding};
  }

  Expr read(const LazyPtr& lazy, const Indices& idx) {
    UMA_CHECK(idx.size() == lazy->stage.shape.size(), "stage {} of rank {} read with {} indices",
              lazy->stage.name, lazy->stage.shape.size(), idx.size());
    if (lazy->materialized) return lazy->materialized->at(idx);
    if (lazy->stage.reduction && recording_) {
      Var var = VarNode::make(lazy->stage.name, DataType::scalar(lazy->stage.dtype));
      placeholders_.push_back({var, lazy, idx});
      return var;
    }
    if (lazy->stage.reduction || (in_reduction_ && !lazy->stage.injective)) {
      materialize_lazy(*lazy);
      return lazy->materialized->at(idx);
    }
    return lazy->stage.element(idx);
  }

  // Writes the value into its output buffer (when it is an output not yet written) or into a
  // new intermediate buffer.
  void materialize_lazy(Lazy& lazy) {
    const Stage& stage = lazy.stage;
    Buffer target;
    if (lazy.output >= 0 && !written_[lazy.output]) {
      target = outputs_[lazy.output];
      written_[lazy.output] = true;
    } else {
      target = new_intermediate(stage.name, stage.dtype, stage.shape);
    }
    emit(stage, target, output_vars(stage), nullptr);
    lazy.materialized = buffer_view(target, stage.dtype, stage.shape);
  }

  Buffer new_intermediate(const std::string& name, DType dtype, const Shape& shape) {
    Buffer buffer = make_buffer(name, dtype, shape_exprs(shape));
    intermediates_.push_back(buffer);
    return buffer;
  }

  void emit(const Stage& stage, const Buffer& target, std::vector<Var> vars,
            std::function<Expr(const Expr&)> epilogue) {
    bool saved = in_reduction_;
    in_reduction_ = false;
    Stmt block = emit_block({.stage = &stage,
                             .target = target,
                             .vars = std::move(vars),
                             .epilogue = std::move(epilogue),
                             .in_reduction = &in_reduction_});
    in_reduction_ = saved;
    blocks_.push_back(block);
  }

  // ---- nodes ----

  Status lower_nodes(const Function& function, std::unordered_map<const Value*, Slot>& slots) {
    for (const auto& owned : function.nodes()) {
      const Node& node = *owned;
      UMA_TRY(lower_node(node, slots));
      for (const Value* result : node.results()) mark_output(result, slots.at(result));
    }
    return Status::success();
  }

  Status lower_node(const Node& node, std::unordered_map<const Value*, Slot>& slots) {
    if (node.is_op("constant")) return lower_constant(node, slots);
    if (node.is_op("tuple")) {
      Slot& tuple = slots[node.result()];
      for (const Value* operand : node.operands()) tuple.fields.push_back(slots.at(operand));
      return Status::success();
    }
    if (node.is_op("get_item")) {
      const Slot& tuple = slots.at(node.operand(0));
      auto index = static_cast<std::size_t>(node.attrs().get_int("index"));
      UMA_CHECK(index < tuple.fields.size(), "get_item out of range at {}", node.location());
      slots[node.result()] = tuple.fields[index];
      return Status::success();
    }
    if (node.is_op("call")) return inline_call(node, slots);

    std::vector<TensorView> inputs;
    for (std::size_t i = 0; i < node.num_operands(); ++i) {
      const Slot& slot = slots.at(node.operand(i));
      if (!slot.tensor)
        return make_error("{}: operand {} is a tuple, which op {} does not take", node.location(),
                          i, node.op_name());
      inputs.push_back(view(slot.tensor));
    }
    const ComputeRule* rule =
        options_.overrides != nullptr ? options_.overrides->find(node.op_name()) : nullptr;
    if (rule == nullptr) rule = default_computes().find(node.op_name());
    if (rule == nullptr)
      return make_error("{}: op {} has no compute rule to lower it with", node.location(),
                        node.op_name());
    current_ = &node;
    Expected<std::vector<Stage>> stages = (*rule)(node, inputs, *this);
    current_ = nullptr;
    if (!stages) return stages.error().with_context(node.location());
    if (stages->size() != node.num_results())
      return make_error("{}: the compute rule gave {} stage(s) for {} result(s)", node.location(),
                        stages->size(), node.num_results());
    for (std::size_t i = 0; i < stages->size(); ++i) {
      Stage& stage = (*stages)[i];
      if (Status ok = check_stage(stage, node.result(i)->type()); !ok)
        return ok.error().with_context(node.location());
      if (stage.attrs.empty()) stage.attrs = block_attrs(node);
      slots[node.result(i)].tensor = new_lazy(std::move(stage));
    }
    return Status::success();
  }

  Status lower_constant(const Node& node, std::unordered_map<const Value*, Slot>& slots) {
    const TensorPtr& tensor = node.attrs().get_tensor("value");
    if (!tensor->has_data())
      return make_error("{}: the constant has no data (it was printed with its data elided)",
                        node.location());
    const Value& value = *node.result();
    const TensorType& type = tensor->type();
    std::string name = value_name(value, "constant");
    if (type.num_elements() > options_.max_immediate_elements) {
      Buffer buffer = make_buffer(name, type.dtype, shape_exprs(type.shape));
      constants_.push_back({buffer, tensor});
      slots[&value].tensor =
          new_lazy(pointwise_stage(name, type.dtype, type.shape, nullptr), buffer);
      return Status::success();
    }
    std::vector<Expr> elements;
    bool uniform = true;
    for (std::int64_t i = 0; i < type.num_elements(); ++i) {
      elements.push_back(constant_element(*tensor, i));
      uniform &= equal(elements[i], elements[0]);
    }
    Shape shape = type.shape;
    // Reading an immediate is as cheap as an index: injective, so inlined everywhere.
    Expr zero = constant(type.dtype, 0);
    auto element = [elements, shape, uniform, zero](const Indices& idx) -> Expr {
      if (elements.empty()) return zero;  // an empty tensor: built, never read
      if (uniform || elements.size() == 1) return elements[0];
      Expr flat = Expr(0);
      for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
      flat = simplify(flat);
      if (auto at = as_const_int(flat)) return elements[static_cast<std::size_t>(*at)];
      Expr picked = elements.back();
      for (std::size_t i = elements.size() - 1; i-- > 0;)
        picked = SelectNode::make(flat == static_cast<std::int64_t>(i), elements[i], picked);
      return picked;
    };
    Stage stage = pointwise_stage(name, type.dtype, shape, element, /*injective=*/true);
    slots[&value].tensor = new_lazy(std::move(stage));
    return Status::success();
  }

  // A call of a Composite function: its nodes lower in place, reading the call's operands.
  Status inline_call(const Node& node, std::unordered_map<const Value*, Slot>& slots) {
    const Function* callee = node.callee();
    if (callee == nullptr || !callee->attrs().has("Composite"))
      return make_error(
          "{}: calls @{}, which is not a composite function; lower each function on its own",
          node.location(), callee != nullptr ? callee->name() : "?");
    if (options_.composite_lowerings != nullptr) {
      std::string composite = callee->attrs().get_string("Composite");
      auto it = options_.composite_lowerings->find(composite);
      if (it != options_.composite_lowerings->end())
        return lower_composite(node, composite, it->second, slots);
    }
    std::unordered_map<const Value*, Slot> inner;
    for (std::size_t i = 0; i < callee->num_params(); ++i)
      inner[callee->param(i)] = slots.at(node.operand(i));
    UMA_TRY(lower_nodes(*callee, inner));
    for (std::size_t i = 0; i < node.num_results(); ++i)
      slots[node.result(i)] = inner.at(callee->outputs()[i]);
    return Status::success();
  }

  // A call of a composite with a lowering: one block, named after the composite, whose body
  // is the lowering's extern call (see lower.h).
  Status lower_composite(const Node& node, const std::string& composite,
                         const CompositeLowering& lowering,
                         std::unordered_map<const Value*, Slot>& slots) {
    const Function& callee = *node.callee();
    auto fail = [&](const Error& error) {
      return error.with_context(fmt::format("{}: composite {}", node.location(), composite));
    };
    std::unordered_map<const Value*, Buffer> buffers;
    std::vector<Buffer> reads, writes;
    // Reads: the call's operands, then the composite's constants, each in a buffer.
    auto read_buffer = [&](const Value* value, const Slot& slot) -> Status {
      if (!slot.tensor) return make_error("an operand is a tuple, which a lowering does not take");
      if (!slot.tensor->materialized) materialize_lazy(*slot.tensor);
      const Buffer& buffer = slot.tensor->materialized->buffer;
      buffers[value] = buffer;
      if (std::find(reads.begin(), reads.end(), buffer) == reads.end()) reads.push_back(buffer);
      return Status::success();
    };
    std::unordered_map<const Value*, Slot> inner;
    for (std::size_t i = 0; i < callee.num_params(); ++i) {
      inner[callee.param(i)] = slots.at(node.operand(i));
      if (Status ok = read_buffer(callee.param(i), inner[callee.param(i)]); !ok)
        return fail(ok.error());
    }
    const Node* anchor = nullptr;
    for (const auto& owned : callee.nodes()) {
      if (!owned->is_op("constant")) {
        if (anchor == nullptr) anchor = owned.get();
        continue;
      }
      UMA_TRY(lower_constant(*owned, inner));
      if (Status ok = read_buffer(owned->result(), inner.at(owned->result())); !ok)
        return fail(ok.error());
    }
    // Writes: an output of the function not yet written, else a buffer of its own.
    for (std::size_t r = 0; r < node.num_results(); ++r) {
      const Value* result = node.result(r);
      if (!result->type().is_tensor())
        return fail(make_error("result {} is a tuple, which a lowering does not give", r));
      const TensorType& type = result->tensor_type();
      std::string name = value_name(*result, block_name(composite));
      Buffer target;
      auto output = output_index_.find(result);
      if (output != output_index_.end() && !written_[output->second]) {
        target = outputs_[output->second];
        written_[output->second] = true;
      } else {
        target = new_intermediate(name, type.dtype, type.shape);
      }
      buffers[callee.outputs()[r]] = target;
      writes.push_back(target);
      slots[result].tensor =
          new_lazy(pointwise_stage(name, type.dtype, type.shape, nullptr), target);
    }
    if (options_.tiler != nullptr && *options_.tiler) {
      Expected<Stmt> tiled = (*options_.tiler)(CompositeOperands(node, std::move(buffers)), lowering);
      if (!tiled) return fail(tiled.error());
      blocks_.push_back(BlockNode::make(composite, std::move(reads), std::move(writes), *tiled,
                                        anchor != nullptr ? block_attrs(*anchor) : AttrMap()));
      return Status::success();
    }
    Expected<ExternCall> call = lowering(CompositeOperands(node, std::move(buffers)));
    if (!call) return fail(call.error());
    if (call->workspace) {
      if (*call->workspace < 0)
        return fail(
            make_error("{} asks for a workspace of {} bytes", call->name, *call->workspace));
      if (*call->workspace == 0) {
        call->args.push_back(tir::CastNode::make(tir::DataType::pointer(), Expr(std::int64_t{0})));
      } else {
        Buffer workspace =
            new_intermediate(value_name(*node.result(0), block_name(composite)) + "_workspace",
                             DType::u8, {*call->workspace});
        call->args.push_back(tir::AddressNode::make(workspace, {Expr(std::int64_t{0})}));
        writes.push_back(workspace);
      }
    }
    Stmt body = EvaluateNode::make(
        CallNode::make(call->type, call->name, std::move(call->args), CallNode::CallKind::kExtern));
    blocks_.push_back(BlockNode::make(composite, std::move(reads), std::move(writes), body,
                                      anchor != nullptr ? block_attrs(*anchor) : AttrMap()));
    return Status::success();
  }

  // ---- outputs ----

  struct OutputRecord {
    std::vector<Var> vars;
    Expr value;
    std::vector<Placeholder> reads;
  };

  // Builds each output's expression with the pending reductions it reads as placeholders,
  // then writes each output, fused with the one reduction it may take in (see lower.h).
  void write_outputs(const std::unordered_map<const Value*, Slot>& slots) {
    std::vector<OutputRecord> records(outputs_.size());
    std::unordered_map<const Lazy*, int> readers;
    recording_ = true;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (written_[k]) continue;
      const LazyPtr& lazy = slots.at(function_.outputs()[k]).tensor;
      OutputRecord& record = records[k];
      record.vars = generic_vars(lazy->stage.shape.size());
      record.value = read(lazy, Indices(record.vars.begin(), record.vars.end()));
      record.reads = std::move(placeholders_);
      placeholders_.clear();
      std::vector<const Lazy*> distinct;
      for (const Placeholder& p : record.reads)
        if (std::find(distinct.begin(), distinct.end(), p.lazy.get()) == distinct.end())
          distinct.push_back(p.lazy.get());
      for (const Lazy* lazy_read : distinct) ++readers[lazy_read];
    }
    recording_ = false;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (written_[k]) continue;
      write_output(k, records[k], readers, slots.at(function_.outputs()[k]).tensor);
    }
  }

  std::vector<Var> generic_vars(std::size_t rank) {
    std::vector<Var> vars;
    for (std::size_t d = 0; d < rank; ++d) vars.push_back(VarNode::make(fmt::format("i{}", d)));
    return vars;
  }

  void write_output(std::size_t k, const OutputRecord& record,
                    const std::unordered_map<const Lazy*, int>& readers, const LazyPtr& lazy) {
    const Shape& shape = lazy->stage.shape;
    // The reduction to fuse: the latest one that only this output reads, and only at its own
    // indices. Every other pending reduction it reads is materialized first.
    Lazy* fused = nullptr;
    for (const Placeholder& p : record.reads) {
      Lazy* candidate = p.lazy.get();
      if (candidate->materialized || readers.at(candidate) != 1 || candidate->stage.shape != shape)
        continue;
      // At the output's own indices; a dimension of size 1 may read 0 (a broadcast read).
      bool own_indices = true;
      for (const Placeholder& q : record.reads)
        if (q.lazy.get() == candidate)
          for (std::size_t d = 0; d < q.indices.size(); ++d) {
            Expr index = simplify(q.indices[d]);
            own_indices &= equal(index, record.vars[d]) ||
                           (shape[d] == 1 && as_const_int(index) == std::int64_t{0});
          }
      if (own_indices && (fused == nullptr || candidate->order > fused->order)) fused = candidate;
    }
    std::vector<Lazy*> others;
    for (const Placeholder& p : record.reads)
      if (p.lazy.get() != fused && !p.lazy->materialized &&
          std::find(others.begin(), others.end(), p.lazy.get()) == others.end())
        others.push_back(p.lazy.get());
    std::sort(others.begin(), others.end(),
              [](const Lazy* a, const Lazy* b) { return a->order < b->order; });
    for (Lazy* other : others)
      if (!other->materialized) materialize_lazy(*other);
    // Materializing may have written this very output (a reduction that is the output and
    // is also read by another).
    if (written_[k]) return;

    std::unordered_map<const VarNode*, Expr> loads;
    for (const Placeholder& p : record.reads)
      if (p.lazy.get() != fused) loads[p.var.as<VarNode>()] = p.lazy->materialized->at(p.indices);
    Expr value = substitute(record.value, loads);
    written_[k] = true;
    if (fused == nullptr) {
      Stage copy = pointwise_stage(lazy->materialized ? "copy" : lazy->stage.name,
                                   lazy->stage.dtype, shape, nullptr);
      copy.attrs = lazy->materialized ? AttrMap() : lazy->stage.attrs;
      copy.element = [&](const Indices&) { return value; };
      emit(copy, outputs_[k], record.vars, nullptr);
      return;
    }
    // The fused block loops with the reduction's own variable names.
    std::vector<Var> vars = output_vars(fused->stage);
    std::unordered_map<const VarNode*, Expr> rename;
    for (std::size_t d = 0; d < vars.size(); ++d) rename[record.vars[d].as<VarNode>()] = vars[d];
    value = substitute(value, rename);
    std::vector<const VarNode*> stand_ins;
    for (const Placeholder& p : record.reads)
      if (p.lazy.get() == fused) stand_ins.push_back(p.var.as<VarNode>());
    emit(fused->stage, outputs_[k], vars, [value, stand_ins](const Expr& result) {
      std::unordered_map<const VarNode*, Expr> map;
      for (const VarNode* v : stand_ins) map[v] = result;
      return substitute(value, map);
    });
  }

  // ---- the function ----

  Expected<PrimFunc> finish() {
    PrimFunc func;
    func.name = function_.name();
    func.params = params_;
    std::vector<std::int64_t> constant_indices;
    for (const auto& [buffer, tensor] : constants_) {
      constant_indices.push_back(static_cast<std::int64_t>(func.params.size()));
      func.attrs.set(fmt::format("constant.{}", func.params.size()), tensor);
      func.params.push_back(buffer);
    }
    if (!constant_indices.empty()) func.attrs.set("constants", constant_indices);
    func.num_inputs = func.params.size();
    func.params.insert(func.params.end(), outputs_.begin(), outputs_.end());
    if (!checks_.empty()) {
      func.params.push_back(error_record_);
      func.attrs.set(std::string(kChecksAttr), checks_);
    }
    Stmt body = SeqNode::make(blocks_);
    for (auto it = intermediates_.rbegin(); it != intermediates_.rend(); ++it)
      body = AllocateNode::make(*it, body);
    func.body = body;
    for (const auto& [name, value] : function_.attrs()) func.attrs.set(name, value);
    std::string symbol = options_.symbol;
    if (symbol.empty()) symbol = function_.attrs().string_or_none("global_symbol").value_or("");
    if (symbol.empty()) symbol = function_.name();
    func.attrs.set("global_symbol", symbol);
    return func;
  }

  const Function& function_;
  const LowerOptions& options_;
  std::vector<Buffer> params_, outputs_, intermediates_;
  std::vector<std::pair<Buffer, TensorPtr>> constants_;
  // The run-time checks' record, made with the first check, and each check's message.
  Buffer error_record_;
  std::vector<std::string> checks_;
  std::unordered_map<const Value*, int> output_index_;
  std::vector<bool> written_;
  std::vector<Stmt> blocks_;
  std::vector<Placeholder> placeholders_;
  const Node* current_ = nullptr;  // the node whose rule runs (for materialize's attributes)
  std::size_t next_order_ = 0;
  bool in_reduction_ = false;
  bool recording_ = false;
};

}  // namespace

Expected<PrimFunc> lower_function(const Function& function, const LowerOptions& options) {
  return Lowerer(function, options).run();
}

std::vector<std::pair<std::size_t, TensorPtr>> bound_constants(const PrimFunc& func) {
  std::vector<std::pair<std::size_t, TensorPtr>> constants;
  const Attribute* indices = func.attrs.find("constants");
  if (indices == nullptr) return constants;
  for (std::int64_t index : std::get<std::vector<std::int64_t>>(*indices))
    constants.emplace_back(static_cast<std::size_t>(index),
                           func.attrs.get_tensor(fmt::format("constant.{}", index)));
  return constants;
}

}  // namespace uma::lower
