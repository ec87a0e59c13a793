// The graph IR from Python: uma.load and uma.parse, and Module, Function, Node and Value
// handles (handles.h) that print as graph IR, read ops, attributes and types, and change the
// graph through the rewriter's operations. Each operation checks what it is given: a handle
// to what was erased, a value or an insertion point of another function or module, a use
// before its definition are errors that name them, so that the module stays valid.
#include <pybind11/stl.h>

#include <map>
#include <unordered_set>

#include "handles.h"
#include "numpy_tensor.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/graph/rewriter.h"
#include "uma/graph/verifier.h"
#include "uma/support/file.h"
#include "uma/support/printable.h"

namespace uma::python {
namespace {

// A path from Python: a str or an os.PathLike; bytes are refused, being what a model's
// contents would be rather than a file name.
std::string path_of(py::handle path) {
  if (py::isinstance<py::bytes>(path) || py::isinstance<py::bytearray>(path) ||
      py::isinstance<py::memoryview>(path))
    raise(make_error(
        "uma.load takes a path (a str or os.PathLike), not {}; to load a model held in memory, "
        "write it to a file first",
        type_name(path)));
  py::module_ os = py::module_::import("os");
  py::object text = os.attr("fspath")(path);
  if (!py::isinstance<py::str>(text))
    raise(make_error("uma.load takes a path (a str or os.PathLike), not {}", type_name(text)));
  // The file system's bytes, also of a name that is not UTF-8 (surrogate escapes).
  return os.attr("fsencode")(text).cast<std::string>();
}

ModuleHandlePtr load(py::handle path_object,
                     const std::map<std::string, std::vector<std::int64_t>>& shapes) {
  std::string path = path_of(path_object);
  std::unique_ptr<Module> module;
  {
    py::gil_scoped_release release;
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) {
      OnnxImportOptions options;
      for (const auto& [name, shape] : shapes) options.input_shapes.emplace(name, shape);
      module = unwrap(import_onnx_file(context(), path, options));
    } else {
      if (!shapes.empty())
        raise(make_error("{}: input_shapes apply to ONNX models (.onnx) only", printable(path)));
      module = unwrap(parse_module(context(), unwrap(read_file(path)), path));
    }
    check(verify(*module));
  }
  return ModuleHandle::owning(std::move(module));
}

FunctionHandle main_function(const ModuleHandlePtr& handle) {
  const Module& module = handle->read("uma.Module");
  Function* main = module.find_function("main");
  if (main == nullptr) raise(make_error("module '{}' has no @main", handle->name()));
  return FunctionHandle(*main, handle);
}

py::object attribute_value(const Attribute& attribute) {
  return std::visit(
      [](const auto& value) -> py::object {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, TensorPtr>)
          return tensor_to_numpy(*value);
        else
          return py::cast(value);
      },
      attribute);
}

Attribute attribute_from(py::handle value) {
  if (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value))
    return value.cast<std::int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    py::sequence items = value.cast<py::sequence>();
    if (items.size() == 0) return std::vector<std::int64_t>{};
    if (py::isinstance<py::float_>(items[0])) return value.cast<std::vector<double>>();
    if (py::isinstance<py::str>(items[0])) return value.cast<std::vector<std::string>>();
    return value.cast<std::vector<std::int64_t>>();
  }
  return TensorPtr(tensor_from_numpy(value, "attribute"));
}

py::dict attributes(const AttrMap& attrs) {
  py::dict result;
  for (const auto& [name, value] : attrs) result[py::str(name)] = attribute_value(value);
  return result;
}

std::string value_label(const ValueHandle& handle) {
  const Value& value = handle.read();
  return fmt::format("<uma.Value {}: {}>", handle.what(), to_string(value.type()));
}

py::object dtype_of(const ValueHandle& handle) {
  const Value& value = handle.read();
  if (!value.type().is_tensor()) return py::none();
  return py::str(std::string(dtype_name(value.tensor_type().dtype)));
}

// A value a rewriter operation on `function` is given: alive, and of that function.
Value& value_of(const Function& function, const ValueHandle& handle, std::string_view role) {
  const Value& value = handle.read();
  if (value.function() != &function)
    raise(make_error("@{}: {} is {} of module '{}', not a value of this function",
                     printable(function.name()), role, handle.what(),
                     printable(value.function()->module()->name())));
  return const_cast<Value&>(value);
}

// Whether `value` is defined before `point` (nullptr: the end of the function), as a use
// there needs. The walk is as long as the distance between them.
bool comes_before(const Value& value, const Node* point) {
  if (value.is_param() || point == nullptr) return true;
  const Function& function = *value.function();
  for (const Node* node = function.node_after(value.producer()); node != nullptr;
       node = function.node_after(node))
    if (node == point) return true;
  return false;
}

