// uma.Target: a target kind with its attributes set, parsed from its command-line text
// ("vanilla --dimension=8"), its attributes readable by name.
#include <pybind11/stl.h>

#include "bindings.h"
#include "uma/uma/target.h"

namespace uma::python {
namespace {

py::object attr_value(const Target& target, const TargetAttrDef& def) {
  switch (def.type()) {
    case TargetAttrType::kString:
      return py::cast(unwrap(target.get_string(def.name)));
    case TargetAttrType::kInt:
      return py::cast(unwrap(target.get_int(def.name)));
    case TargetAttrType::kBool:
      return py::cast(unwrap(target.get_bool(def.name)));
  }
  return py::none();
}

// Every attribute, the kind's own then the standard ones.
py::dict attrs(const Target& target) {
  py::dict result;
  for (const TargetAttrDef& def : target.kind().attrs)
    result[py::str(def.name)] = attr_value(target, def);
  for (const TargetAttrDef& def : standard_target_attrs())
    result[py::str(def.name)] = attr_value(target, def);
  return result;
}

}  // namespace

void bind_target(py::module_& m) {
  py::class_<Target>(m, "Target")
      .def(py::init([](const std::string& text) {
             return unwrap(context().target_kinds().parse(text));
           }),
           py::arg("text"), "A target from its text: \"vanilla --dimension=8\"")
      .def_property_readonly("kind", &Target::name)
      .def_property_readonly("is_host", &Target::is_host)
      .def_property_readonly("attrs", &attrs)
      .def("__getitem__",
           [](const Target& target, const std::string& name) {
             const TargetAttrDef* def = target.kind().find_attr(name);
             if (def == nullptr)
               raise(make_error("target '{}' has no attribute '{}'", target.name(), name));
             return attr_value(target, *def);
           })
      .def("__getattr__",
           [](const Target& target, const std::string& name) {
             const TargetAttrDef* def = target.kind().find_attr(name);
             if (def == nullptr)
               throw py::attribute_error(
                   fmt::format("target '{}' has no attribute '{}'", target.name(), name));
             return attr_value(target, *def);
           })
      .def("__str__", &Target::str)
      .def("__repr__",
           [](const Target& target) { return fmt::format("uma.Target(\"{}\")", target.str()); })
      .def("__eq__", [](const Target& a, const Target& b) { return a.str() == b.str(); });
  m.def(
      "target_kinds", [] { return context().target_kinds().names(); },
      "The registered target kinds");
}

}  // namespace uma::python
