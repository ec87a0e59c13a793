// The pattern language from Python (uma/pattern/pattern.h): wildcard, is_op, is_constant,
// alternatives (alt or |), optional, and attribute, dtype, shape and type predicates, the
// last two also as Python callables; and uma.Match, what a pattern's predicate sees.
#include "pattern.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "uma/graph/ir.h"

namespace uma::python {
namespace {

PyPattern wrap(PatternPtr pattern) { return PyPattern{std::move(pattern)}; }

std::vector<PatternPtr> unwrap_all(const std::vector<PyPattern>& patterns) {
  std::vector<PatternPtr> result;
  for (const PyPattern& p : patterns) result.push_back(p.pattern);
  return result;
}

PyPattern is_op_of(const py::object& ops, const std::optional<std::vector<PyPattern>>& operands) {
  std::vector<std::string> names = py::isinstance<py::str>(ops)
                                       ? std::vector<std::string>{ops.cast<std::string>()}
                                       : ops.cast<std::vector<std::string>>();
  if (names.empty()) raise(make_error("uma.is_op: no op is named (an empty list)"));
  if (!operands) return wrap(is_op(names));
  return wrap(is_op(names, unwrap_all(*operands)));
}

// A predicate called while matching, perhaps with the GIL released: an exception fails the
// match and is raised by the partitioning that ran it.
template <typename T>
std::function<bool(const T&)> test_of(py::function test, std::string what,
                                      std::function<py::object(const T&)> convert) {
  Callable callable(std::move(test), std::move(what));
  return [callable, convert](const T& value) {
    py::gil_scoped_acquire gil;
    py::object argument = convert(value);
    Expected<bool> result = callable.call<bool>(
        [](py::handle r) -> Expected<bool> { return PyObject_IsTrue(r.ptr()) == 1; }, argument);
    return result.ok() && *result;
  };
}

py::object attribute_object(const Attribute& attribute) {
  return std::visit(
      [](const auto& value) -> py::object {
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, TensorPtr>)
          return py::none();  // a tensor attribute: the test sees None
        else
          return py::cast(value);
      },
      attribute);
}

}  // namespace

void bind_pattern(py::module_& m) {
  py::class_<PyPattern>(m, "Pattern")
      .def("__str__", [](const PyPattern& p) { return p.pattern->to_string(); })
      .def("__repr__",
           [](const PyPattern& p) { return "<uma.Pattern " + p.pattern->to_string() + ">"; })
      .def("__or__",
           [](const PyPattern& a, const PyPattern& b) { return wrap(alt(a.pattern, b.pattern)); })
      .def(
          "has_attr",
          [](const PyPattern& p, const std::string& name, const py::object& value,
             const std::string& description) {
            if (!PyCallable_Check(value.ptr())) {
              Attribute attribute =
                  py::isinstance<py::float_>(value) ? Attribute(value.cast<double>())
                  : py::isinstance<py::str>(value)  ? Attribute(value.cast<std::string>())
                  : py::isinstance<py::int_>(value) ? Attribute(value.cast<std::int64_t>())
                  : py::isinstance<py::list>(value) && !value.cast<py::list>().empty() &&
                          py::isinstance<py::float_>(value.cast<py::list>()[0])
                      ? Attribute(value.cast<std::vector<double>>())
                      : Attribute(value.cast<std::vector<std::int64_t>>());
              return wrap(has_attr(p.pattern, name, std::move(attribute)));
            }
            std::string words = description.empty() ? "satisfies a Python predicate" : description;
            return wrap(has_attr(
                p.pattern, name,
                test_of<Attribute>(value,
                                   fmt::format("the test of attribute '{}' ({})", name, words),
                                   attribute_object),
                words));
          },
          py::arg("name"), py::arg("value"), py::arg("description") = "",
          "The node's attribute equals `value`, or `value(attribute)` is true (described as "
          "`description` in reports: \"is at most 3\")")
      .def("has_dtype",
           [](const PyPattern& p, const std::string& dtype) {
             std::optional<DType> parsed = parse_dtype(dtype);
             if (!parsed)
               raise(make_error("unknown dtype '{}'; expected one of {}", dtype, dtype_names()));
             return wrap(has_dtype(p.pattern, *parsed));
           })
      .def("has_shape",
           [](const PyPattern& p, const Shape& shape) { return wrap(has_shape(p.pattern, shape)); })
      .def("has_rank",
           [](const PyPattern& p, std::size_t rank) { return wrap(has_rank(p.pattern, rank)); })
      .def(
          "has_type",
          [](const PyPattern& p, py::function test, const std::string& description) {
            return wrap(has_type(
                p.pattern,
                test_of<Type>(
                    std::move(test), fmt::format("the type test '{}'", description),
                    [](const Type& type) -> py::object { return py::str(to_string(type)); }),
                description));
          },
          py::arg("test"), py::arg("description"),
          "`test(type_text)` is true for the value's type (\"tensor<1x3xf32>\")");

  m.def("wildcard", [] { return wrap(wildcard()); });
  m.def("is_constant", [] { return wrap(is_constant()); });
  m.def("is_input", [] { return wrap(is_input()); });
  m.def("is_op", &is_op_of, py::arg("op"), py::arg("operands") = std::nullopt,
        "A node of `op` (a name, or a list of names) whose operands match `operands` (any "
        "operands when None)");
  m.def("alt",
        [](const PyPattern& a, const PyPattern& b) { return wrap(alt(a.pattern, b.pattern)); });
  m.def(
      "optional",
      [](const PyPattern& base, const py::function& extend) {
        return wrap(optional(base.pattern, [&](PatternPtr p) {
          return extend(wrap(std::move(p))).cast<PyPattern>().pattern;
        }));
      },
      py::arg("base"), py::arg("extend"), "extend(base) or base alone, longest first");
  m.def(
      "is_tuple_get_item",
      [](const PyPattern& p, std::int64_t index) {
        return wrap(is_tuple_get_item(p.pattern, index));
      },
      py::arg("pattern"), py::arg("index") = -1);
  m.def("dominates", [](const PyPattern& parent, const PyPattern& path, const PyPattern& child) {
    return wrap(dominates(parent.pattern, path.pattern, child.pattern));
  });

  py::class_<PyMatch>(m, "Match")
      .def_property_readonly(
          "nodes", [](const PyMatch& m) { return handles<Node>(m.module, m.read().nodes); })
      .def_property_readonly(
          "inputs", [](const PyMatch& m) { return handles<Value>(m.module, m.read().inputs); })
      .def_property_readonly("root",
                             [](const PyMatch& m) { return ValueHandle(*m.read().root, m.module); })
      .def(
          "find",
          [](const PyMatch& m, const std::string& op) -> std::optional<NodeHandle> {
            for (const Node* node : m.read().nodes)
              if (node->is_op(op)) return NodeHandle(*node, m.module);
            return std::nullopt;
          },
          "The first node of `op` in the match (operands before users), or None")
      .def("__getitem__", [](const PyMatch& m, const PyPattern& p) -> std::optional<ValueHandle> {
        const Value* value = m.read()[p.pattern];
        if (value == nullptr) return std::nullopt;
        return ValueHandle(*value, m.module);
      });
}

}  // namespace uma::python
