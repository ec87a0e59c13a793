// test_npu (see test_npu.h): its declarations in the interface's order, the patterns'
// predicates, one kernel call per composite, and the pass that gives its DMA engine a counter.
#include "test_npu.h"

#include <fmt/format.h>

#include "uma/op/cost.h"
#include "uma/op/shape_util.h"
#include "uma/tir/functor.h"
#include "uma/tir/state.h"
#include "uma/uma/backend.h"

namespace uma::backends {
// test_npu.c, embedded by tests/CMakeLists.txt.
extern const char uma_embedded_test_npu_c[];
}  // namespace uma::backends

namespace uma {
namespace {

using tiling::Role;

constexpr std::string_view kDmaStart = "npu_dma_start";

// ---- Patterns ----

PatternPtr bias_add(const PatternPtr& x) {
  return alt(is_op("add", {x, is_constant()}), is_op("add", {is_constant(), x}));
}

PatternPtr relu(const PatternPtr& x) { return is_op("nn.relu", {x}); }

// `op` with a constant weight, optionally a constant bias operand, then an optional bias add
// and an optional relu.
PatternPtr product_chain(const std::string& op) {
  PatternPtr product = alt(is_op(op, {wildcard(), is_constant(), is_constant()}),
                           is_op(op, {wildcard(), is_constant()}));
  return optional(optional(product, bias_add), relu);
}

// ---- Predicates ----

const Node* find(const Match& m, std::string_view op) {
  for (const Node* node : m.nodes)
    if (node->is_op(op)) return node;
  return nullptr;
}

Status check_f32(const Match& m) {
  for (const Node* node : m.nodes)
    for (const Value* value : node->operands())
      if (value->type().is_tensor() && value->tensor_type().dtype != DType::f32)
        return make_error("{} is not supported; test_npu runs f32",
                          dtype_name(value->tensor_type().dtype));
  return Status::success();
}

// Where a kernel adds the bias (test_npu.c's bias_mode).
enum BiasMode : std::int64_t { kNoBias = 0, kBiasOperand = 1, kAddedBias = 2 };

// The composite's bias and where it is added: the product's operand, or an add after it.
std::pair<const Value*, BiasMode> bias_of(const Node& product, const Node* add) {
  if (product.num_operands() == 3) return {product.operand(2), kBiasOperand};
  if (add == nullptr) return {nullptr, kNoBias};
  return {add->operand(0) == product.result() ? add->operand(1) : add->operand(0), kAddedBias};
}

// An added bias holds one value per element of the result's `axis` (so the add does not
// broadcast the result), and comes alone: the kernels add one bias.
Status check_added_bias(const Match& m, const Node& product, std::size_t axis) {
  const Node* add = find(m, "add");
  if (add == nullptr) return Status::success();
  if (product.num_operands() == 3)
    return make_error("the product has a bias operand and an added bias");
  const Shape& bias = bias_of(product, add).first->tensor_type().shape;
  if (!one_per_element_of(bias, product.result()->tensor_type().shape, axis))
    return make_error("the added bias has shape {}, not one value per element of axis {}",
                      to_string(bias), axis);
  return Status::success();
}

Status check_conv2d(const Match& m, const Target&) {
  UMA_TRY(check_f32(m));
  return check_added_bias(m, *find(m, "nn.conv2d"), 1);
}

Status check_dense(const Match& m, const Target&) {
  UMA_TRY(check_f32(m));
  const Node& dense = *find(m, "nn.dense");
  if (std::size_t rank = dense.operand(0)->tensor_type().rank(); rank != 2)
    return make_error("the data has rank {}; test_npu runs rank 2", rank);
  return check_added_bias(m, dense, 1);
}

Status check_pool(const Match& m, const Target&) { return check_f32(m); }

Status check_add(const Match& m, const Target&) {
  UMA_TRY(check_f32(m));
  const Node& add = *find(m, "add");
  for (const Value* operand : add.operands())
    if (!(operand->type() == add.result()->type()))
      return make_error("the add broadcasts {} to {}", to_string(operand->type()),
                        to_string(add.result()->type()));
  return Status::success();
}

// ---- Calls, one per tile ----

std::int64_t has_relu(const lower::CompositeOperands& operands) {
  return operands.find("nn.relu") != nullptr ? 1 : 0;
}

Expected<lower::ExternCall> lower_conv2d(const lower::CompositeOperands& operands, const Target&) {
  const Node& conv = *operands.find("nn.conv2d");
  auto [bias, bias_mode] = bias_of(conv, operands.find("add"));
  const Shape& x = conv.operand(0)->tensor_type().shape;
  const Shape& w = conv.operand(1)->tensor_type().shape;
  const Shape& y = conv.result()->tensor_type().shape;
  const auto& strides = conv.attrs().get_ints("strides");
  const auto& padding = conv.attrs().get_ints("padding");
  const auto& dilation = conv.attrs().get_ints("dilation");
  UMA_TRY_ASSIGN(tir::Expr x_address, operands.address(*conv.operand(0)));
  UMA_TRY_ASSIGN(tir::Expr w_address, operands.address(*conv.operand(1)));
  UMA_TRY_ASSIGN(tir::Expr b_address, operands.address_or_null(bias));
  UMA_TRY_ASSIGN(tir::Expr y_address, operands.address(*operands.composite().outputs()[0]));
  return lower::ExternCall{.name = "npu_conv2d",
                           .args = {x_address,   w_address,
                                    b_address,   y_address,
                                    x[0],        x[1],
                                    x[2],        x[3],
                                    w[0],        w[2],
                                    w[3],        y[2],
                                    y[3],        strides[0],
                                    strides[1],  padding[0],
                                    padding[1],  padding[2],
                                    padding[3],  dilation[0],
                                    dilation[1], conv.attrs().get_int("groups"),
                                    bias_mode,   has_relu(operands)}};
}

Expected<lower::ExternCall> lower_dense(const lower::CompositeOperands& operands, const Target&) {
  const Node& dense = *operands.find("nn.dense");
  auto [bias, bias_mode] = bias_of(dense, operands.find("add"));
  const Shape& x = dense.operand(0)->tensor_type().shape;
  const Shape& w = dense.operand(1)->tensor_type().shape;
  UMA_TRY_ASSIGN(tir::Expr x_address, operands.address(*dense.operand(0)));
  UMA_TRY_ASSIGN(tir::Expr w_address, operands.address(*dense.operand(1)));
  UMA_TRY_ASSIGN(tir::Expr b_address, operands.address_or_null(bias));
  UMA_TRY_ASSIGN(tir::Expr y_address, operands.address(*operands.composite().outputs()[0]));
  return lower::ExternCall{.name = "npu_dense",
                           .args = {x_address, w_address, b_address, y_address, x[0], x[1], w[0],
                                    bias_mode, has_relu(operands)}};
}

lower::ExternCall pool_call(const Node& pool, tir::Expr x_address, tir::Expr y_address, bool max) {
  const Shape& x = pool.operand(0)->tensor_type().shape;
  const Shape& y = pool.result()->tensor_type().shape;
  const AttrMap& attrs = pool.attrs();
  const auto& size = attrs.get_ints("pool_size");
  const auto& strides = attrs.get_ints("strides");
  const auto& padding = attrs.get_ints("padding");
  std::vector<std::int64_t> dilation =
      max ? attrs.get_ints("dilation") : std::vector<std::int64_t>{1, 1};
  return lower::ExternCall{.name = "npu_pool2d",
                           .args = {x_address,   y_address,
                                    x[0] * x[1], x[2],
                                    x[3],        y[2],
                                    y[3],        size[0],
                                    size[1],     strides[0],
                                    strides[1],  padding[0],
                                    padding[1],  padding[2],
                                    padding[3],  dilation[0],
                                    dilation[1], attrs.get_int("ceil_mode"),
                                    max ? 0 : 1, max ? 0 : attrs.get_int("count_include_pad")}};
}

BackendCompositeLowering lower_pool(std::string op) {
  return
      [op](const lower::CompositeOperands& operands, const Target&) -> Expected<lower::ExternCall> {
        const Node& pool = *operands.find(op);
        UMA_TRY_ASSIGN(tir::Expr x_address, operands.address(*pool.operand(0)));
        UMA_TRY_ASSIGN(tir::Expr y_address, operands.address(*operands.composite().outputs()[0]));
        return pool_call(pool, x_address, y_address, op == "nn.max_pool2d");
      };
}

Expected<lower::ExternCall> lower_add(const lower::CompositeOperands& operands, const Target&) {
  const Node& add = *operands.find("add");
  UMA_TRY_ASSIGN(tir::Expr a_address, operands.address(*add.operand(0)));
  UMA_TRY_ASSIGN(tir::Expr b_address, operands.address(*add.operand(1)));
  UMA_TRY_ASSIGN(tir::Expr y_address, operands.address(*operands.composite().outputs()[0]));
  return lower::ExternCall{
      .name = "npu_add",
      .args = {a_address, b_address, y_address, add.result()->tensor_type().num_elements(),
               has_relu(operands)}};
}

// ---- The DMA engine's counter ----

// Each call of npu_dma_start gets the address of the function's state, where the engine adds
// up what it moves: load-time state rather than a static, so that executors sharing the
// library count apart.
class PassCounters : public tir::Mutator {
 public:
  explicit PassCounters(tir::Buffer state) : state_(std::move(state)) {}
  using tir::Mutator::mutate;