Node* insert(const FunctionHandle& self, const std::string& op,
             const std::vector<ValueHandle>& operands, const py::dict& attrs,
             const std::optional<NodeHandle>& before, const std::string& name) {
  Function& function = self.change();
  Node* point = nullptr;
  if (before) {
    point = &before->change();
    if (point->function() != &function)
      raise(
          make_error("@{}: the insertion point is {} of module '{}', not a node of this "
                     "function",
                     printable(function.name()), before->what(),
                     printable(point->function()->module()->name())));
  }
  std::vector<Value*> values;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    Value& value = value_of(function, operands[i], fmt::format("operand {}", i));
    if (!comes_before(value, point))
      raise(make_error("@{}: operand {} is {}, which does not come before the insertion point, {}",
                       printable(function.name()), i, operands[i].what(), before->what()));
    values.push_back(&value);
  }
  AttrMap map;
  for (auto [key, value] : attrs) map.set(key.cast<std::string>(), attribute_from(value));
  Rewriter rewriter(function);
  rewriter.set_insertion_point(point);
  return unwrap(rewriter.try_create(op, std::move(values), std::move(map), name));
}

void replace_all_uses(const FunctionHandle& self, const ValueHandle& from_handle,
                      const ValueHandle& to_handle) {
  Function& function = self.change();
  Value& from = value_of(function, from_handle, "the value to replace");
  Value& to = value_of(function, to_handle, "the replacement");
  std::string where = printable(function.name());
  if (!(from.type() == to.type()))
    raise(make_error("@{}: cannot replace a value of type {} by one of type {}", where,
                     to_string(from.type()), to_string(to.type())));
  if (!to.is_param()) {
    std::unordered_set<const Node*> after;
    for (const Node* node = function.node_after(to.producer()); node != nullptr;
         node = function.node_after(node))
      after.insert(node);
    // The replacement's own use is replaced too: a value computed from `from` takes its
    // place, then gets its operand back by set_operand (until then, verify refuses the cycle).
    for (const Use& use : from.uses())
      if (use.user != nullptr && use.user != to.producer() && !after.count(use.user))
        raise(
            make_error("@{}: cannot replace {} by {}: {} uses it and comes before the "
                       "replacement",
                       where, from_handle.what(), to_handle.what(), describe(*use.user)));
  }
  Rewriter(function).replace_all_uses(&from, &to);
}

void erase(const FunctionHandle& self, const NodeHandle& node_handle) {
  Function& function = self.change();
  Node& node = node_handle.change();
  std::string where = printable(function.name());
  if (node.function() != &function)
    raise(make_error("@{}: cannot erase {} of module '{}': it is not a node of this function",
                     where, node_handle.what(), printable(node.function()->module()->name())));
  for (const Value* result : node.results())
    if (result->has_uses())
      raise(make_error("@{}: cannot erase {}: its results are used", where, node.location()));
  Rewriter(function).erase(&node);
}

void set_operand(const NodeHandle& self, std::size_t i, const ValueHandle& value_handle) {
  Node& node = self.change();
  if (i >= node.num_operands())
    raise(make_error("{} has {} operand(s), not {}", node.location(), node.num_operands(), i + 1));
  Value& value = value_of(*node.function(), value_handle, fmt::format("operand {}", i));
  if (!comes_before(value, &node))
    raise(make_error("{}: operand {} cannot be {}, which does not come before the node",
                     node.location(), i, value_handle.what()));
  node.set_operand(i, &value);
}

