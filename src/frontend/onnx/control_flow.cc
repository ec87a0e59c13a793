// Converters of ONNX's control flow: If, Loop and Scan. uma's graph has no control flow, so
// what the model decides is decided at import: If imports the branch that its constant
// condition chooses, and Loop and Scan import their body once per iteration (unrolled). Each
// subgraph goes through the importer's own conversion (SubgraphImporter), in a scope of its
// own, so its nodes fold as they come and a loop's condition is known after each iteration.
// A condition or trip count that is not a constant is an error that says it "must be a
// constant": binding the model's input (--bind) makes it one.
//
// Unrolling is capped: the model's unrolled bodies may import at most kMaxUnrolledNodes nodes
// in all (iterations × body nodes, nested loops included), so that a hostile trip count fails
// at once instead of exhausting time and memory.
//
// Opset differences handled here: Scan before 9 has a batch axis 0 on every state, input
// and output, a sequence_lens input first, and `directions` in place of
// scan_input_directions, without axes or output directions. Later opsets of If and Loop only
// add sequence and optional types, which uma does not import.
#include <algorithm>

#include "static_input.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

constexpr std::int64_t kMaxUnrolledNodes = 100000;

// Constant input `i` that decides the control flow.
Expected<TensorPtr> deciding_input(const NodeContext& ctx, std::size_t i, std::string_view what) {
  return ctx.require_constant_input(i, what,
                                    "uma's graph has no control flow, so it is decided at import");
}

// The one element of a tensor that decides the control flow.
Expected<double> single_element(const Tensor& tensor, std::string_view what) {
  if (tensor.num_elements() != 1)
    return make_error("{} has {} elements, but must have one", what, tensor.num_elements());
  return tensor.get(0);
}

// Refuses what would take the model's unrolled subgraphs past kMaxUnrolledNodes: `iterations`
// more imports of `body`, which `doing` describes ("unrolling 1000 iterations").
Status check_unroll_cap(const SubgraphImporter& importer, const onnx::GraphProto& body,
                        std::int64_t iterations, std::string_view doing) {
  std::int64_t per_iteration = std::max<std::int64_t>(1, body.node_size());
  std::int64_t room = kMaxUnrolledNodes - importer.imported_subgraph_nodes();
  if (iterations <= room / per_iteration) return Status::success();
  return make_error(
      "{} of a body of {} nodes would exceed the cap of {} unrolled nodes (iterations × body "
      "nodes, over the whole model; {} are unrolled already)",
      doing, body.node_size(), kMaxUnrolledNodes, importer.imported_subgraph_nodes());
}

// If: the branch a constant condition chooses, inline. Both branches must give the node's
// outputs, though only one is imported.
Expected<Values> convert_if(NodeContext& ctx) {
  UMA_TRY_ASSIGN(TensorPtr cond, deciding_input(ctx, 0, "cond"));
  UMA_TRY_ASSIGN(double chosen, single_element(*cond, "input 0 ('cond')"));
  for (const char* name : {"then_branch", "else_branch"}) {
    UMA_TRY_ASSIGN(const onnx::GraphProto* branch, ctx.attr_graph(name));
    if (branch->input_size() != 0)
      return make_error("attribute '{}' has {} inputs, but a branch takes none", name,
                        branch->input_size());
    if (branch->output_size() != ctx.proto().output_size())
      return make_error("attribute '{}' has {} outputs, but the node has {}", name,
                        branch->output_size(), ctx.proto().output_size());
  }
  const char* name = chosen != 0 ? "then_branch" : "else_branch";
  UMA_TRY_ASSIGN(const onnx::GraphProto* branch, ctx.attr_graph(name));
  UMA_TRY_ASSIGN(SubgraphImporter * importer, ctx.subgraphs());
  auto outputs = importer->import_subgraph(*branch, {});
  if (!outputs) return outputs.error().with_context(name);
  return outputs;
}

