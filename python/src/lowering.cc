// Composite lowering from Python: uma.ExternCall(name, args) with args that are uma.Expr
// (addresses of the composite's buffers, immediates of a dtype), Python ints (i64) and
// floats (f32); and uma.CompositeCall, what a lowering reads of one call of its composite.
#include "lowering.h"

#include <pybind11/stl.h>

#include "uma/lower/compute_util.h"
#include "uma/tir/printer.h"

namespace uma::python {

tir::Expr expr_from(py::handle value) {
  if (py::isinstance<PyExpr>(value)) return value.cast<const PyExpr&>().expr;
  if (py::isinstance<py::bool_>(value)) return lower::constant(DType::boolean, value.cast<bool>());
  if (py::isinstance<py::int_>(value)) return tir::Expr(value.cast<std::int64_t>());
  if (py::isinstance<py::float_>(value)) return tir::Expr(value.cast<double>());
  raise(make_error("an extern call's argument must be a uma.Expr, int or float, not {}",
                   type_name(value)));
}

namespace {

DType dtype_from(const std::string& name) {
  std::optional<DType> dtype = parse_dtype(name);
  if (!dtype) raise(make_error("unknown dtype '{}'; expected one of {}", name, dtype_names()));
  return *dtype;
}

}  // namespace

Expected<lower::ExternCall> extern_call_of(const Callable& callback, py::handle result) {
  if (!py::isinstance<lower::ExternCall>(result))
    return callback.wrong_result(fmt::format("{}, not a uma.ExternCall", type_name(result)));
  return result.cast<lower::ExternCall>();
}

void bind_lowering(py::module_& m) {
  py::class_<PyExpr>(m, "Expr")
      .def("__str__", [](const PyExpr& e) { return tir::to_string(e.expr); })
      .def("__repr__", [](const PyExpr& e) { return "<uma.Expr " + tir::to_string(e.expr) + ">"; })
      .def_property_readonly("dtype",
                             [](const PyExpr& e) { return tir::to_string(e.expr.type()); });
  m.def(
      "const",
      [](const std::string& dtype, double value) {
        return PyExpr{lower::constant(dtype_from(dtype), value)};
      },
      py::arg("dtype"), py::arg("value"), "An immediate of `dtype`: uma.const(\"f32\", 0.5)");

  py::class_<lower::ExternCall>(m, "ExternCall")
      .def(py::init([](std::string name, const py::list& args, const std::string& dtype) {
             lower::ExternCall call{.name = std::move(name),
                                    .type = tir::DataType::scalar(dtype_from(dtype))};
             for (py::handle arg : args) call.args.push_back(expr_from(arg));
             return call;
           }),
           py::arg("name"), py::arg("args"), py::arg("dtype") = "i32",
           "The C call `name(args...)` returning `dtype` (a status when the backend's calls "
           "return one)")
      .def_readonly("name", &lower::ExternCall::name)
      .def("__str__", [](const lower::ExternCall& call) {
        std::string args;
        for (const tir::Expr& arg : call.args)
          args += (args.empty() ? "" : ", ") + tir::to_string(arg);
        return fmt::format("{}({})", call.name, args);
      });

  py::class_<PyCompositeCall>(m, "CompositeCall")
      .def_property_readonly(
          "call", [](const PyCompositeCall& c) { return NodeHandle(c.read().call(), c.module); })
      .def_property_readonly(
          "composite",
          [](const PyCompositeCall& c) { return FunctionHandle(c.read().composite(), c.module); })
      .def(
          "find",
          [](const PyCompositeCall& c, const std::string& op) -> std::optional<NodeHandle> {
            const Node* node = c.read().find(op);
            if (node == nullptr) return std::nullopt;
            return NodeHandle(*node, c.module);
          },
          "The first node of `op` in the composite, or None")
      .def(
          "address",
          [](const PyCompositeCall& c, const std::optional<ValueHandle>& value) {
            if (!value) raise(make_error("address of None; use address_or_null"));
            return PyExpr{unwrap(c.read().address(value->read()))};
          },
          py::arg("value").none(true),
          "&buffer[0, ...] of a value the call reads or writes: its operands, the constants "
          "inside it, its outputs")
      .def(
          "address_or_null",
          [](const PyCompositeCall& c, const std::optional<ValueHandle>& value) {
            const lower::CompositeOperands& operands = c.read();
            return PyExpr{unwrap(operands.address_or_null(value ? &value->read() : nullptr))};
          },
          py::arg("value").none(true), "address(value), or a null pointer when value is None");
}

}  // namespace uma::python
