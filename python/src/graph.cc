// The graph IR from Python: uma.load and uma.parse, and Module, Function, Node and Value
// views that print as graph IR, read ops, attributes and types, and change the graph through
// the rewriter's operations. Functions, nodes and values belong to their module and keep it
// alive; a node or value erased from its function must not be used again.
#include <pybind11/stl.h>

#include <map>

#include "bindings.h"
#include "numpy_tensor.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/graph/rewriter.h"
#include "uma/graph/verifier.h"
#include "uma/support/file.h"

namespace uma::python {
namespace {

std::unique_ptr<Module> load(const std::string& path,
                             const std::map<std::string, std::vector<std::int64_t>>& shapes) {
  py::gil_scoped_release release;
  std::unique_ptr<Module> module;
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) {
    OnnxImportOptions options;
    for (const auto& [name, shape] : shapes) options.input_shapes.emplace(name, shape);
    module = unwrap(import_onnx_file(context(), path, options));
  } else {
    if (!shapes.empty())
      raise(make_error("{}: input_shapes apply to ONNX models (.onnx) only", path));
    module = unwrap(parse_module(context(), unwrap(read_file(path)), path));
  }
  check(verify(*module));
  return module;
}

Function& main_function(const Module& module) {
  Function* main = module.find_function("main");
  if (main == nullptr) raise(make_error("module '{}' has no @main", module.name()));
  return *main;
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

std::string value_label(const Value& value) {
  if (value.is_param())
    return fmt::format("<uma.Value parameter {} '{}': {}>", value.index(), value.name(),
                       to_string(value.type()));
  return fmt::format("<uma.Value result {} of {}: {}>", value.index(), value.producer()->location(),
                     to_string(value.type()));
}

py::object dtype_of(const Value& value) {
  if (!value.type().is_tensor()) return py::none();
  return py::str(std::string(dtype_name(value.tensor_type().dtype)));
}

}  // namespace

void bind_graph(py::module_& m) {
  auto ref = py::return_value_policy::reference_internal;
  py::class_<Module>(m, "Module")
      .def("__str__", [](const Module& module) { return to_string(module); })
      .def("__repr__",
           [](const Module& module) {
             return fmt::format("<uma.Module '{}' with {} function(s)>", module.name(),
                                module.num_functions());
           })
      .def_property_readonly("name", &Module::name)
      .def_property_readonly("functions", &Module::functions, ref)
      .def_property_readonly("main", &main_function, ref)
      .def(
          "function",
          [](const Module& module, const std::string& name) {
            Function* function = module.find_function(name);
            if (function == nullptr)
              raise(make_error("module '{}' has no @{}", module.name(), name));
            return function;
          },
          ref)
      .def("verify", [](const Module& module) { check(verify(module)); });

  py::class_<Function>(m, "Function")
      .def("__repr__",
           [](const Function& function) {
             return fmt::format("<uma.Function @{}: {} node(s)>", function.name(),
                                function.num_nodes());
           })
      .def_property_readonly("name", &Function::name)
      .def_property_readonly("attrs", [](const Function& f) { return attributes(f.attrs()); })
      .def(
          "set_attr",
          [](Function& function, std::string name, py::handle value) {
            function.mutable_attrs().set(std::move(name), attribute_from(value));
          },
          py::arg("name"), py::arg("value"),
          "Sets an attribute of the function (a pass's result for later passes and lowering)")
      .def_property_readonly("params", &Function::params, ref)
      .def_property_readonly("outputs", &Function::outputs, ref)
      .def_property_readonly("nodes", &Function::node_list, ref)
      .def(
          "insert",
          [](Function& function, const std::string& op, std::vector<Value*> operands,
             const py::dict& attrs, Node* before, const std::string& name) {
            AttrMap map;
            for (auto [key, value] : attrs) map.set(key.cast<std::string>(), attribute_from(value));
            Rewriter rewriter(function);
            rewriter.set_insertion_point(before);
            return unwrap(rewriter.try_create(op, std::move(operands), std::move(map), name));
          },
          py::arg("op"), py::arg("operands"), py::arg("attrs") = py::dict(),
          py::arg("before") = nullptr, py::arg("name") = "", ref,
          "A new node of `op` before `before` (at the end when None), checked against the op's "
          "schema, its types inferred")
      .def("replace_all_uses",
           [](Function& function, Value* from, Value* to) {
             if (!(from->type() == to->type()))
               raise(make_error("@{}: cannot replace a value of type {} by one of type {}",
                                function.name(), to_string(from->type()), to_string(to->type())));
             Rewriter(function).replace_all_uses(from, to);
           })
      .def("erase", [](Function& function, Node* node) {
        for (const Value* result : node->results())
          if (result->has_uses())
            raise(make_error("@{}: cannot erase {}: its results are used", function.name(),
                             node->location()));
        Rewriter(function).erase(node);
      });

  py::class_<Node>(m, "Node")
      .def("__repr__",
           [](const Node& node) {
             return fmt::format("<uma.Node {} ({})>", node.location(), node.op_name());
           })
      .def_property_readonly("op", &Node::op_name)
      .def_property_readonly("name", &Node::name)
      .def_property_readonly("location", [](const Node& node) { return node.location(); })
      .def_property_readonly("attrs", [](const Node& node) { return attributes(node.attrs()); })
      .def_property_readonly("operands", &Node::operands, ref)
      .def_property_readonly("results", &Node::results, ref)
      .def_property_readonly(
          "result", [](const Node& node) { return node.result(); }, ref)
      .def_property_readonly("callee", &Node::callee, ref)
      .def("set_operand", [](Node& node, std::size_t i, Value* value) {
        if (i >= node.num_operands())
          raise(make_error("{} has {} operand(s), not {}", node.location(), node.num_operands(),
                           i + 1));
        node.set_operand(i, value);
      });

  py::class_<Value>(m, "Value")
      .def("__repr__", &value_label)
      .def_property_readonly("name", &Value::name)
      .def_property_readonly("type", [](const Value& value) { return to_string(value.type()); })
      .def_property_readonly("dtype", &dtype_of)
      .def_property_readonly("shape",
                             [](const Value& value) -> py::object {
                               if (!value.type().is_tensor()) return py::none();
                               return py::tuple(py::cast(value.tensor_type().shape));
                             })
      .def_property_readonly("producer", &Value::producer, ref)
      .def_property_readonly("is_param", &Value::is_param)
      .def_property_readonly(
          "users",
          [](const Value& value) {
            std::vector<Node*> users;
            for (const Use& use : value.uses()) users.push_back(use.user);
            return users;
          },
          ref);

  m.def("load", &load, py::arg("path"),
        py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{},
        "A model from an ONNX file (input_shapes: {name: shape} for its symbolic dimensions) "
        "or graph IR text, verified");
  m.def(
      "parse",
      [](const std::string& text, const std::string& name) {
        return unwrap(parse_module(context(), text, name));
      },
      py::arg("text"), py::arg("name") = "<string>", "A module from graph IR text");
}

}  // namespace uma::python