// Empty scan outputs of a loop that runs no iteration: their types are those of one
// iteration's, which one import of the body (left to dead code elimination) tells.
Expected<Values> empty_scan_outputs(NodeContext& ctx, SubgraphImporter& importer,
                                    const onnx::GraphProto& body, Values inputs,
                                    std::size_t first_scan) {
  auto outputs = importer.import_subgraph(body, inputs);
  if (!outputs)
    return outputs.error().with_context("the loop runs no iteration, but its scan outputs' types");
  Values empty;
  for (std::size_t k = first_scan; k < outputs->size(); ++k) {
    TensorType type = (*outputs)[k]->tensor_type();
    type.shape.insert(type.shape.begin(), 0);
    empty.push_back(ctx.constant(std::make_shared<Tensor>(std::move(type))));
  }
  return empty;
}

// Loop, unrolled: the body once per iteration, with the iteration number, the condition and
// the loop-carried values bound, while the trip count and the condition allow; the body's
// scan outputs stacked along a new axis 0.
Expected<Values> convert_loop(NodeContext& ctx) {
  UMA_TRY_ASSIGN(const onnx::GraphProto* body, ctx.attr_graph("body"));
  UMA_TRY_ASSIGN(SubgraphImporter * importer, ctx.subgraphs());
  std::size_t carried = ctx.num_inputs() > 2 ? ctx.num_inputs() - 2 : 0;
  auto body_inputs = static_cast<std::size_t>(body->input_size());
  auto body_outputs = static_cast<std::size_t>(body->output_size());
  if (body_inputs != carried + 2)
    return make_error(
        "the body has {} inputs, but must have {}: the iteration number, the condition and "
        "the node's {} loop-carried values",
        body_inputs, carried + 2, carried);
  if (body_outputs < carried + 1)
    return make_error(
        "the body has {} outputs, but must have at least {}: the condition and the node's {} "
        "loop-carried values",
        body_outputs, carried + 1, carried);
  std::size_t scans = body_outputs - 1 - carried;
  if (static_cast<std::size_t>(ctx.proto().output_size()) > carried + scans)
    return make_error("the node has {} outputs, but its body gives {} ({} loop-carried, {} scan)",
                      ctx.proto().output_size(), carried + scans, carried, scans);

  std::optional<std::int64_t> trip_count;
  if (ctx.has_input(0)) {
    UMA_TRY_ASSIGN(TensorPtr m, deciding_input(ctx, 0, "M"));
    if (auto one = single_element(*m, "input 0 ('M')"); !one) return one.error();
    if (m->dtype() != DType::i64)
      return make_error("input 0 ('M') is {}, but must be i64", dtype_name(m->dtype()));
    // A negative trip count runs no iteration, as a for loop would.
    trip_count = std::max<std::int64_t>(0, m->data<std::int64_t>()[0]);
  }
  // Without a condition input, the body's condition output is ignored (a for loop).
  bool conditional = ctx.has_input(1);
  bool running = true;
  if (conditional) {
    UMA_TRY_ASSIGN(TensorPtr cond, deciding_input(ctx, 1, "cond"));
    UMA_TRY_ASSIGN(double value, single_element(*cond, "input 1 ('cond')"));
    running = value != 0;
  }
  if (!trip_count && !conditional)
    return make_error(
        "the loop has neither a trip count (input 0, 'M') nor a condition (input 1, 'cond'), "
        "so it never ends");
  if (trip_count && !conditional)
    UMA_TRY(check_unroll_cap(*importer, *body, *trip_count,
                             fmt::format("unrolling {} iterations", *trip_count)));

  Values values;
  for (std::size_t i = 0; i < carried; ++i) values.push_back(ctx.input(i + 2));
  std::vector<Values> steps(scans);
  std::int64_t i = 0;
  for (; running && (!trip_count || i < *trip_count); ++i) {
    UMA_TRY(check_unroll_cap(*importer, *body, 1, fmt::format("iteration {}", i)));
    Values inputs{scalar(ctx, DType::i64, static_cast<double>(i)), scalar(ctx, DType::boolean, 1)};
    inputs.insert(inputs.end(), values.begin(), values.end());
    auto outputs = importer->import_subgraph(*body, inputs);
    if (!outputs) return outputs.error().with_context(fmt::format("iteration {}", i));
    if (conditional) {
      TensorPtr cond = constant_tensor((*outputs)[0]);
      if (cond == nullptr)
        return make_error(
            "iteration {}: the body's condition output '{}' must be a constant: uma unrolls the "
            "loop, and stops where the condition becomes false",
            i, body->output(0).name());
      UMA_TRY_ASSIGN(double value, single_element(*cond, "the body's condition output"));
      running = value != 0;
    }
    std::copy_n(outputs->begin() + 1, carried, values.begin());
    for (std::size_t k = 0; k < scans; ++k) steps[k].push_back((*outputs)[1 + carried + k]);
  }

  Values results = values;
  if (i == 0 && scans > 0) {
    Values inputs{scalar(ctx, DType::i64, 0), scalar(ctx, DType::boolean, 1)};
    inputs.insert(inputs.end(), values.begin(), values.end());
    UMA_TRY_ASSIGN(Values empty, empty_scan_outputs(ctx, *importer, *body, inputs, 1 + carried));
    results.insert(results.end(), empty.begin(), empty.end());
  } else {
    for (std::size_t k = 0; k < scans; ++k) {
      auto stacked = stack(ctx, steps[k], 0);
      if (!stacked) return stacked.error().with_context(fmt::format("scan output {}", k));
      results.push_back(*stacked);
    }
  }
  results.resize(static_cast<std::size_t>(ctx.proto().output_size()));
  return results;
}

