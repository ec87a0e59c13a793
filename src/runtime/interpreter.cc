// The reference interpreter: walks a function's nodes in order and runs each op's kernel.
#include "uma/runtime/interpreter.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <random>
#include <unordered_map>
#include <unordered_set>

namespace uma {
namespace {

// A tensor, or (tensor == nullptr) a tuple of values.
struct RuntimeValue {
  TensorPtr tensor;
  std::vector<RuntimeValue> fields;
};

// The tensor types inside `type`, depth-first: the flattened form of interpret's boundary.
void flatten_type(const Type& type, std::vector<TensorType>& out) {
  if (type.is_tensor()) {
    out.push_back(type.tensor());
    return;
  }
  for (const Type& field : type.tuple().fields) flatten_type(field, out);
}

void flatten_value(const RuntimeValue& value, std::vector<TensorPtr>& out) {
  if (value.tensor != nullptr) {
    out.push_back(value.tensor);
    return;
  }
  for (const RuntimeValue& field : value.fields) flatten_value(field, out);
}

// Rebuilds a value of `type` from the flattened arguments, taking them from `next` on.
RuntimeValue unflatten(const Type& type, const std::vector<TensorPtr>& arguments,
                       std::size_t& next) {
  if (type.is_tensor()) return RuntimeValue{arguments[next++], {}};
  RuntimeValue tuple;
  for (const Type& field : type.tuple().fields)
    tuple.fields.push_back(unflatten(field, arguments, next));
  return tuple;
}

std::string describe_param(const Value& param) {
  if (param.name().empty()) return fmt::format("parameter {}", param.index());
  return fmt::format("parameter {} (%{})", param.index(), param.name());
}

// Checks the flattened arguments against the parameters and groups them into values.
Expected<std::vector<RuntimeValue>> bind_arguments(const Function& function,
                                                   const std::vector<TensorPtr>& arguments) {
  std::vector<TensorType> expected;
  std::vector<const Value*> owner;  // the parameter each flattened argument belongs to
  for (const Value* param : function.params()) {
    flatten_type(param->type(), expected);
    owner.resize(expected.size(), param);
  }
  if (arguments.size() != expected.size())
    return make_error("@{} takes {} argument(s), got {}", function.name(), expected.size(),
                      arguments.size());
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const TensorPtr& argument = arguments[i];
    if (argument == nullptr) return make_error("argument {} of @{} is null", i, function.name());
    if (!(argument->type() == expected[i])) {
      std::string what =
          fmt::format("argument {} of @{} is {}", i, function.name(), to_string(argument->type()));
      if (owner[i]->type().is_tensor())
        return make_error("{}, but {} is {}", what, describe_param(*owner[i]),
                          to_string(expected[i]));
      return make_error("{}, but {} expects {} there (its tuple type {} is passed flattened)", what,
                        describe_param(*owner[i]), to_string(expected[i]),
                        to_string(owner[i]->type()));
    }
    if (!argument->has_data())
      return make_error("argument {} of @{} has no data", i, function.name());
  }
  std::vector<RuntimeValue> values;
  std::size_t next = 0;
  for (const Value* param : function.params())
    values.push_back(unflatten(param->type(), arguments, next));
  return values;
}

class Interpreter {
 public:
  Expected<std::vector<RuntimeValue>> run(const Function& function,
                                          std::vector<RuntimeValue> arguments);

 private:
  Expected<std::vector<RuntimeValue>> run_node(const Node& node,
                                               std::vector<RuntimeValue> operands);
  Expected<std::vector<RuntimeValue>> run_kernel(const Node& node,
                                                 const std::vector<RuntimeValue>& operands);

  // The functions being run, innermost last. Without control flow a recursive call can
  // never end, so it is refused instead of overflowing the stack.
  std::vector<const Function*> active_;
};

Expected<std::vector<RuntimeValue>> Interpreter::run(const Function& function,
                                                     std::vector<RuntimeValue> arguments) {
  if (std::find(active_.begin(), active_.end(), &function) != active_.end())
    return make_error(
        "@{} calls itself (directly or through other functions); the interpreter "
        "cannot run recursion",
        function.name());
  UMA_CHECK(arguments.size() == function.num_params(), "@{} given {} arguments", function.name(),
            arguments.size());
  active_.push_back(&function);
  struct PopOnExit {
    std::vector<const Function*>& stack;
    ~PopOnExit() { stack.pop_back(); }
  } pop{active_};

  // A value is released right after the last node that reads it, unless it is an output.
  const std::vector<Node*> nodes = function.node_list();
  std::unordered_map<const Value*, std::size_t> last_use;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const Value* operand : nodes[i]->operands()) last_use[operand] = i;
  const std::unordered_set<const Value*> outputs(function.outputs().begin(),
                                                 function.outputs().end());
  auto is_needed = [&](const Value* v) { return outputs.count(v) || last_use.count(v); };

  std::unordered_map<const Value*, RuntimeValue> env;
  for (std::size_t i = 0; i < function.num_params(); ++i)
    if (is_needed(function.param(i))) env[function.param(i)] = std::move(arguments[i]);
  arguments.clear();

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = *nodes[i];
    std::vector<RuntimeValue> operands;
    for (const Value* operand : node.operands()) {
      auto it = env.find(operand);
      if (it == env.end())
        return make_error(
            "{}: an operand is not computed before the node (the function is not "
            "in topological order; verify it first)",
            node.location());
      operands.push_back(it->second);
    }
    for (const Value* operand : node.operands())
      if (last_use[operand] == i && !outputs.count(operand)) env.erase(operand);