template <typename T>
void identity(py::class_<Handle<T>>& c) {
  c.def(
       "__eq__", [](const Handle<T>& a, const Handle<T>& b) { return a.same(b); },
       py::is_operator())
      .def("__hash__", &Handle<T>::hash);
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<ModuleHandle, ModuleHandlePtr>(m, "Module")
      .def("__str__", [](const ModuleHandle& h) { return to_string(h.read("uma.Module")); })
      .def("__repr__",
           [](const ModuleHandle& h) {
             return fmt::format("<uma.Module '{}' with {} function(s)>", h.name(),
                                h.read("uma.Module").num_functions());
           })
      .def_property_readonly("name",
                             [](const ModuleHandle& h) { return h.read("uma.Module").name(); })
      .def_property_readonly("functions",
                             [](const ModuleHandlePtr& h) {
                               return handles<Function>(h, h->read("uma.Module").functions());
                             })
      .def_property_readonly("main", &main_function)
      .def("function",
           [](const ModuleHandlePtr& h, const std::string& name) {
             Function* function = h->read("uma.Module").find_function(name);
             if (function == nullptr)
               raise(make_error("module '{}' has no @{}", h->name(), printable(name)));
             return FunctionHandle(*function, h);
           })
      .def("verify", [](const ModuleHandle& h) { check(verify(h.read("uma.Module"))); });

  py::class_<FunctionHandle> function(m, "Function");
  identity(function);
  function
      .def("__repr__",
           [](const FunctionHandle& h) {
             const Function& f = h.read();
             return fmt::format("<uma.Function @{}: {} node(s)>", printable(f.name()),
                                f.num_nodes());
           })
      .def_property_readonly("name", [](const FunctionHandle& h) { return h.read().name(); })
      .def_property_readonly("attrs",
                             [](const FunctionHandle& h) { return attributes(h.read().attrs()); })
      .def(
          "set_attr",
          [](const FunctionHandle& h, std::string name, py::handle value) {
            Attribute attribute = attribute_from(value);
            h.change().mutable_attrs().set(std::move(name), std::move(attribute));
          },
          py::arg("name"), py::arg("value"),
          "Sets an attribute of the function (a pass's result for later passes and lowering)")
      .def_property_readonly(
          "params",
          [](const FunctionHandle& h) { return handles<Value>(h.module(), h.read().params()); })
      .def_property_readonly(
          "outputs",
          [](const FunctionHandle& h) { return handles<Value>(h.module(), h.read().outputs()); })
      .def_property_readonly(
          "nodes",
          [](const FunctionHandle& h) { return handles<Node>(h.module(), h.read().node_list()); })
      .def(
          "insert",
          [](const FunctionHandle& h, const std::string& op,
             const std::vector<ValueHandle>& operands, const py::dict& attrs,
             const std::optional<NodeHandle>& before, const std::string& name) {
            return h.to(*insert(h, op, operands, attrs, before, name));
          },
          py::arg("op"), py::arg("operands"), py::arg("attrs") = py::dict(),
          py::arg("before") = py::none(), py::arg("name") = "",
          "A new node of `op` before `before` (at the end when None), checked against the op's "
          "schema, its types inferred")
      .def("replace_all_uses", &replace_all_uses, py::arg("old"), py::arg("new"),
           "Every use of `old` (operands and outputs) now uses `new`, a value of the same type "
           "defined before each of those uses (or computed from `old`: its own use is replaced "
           "too, for set_operand to put back)")
      .def("erase", &erase, py::arg("node"), "Erases a node whose results are unused");

  py::class_<NodeHandle> node(m, "Node");
  identity(node);
  node.def("__repr__",
           [](const NodeHandle& h) {
             const Node& node = h.read();
             return fmt::format("<uma.Node {} ({})>", node.location(), node.op_name());
           })
      .def_property_readonly("op", [](const NodeHandle& h) { return h.read().op_name(); })
      .def_property_readonly("name", [](const NodeHandle& h) { return h.read().name(); })
      .def_property_readonly("location", [](const NodeHandle& h) { return h.read().location(); })
      .def_property_readonly("attrs",
                             [](const NodeHandle& h) { return attributes(h.read().attrs()); })
      .def_property_readonly(
          "operands",
          [](const NodeHandle& h) { return handles<Value>(h.module(), h.read().operands()); })
      .def_property_readonly(
          "results",
          [](const NodeHandle& h) { return handles<Value>(h.module(), h.read().results()); })
      .def_property_readonly("result",
                             [](const NodeHandle& h) {
                               const Node& node = h.read();
                               if (node.num_results() == 0)
                                 raise(make_error("{} has no result", node.location()));
                               return h.to(*node.result());
                             })
      .def_property_readonly("callee",
                             [](const NodeHandle& h) -> std::optional<FunctionHandle> {
                               const Function* callee = h.read().callee();
                               if (callee == nullptr) return std::nullopt;
                               return h.to(*callee);
                             })
      .def("set_operand", &set_operand, py::arg("index"), py::arg("value"),
           "Operand `index` becomes `value`, a value of the node's function defined before it");

  py::class_<ValueHandle> value(m, "Value");
  identity(value);
  value.def("__repr__", &value_label)
      .def_property_readonly("name", [](const ValueHandle& h) { return h.read().name(); })
      .def_property_readonly("type",
                             [](const ValueHandle& h) { return to_string(h.read().type()); })
      .def_property_readonly("dtype", &dtype_of)
      .def_property_readonly("shape",
                             [](const ValueHandle& h) -> py::object {
                               const Value& value = h.read();
                               if (!value.type().is_tensor()) return py::none();
                               return py::tuple(py::cast(value.tensor_type().shape));
                             })
      .def_property_readonly("producer",
                             [](const ValueHandle& h) -> std::optional<NodeHandle> {
                               const Node* producer = h.read().producer();
                               if (producer == nullptr) return std::nullopt;
                               return h.to(*producer);
                             })
      .def_property_readonly("is_param", [](const ValueHandle& h) { return h.read().is_param(); })
      .def_property_readonly(
          "users",
          [](const ValueHandle& h) {
            py::list users;
            for (const Use& use : h.read().uses()) {
              if (use.user == nullptr)
                users.append(py::none());  // an output of the function
              else
                users.append(h.to(*use.user));
            }
            return users;
          },
          "The nodes that use the value, once per use (None for each output of the function "
          "it is)");

  m.def("load", &load, py::arg("path"),
        py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{},
        "A model from an ONNX file (input_shapes: {name: shape} for its symbolic dimensions) "
        "or graph IR text, verified");
  m.def(
      "parse",
      [](const std::string& text, const std::string& name) {
        return ModuleHandle::owning(unwrap(parse_module(context(), text, name)));
      },
      py::arg("text"), py::arg("name") = "<string>", "A module from graph IR text");
}

}  // namespace uma::python