// What a Scan does to one sequence, once its attributes are read.
struct ScanPlan {
  const onnx::GraphProto* body;
  std::size_t states;
  Ints input_axes, input_directions;    // per scan input
  Ints output_axes, output_directions;  // per scan output, axes in the stacked result
};

// An attribute of one integer per input or output (`count`), each in [low, high]; `fallback`
// for each when the node leaves it out.
Expected<Ints> per_item_attr(const NodeContext& ctx, std::string_view name, std::size_t count,
                             std::int64_t low, std::int64_t high) {
  UMA_TRY_ASSIGN(Ints values, ctx.attr_ints(name, Ints(count, 0)));
  if (values.size() != count)
    return make_error("attribute '{}' has {} values, but must have {}", name, values.size(), count);
  for (std::int64_t value : values)
    if (value < low || value > high)
      return make_error("attribute '{}' holds {}, which is not in [{}, {}]", name, value, low,
                        high);
  return values;
}

// The body once per step of the sequences of `scan_inputs` (which each have one along their
// axis), with the states carried; returns the final states, then the scan outputs.
Expected<Values> unroll_scan(NodeContext& ctx, const ScanPlan& plan, Values states,
                             const Values& scan_inputs) {
  UMA_TRY_ASSIGN(SubgraphImporter * importer, ctx.subgraphs());
  std::vector<std::size_t> axes;
  std::int64_t length = 0;
  for (std::size_t j = 0; j < scan_inputs.size(); ++j) {
    const Shape& shape = shape_of(scan_inputs[j]);
    auto rank = static_cast<std::int64_t>(shape.size());
    std::int64_t axis = plan.input_axes[j];
    if (axis < -rank || axis >= rank)
      return make_error("scan input {} has rank {}, which has no axis {}", j, rank, axis);
    axes.push_back(static_cast<std::size_t>(axis < 0 ? axis + rank : axis));
    std::int64_t here = shape[axes.back()];
    if (j > 0 && here != length)
      return make_error("scan input {} has {} steps, but scan input 0 has {}", j, here, length);
    length = here;
  }
  if (length == 0) return make_error("the sequence is empty, so the scan outputs have no type");
  UMA_TRY(
      check_unroll_cap(*importer, *plan.body, length, fmt::format("unrolling {} steps", length)));
  std::size_t scans = static_cast<std::size_t>(plan.body->output_size()) - plan.states;
  std::vector<Values> steps(scans);
  for (std::int64_t t = 0; t < length; ++t) {
    Values inputs = states;
    for (std::size_t j = 0; j < scan_inputs.size(); ++j) {
      std::int64_t at = plan.input_directions[j] == 1 ? length - 1 - t : t;
      UMA_TRY_ASSIGN(Value * element,
                     element_at(ctx, scan_inputs[j], static_cast<std::int64_t>(axes[j]), at));
      inputs.push_back(element);
    }
    auto outputs = importer->import_subgraph(*plan.body, inputs);
    if (!outputs) return outputs.error().with_context(fmt::format("step {}", t));
    std::copy_n(outputs->begin(), plan.states, states.begin());
    for (std::size_t k = 0; k < scans; ++k) steps[k].push_back((*outputs)[plan.states + k]);
  }
  Values results = states;
  for (std::size_t k = 0; k < scans; ++k) {
    if (plan.output_directions[k] == 1) std::reverse(steps[k].begin(), steps[k].end());
    auto rank = static_cast<std::int64_t>(shape_of(steps[k][0]).size()) + 1;
    std::int64_t axis = plan.output_axes[k];
    if (axis < -rank || axis >= rank)
      return make_error("scan output {} has rank {}, which has no axis {}", k, rank, axis);
    auto stacked = stack(ctx, steps[k], axis < 0 ? axis + rank : axis);
    if (!stacked) return stacked.error().with_context(fmt::format("scan output {}", k));
    results.push_back(*stacked);
  }
  return results;
}