    Expected<std::vector<RuntimeValue>> results = run_node(node, std::move(operands));
    if (!results) return results.error().with_context(node.location());
    for (std::size_t r = 0; r < node.num_results(); ++r)
      if (is_needed(node.result(r))) env[node.result(r)] = std::move(results.value()[r]);
  }

  std::vector<RuntimeValue> out;
  for (const Value* output : function.outputs()) out.push_back(env.at(output));
  return out;
}

Expected<std::vector<RuntimeValue>> Interpreter::run_node(const Node& node,
                                                          std::vector<RuntimeValue> operands) {
  if (node.is_op("tuple")) return std::vector<RuntimeValue>{RuntimeValue{nullptr, operands}};
  if (node.is_op("get_item")) {
    std::int64_t index = node.attrs().get_int("index");
    const RuntimeValue& tuple = operands[0];
    if (tuple.tensor != nullptr || index < 0 ||
        index >= static_cast<std::int64_t>(tuple.fields.size()))
      return make_error("operand is not a tuple with a field {}", index);
    return std::vector<RuntimeValue>{tuple.fields[static_cast<std::size_t>(index)]};
  }
  if (node.is_op("call")) {
    if (node.callee() == nullptr) return make_error("the call names no function");
    if (operands.size() != node.callee()->num_params())
      return make_error("call to @{} passes {} argument(s), the function takes {}",
                        node.callee()->name(), operands.size(), node.callee()->num_params());
    return run(*node.callee(), std::move(operands));
  }
  return run_kernel(node, operands);
}

Expected<std::vector<RuntimeValue>> Interpreter::run_kernel(
    const Node& node, const std::vector<RuntimeValue>& operands) {
  if (!node.op().kernel) return make_error("op {} has no reference kernel", node.op_name());
  std::vector<TensorPtr> inputs;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].tensor == nullptr)
      return make_error("operand {} is a tuple, but op {} takes tensors", i, node.op_name());
    inputs.push_back(operands[i].tensor);
  }
  std::vector<Type> result_types;
  for (const Value* result : node.results()) result_types.push_back(result->type());

  // A budget check (uma/runtime/memory_budget.h) refuses values larger than the machine;
  // the allocator may still fail on what fits in the budget but not in free memory.
  Expected<std::vector<TensorPtr>> computed = make_error("no result");
  try {
    computed = node.op().kernel(inputs, node.attrs(), result_types);
  } catch (const std::bad_alloc&) {
    return make_error("out of memory in the kernel of op {}", node.op_name());
  }
  UMA_TRY_ASSIGN(std::vector<TensorPtr> tensors, std::move(computed));
  // A kernel that disagrees with its op's inference would poison every comparison made
  // against the interpreter; report it rather than trusting it.
  if (tensors.size() != result_types.size())
    return make_error(
        "the kernel of op {} returned {} result(s), expected {} (a bug in the kernel)",
        node.op_name(), tensors.size(), result_types.size());
  std::vector<RuntimeValue> results;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i] == nullptr || !(Type(tensors[i]->type()) == result_types[i]))
      return make_error(
          "the kernel of op {} returned {} for result {}, expected {} (a bug in the kernel)",
          node.op_name(), tensors[i] ? to_string(tensors[i]->type()) : "null", i,
          to_string(result_types[i]));
    results.push_back(RuntimeValue{std::move(tensors[i]), {}});
  }
  return results;
}

}  // namespace

Expected<std::vector<TensorPtr>> interpret(const Function& function,
                                           const std::vector<TensorPtr>& arguments) {
  UMA_TRY_ASSIGN(std::vector<RuntimeValue> values, bind_arguments(function, arguments));
  Interpreter interpreter;
  UMA_TRY_ASSIGN(std::vector<RuntimeValue> outputs, interpreter.run(function, std::move(values)));
  std::vector<TensorPtr> flat;
  for (const RuntimeValue& output : outputs) flatten_value(output, flat);
  return flat;
}

Expected<std::vector<TensorPtr>> interpret(const Module& module,
                                           const std::vector<TensorPtr>& arguments) {
  const Function* main = module.find_function("main");
  if (main == nullptr) return make_error("module @{} has no function @main", module.name());
  return interpret(*main, arguments);
}

std::vector<TensorPtr> random_inputs(const Function& function, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<TensorType> types;
  for (const Value* param : function.params()) flatten_type(param->type(), types);
  std::vector<TensorPtr> inputs;
  for (const TensorType& type : types) {
    auto tensor = std::make_shared<Tensor>(type);
    DType dtype = type.dtype;
    // Floats come from a grid of k * 2^(1-p) - 1 with p the dtype's precision, so every
    // value is exact in the dtype and none rounds up to 1.
    int precision = dtype == DType::bf16  ? 8
                    : dtype == DType::f16 ? 11
                    : dtype == DType::f64 ? 53
                                          : 24;
    for (std::int64_t i = 0; i < tensor->num_elements(); ++i) {
      std::uint64_t r = rng();
      double value;
      if (is_float(dtype))
        value = std::ldexp(static_cast<double>(r >> (64 - precision)), 1 - precision) - 1.0;
      else if (dtype == DType::boolean)
        value = static_cast<double>(r & 1);
      else if (is_unsigned(dtype))
        value = static_cast<double>(r % 11);
      else
        value = static_cast<double>(r % 11) - 5.0;
      tensor->set(i, value);
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

}  // namespace uma