 protected:
  tir::Expr mutate(const tir::CallNode& op, const tir::Expr& self) override {
    if (op.call_kind != tir::CallNode::CallKind::kExtern || op.name != kDmaStart)
      return tir::Mutator::mutate(op, self);
    std::vector<tir::Expr> args = op.args;
    args.push_back(tir::AddressNode::make(state_, {tir::Expr(std::int64_t{0})}));
    return tir::CallNode::make(op.type, op.name, std::move(args), op.call_kind);
  }

 private:
  tir::Buffer state_;
};

Expected<tir::PrimFunc> add_dma_counters(const tir::PrimFunc& func, const Target&) {
  bool moves = false;
  tir::pre_order_visit(func.body, [&](const tir::ExprNode* e, const tir::StmtNode*) {
    if (e != nullptr && e->kind == tir::ExprKind::Call)
      moves |= static_cast<const tir::CallNode*>(e)->name == kDmaStart;
  });
  if (!moves) return func;
  tir::PrimFunc result = func;
  UMA_TRY_ASSIGN(tir::Buffer state, tir::add_state(result, 16, "npu_counters"));
  result.body = PassCounters(state).mutate(func.body);
  return result;
}

// ---- Cost ----

// Its target's array and clock must be positive: they divide.
Status check_target(const Target& target) {
  for (const char* attr : {"macs_per_cycle", "clock_mhz"}) {
    UMA_TRY_ASSIGN(std::int64_t value, target.get_int(attr));
    if (value < 1) return make_error("{} must be at least 1, not {}", attr, value);
  }
  return Status::success();
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// A call's time: each cycle, the array does macs_per_cycle multiply-accumulates (or computes
// as many elements of an op without products); the DMA engine moves each operand in (and the
// output out) in one transfer of dma_setup_cycles plus its bytes at dma_bytes_per_cycle,
// not overlapped with compute.
Expected<CompositeCost> estimate(const Function& composite, const Target& target) {
  UMA_TRY_ASSIGN(std::int64_t lanes, target.get_int("macs_per_cycle"));
  UMA_TRY_ASSIGN(std::int64_t mhz, target.get_int("clock_mhz"));
  UMA_TRY_ASSIGN(std::int64_t rate, target.get_int("dma_bytes_per_cycle"));
  UMA_TRY_ASSIGN(std::int64_t setup, target.get_int("dma_setup_cycles"));
  std::int64_t work = 0, transfer = 0;
  auto move = [&](const Value& value) {
    transfer += setup + ceil_div(value.tensor_type().num_bytes(), rate);
  };
  for (std::size_t i = 0; i < composite.num_params(); ++i) move(*composite.param(i));
  for (const auto& node : composite.nodes()) {
    if (node->is_op("constant")) {
      move(*node->result());
      continue;
    }
    std::int64_t macs = own_cost(*node).macs;
    work += macs > 0 ? macs : node->result()->tensor_type().num_elements();
  }
  move(*composite.outputs()[0]);
  double cycle = 1e-6 / static_cast<double>(mhz);
  double transfer_seconds = static_cast<double>(transfer) * cycle;
  return CompositeCost{
      .seconds = static_cast<double>(ceil_div(work, lanes)) * cycle + transfer_seconds,
      .transfer_seconds = transfer_seconds};
}

class TestNpu : public Backend {
 public:
  TestNpu() : Backend(std::string(kTestNpu)) {
    // 1. Target: the memories' sizes and the DMA engine's attributes, from their declarations.
    add_memory({.name = "imem",
                .default_kb = 32,
                .alignment = 16,
                .holds = {Role::kFeatures},
                .help = "feature memory, KiB"});
    add_memory({.name = "wmem",
                .default_kb = 16,
                .alignment = 16,
                .holds = {Role::kWeights, Role::kBias},
                .help = "weight and bias memory, KiB"});
    set_dma({.start_function = std::string(kDmaStart), .wait_function = "npu_dma_wait"});
    add_int_attr("macs_per_cycle", 256, "multiply-accumulates of the array per cycle (its cost)");
    add_int_attr("clock_mhz", 1000, "clock (its cost)");
    set_target_check(check_target);
    // 2. Patterns, each lowered to one kernel call per tile.
    add_pattern("conv2d", product_chain("nn.conv2d"), check_conv2d);
    add_composite_lowering("conv2d", lower_conv2d);
    add_pattern("dense", product_chain("nn.dense"), check_dense);
    add_composite_lowering("dense", lower_dense);
    for (const char* pool : {"max_pool2d", "avg_pool2d"}) {
      std::string op = fmt::format("nn.{}", pool);
      add_pattern(pool, is_op(op, {wildcard()}), check_pool);
      add_composite_lowering(pool, lower_pool(op));
    }
    add_pattern("add", optional(is_op("add", {wildcard(), wildcard()}), relu), check_add);
    add_composite_lowering("add", lower_add);
    // 4. Lowering: the kernels read every operand from the memories.
    set_max_immediate_elements(0);
    // 5. The DMA calls, which lower-dma made at TIR_PHASE_0, get the counters.
    add_tir_pass(TirPhase::k1, "test-npu-dma-counters", add_dma_counters);
    // 6. Codegen: the functional model.
    add_c_source("test_npu", backends::uma_embedded_test_npu_c);
    set_extern_status(true);
    // 7. Cost: the array's and the DMA engine's cycles at the clock.
    set_cost(estimate);
  }
};

}  // namespace

Status register_test_npu(Context& context) {
  return register_backend(context, std::make_unique<TestNpu>());
}

}  // namespace uma