// Opset 8's Scan: every value has a batch axis 0, each batch entry scanned on its own along
// axis 1 of the scan inputs. sequence_lens may only say what the shapes do.
Expected<Values> scan_batches(NodeContext& ctx, const ScanPlan& plan, const Values& states,
                              const Values& scan_inputs) {
  const Value* first = states.empty() ? scan_inputs[0] : states[0];
  if (shape_of(first).empty())
    return make_error("'{}' has no batch axis: it is a scalar", first->name());
  std::int64_t batch = shape_of(first)[0];
  if (batch == 0) return make_error("the batch is empty, so the scan outputs have no type");
  std::int64_t length = shape_of(scan_inputs[0]).size() > 1 ? shape_of(scan_inputs[0])[1] : 0;
  for (const Values* group : {&states, &scan_inputs})
    for (const Value* value : *group)
      if (shape_of(value).empty() || shape_of(value)[0] != batch)
        return make_error("'{}' has no batch axis of {} entries, as the first state has",
                          value->name(), batch);
  if (ctx.has_input(0)) {
    auto lengths = constant_ints(ctx, 0, "sequence_lens");
    if (!lengths ||
        std::any_of(lengths->begin(), lengths->end(), [&](std::int64_t n) { return n != length; }))
      return make_error(
          "input 0 ('sequence_lens') must be a constant that gives every batch entry the "
          "sequence's full length ({}): shorter sequences are not supported",
          length);
  }
  std::vector<Values> per_entry;
  for (std::int64_t b = 0; b < batch; ++b) {
    Values entry_states, entry_inputs;
    for (Value* state : states) {
      UMA_TRY_ASSIGN(Value * s, element_at(ctx, state, 0, b));
      entry_states.push_back(s);
    }
    for (Value* input : scan_inputs) {
      UMA_TRY_ASSIGN(Value * x, element_at(ctx, input, 0, b));
      entry_inputs.push_back(x);
    }
    auto outputs = unroll_scan(ctx, plan, entry_states, entry_inputs);
    if (!outputs) return outputs.error().with_context(fmt::format("batch entry {}", b));
    per_entry.push_back(std::move(*outputs));
  }
  Values results;
  for (std::size_t k = 0; k < per_entry[0].size(); ++k) {
    Values entries;
    for (const Values& outputs : per_entry) entries.push_back(outputs[k]);
    UMA_TRY_ASSIGN(Value * stacked, stack(ctx, entries, 0));
    results.push_back(stacked);
  }
  return results;
}

Expected<Values> convert_scan(NodeContext& ctx) {
  UMA_TRY_ASSIGN(const onnx::GraphProto* body, ctx.attr_graph("body"));
  UMA_TRY_ASSIGN(std::int64_t num_scan_inputs, ctx.attr_int("num_scan_inputs", std::nullopt));
  bool batched = ctx.opset() < 9;
  std::size_t first = batched ? 1 : 0;  // opset 8's sequence_lens
  std::size_t given = ctx.num_inputs() > first ? ctx.num_inputs() - first : 0;
  if (num_scan_inputs < 1 || static_cast<std::size_t>(num_scan_inputs) > given)
    return make_error("attribute 'num_scan_inputs' is {}, but must be in [1, {}]", num_scan_inputs,
                      given);
  auto scan_count = static_cast<std::size_t>(num_scan_inputs);
  ScanPlan plan{body, given - scan_count, {}, {}, {}, {}};
  if (static_cast<std::size_t>(body->input_size()) != given)
    return make_error(
        "the body has {} inputs, but must have {}: the node's {} states and {} scan "
        "inputs",
        body->input_size(), given, plan.states, scan_count);
  if (static_cast<std::size_t>(body->output_size()) < plan.states)
    return make_error("the body has {} outputs, but must have at least the node's {} states",
                      body->output_size(), plan.states);
  std::size_t scans = static_cast<std::size_t>(body->output_size()) - plan.states;
  if (static_cast<std::size_t>(ctx.proto().output_size()) > plan.states + scans)
    return make_error("the node has {} outputs, but its body gives {} ({} states, {} scan)",
                      ctx.proto().output_size(), plan.states + scans, plan.states, scans);
  // Ranks are checked against the values; these bounds only keep the numbers sane.
  constexpr std::int64_t kMaxRank = 64;
  UMA_TRY_ASSIGN(
      plan.input_directions,
      per_item_attr(ctx, batched ? "directions" : "scan_input_directions", scan_count, 0, 1));
  plan.input_axes = Ints(scan_count, 0);
  plan.output_axes = plan.output_directions = Ints(scans, 0);
  if (!batched) {
    UMA_TRY_ASSIGN(plan.input_axes,
                   per_item_attr(ctx, "scan_input_axes", scan_count, -kMaxRank, kMaxRank));
    UMA_TRY_ASSIGN(plan.output_axes,
                   per_item_attr(ctx, "scan_output_axes", scans, -kMaxRank, kMaxRank));
    UMA_TRY_ASSIGN(plan.output_directions,
                   per_item_attr(ctx, "scan_output_directions", scans, 0, 1));
  }
  Values states, scan_inputs;
  for (std::size_t i = 0; i < given; ++i) {
    UMA_TRY_ASSIGN(Value * value,
                   required_input(ctx, first + i, i < plan.states ? "state" : "scan input"));
    (i < plan.states ? states : scan_inputs).push_back(value);
  }
  UMA_TRY_ASSIGN(Values results, batched ? scan_batches(ctx, plan, states, scan_inputs)
                                         : unroll_scan(ctx, plan, states, scan_inputs));
  results.resize(static_cast<std::size_t>(ctx.proto().output_size()));
  return results;
}

}  // namespace

void register_control_flow_converters(ConverterTable& table) {
  table.add("If", 1, convert_if);
  table.add("Loop", 1, convert_loop);
  table.add("Scan", 8, convert_scan);
}

}  // namespace uma::onnx_import
