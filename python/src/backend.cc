// uma.Backend: a backend written in Python. A subclass declares in its __init__, in the
// order of the C++ class (uma/uma/backend.h), what the backend has; its callbacks are
// Python callables, called with the GIL held; uma.register_backend hands it to the
// compiler, which then knows its target kind like any other.
#include <pybind11/stl.h>

#include "handles.h"
#include "lowering.h"
#include "pattern.h"
#include "uma/tir/schedule.h"
#include "uma/uma/backend.h"

namespace uma::python {
namespace {

// The protected declarations of Backend, made callable from the bindings.
class PythonBackend final : public Backend {
 public:
  explicit PythonBackend(std::string name) : Backend(std::move(name)) {}
  using Backend::add_bool_attr;
  using Backend::add_c_source;
  using Backend::add_c_source_file;
  using Backend::add_composite_lowering;
  using Backend::add_graph_pass;
  using Backend::add_include;
  using Backend::add_include_dir;
  using Backend::add_int_attr;
  using Backend::add_library;
  using Backend::add_memory;
  using Backend::add_pattern;
  using Backend::add_schedule;
  using Backend::add_string_attr;
  using Backend::add_tir_pass;
  using Backend::keep_reductions_whole;
  using Backend::set_declare_externs;
  using Backend::set_dma;
  using Backend::set_extern_printer;
  using Backend::set_extern_status;
  using Backend::set_max_immediate_elements;
  using Backend::set_op_support;
  using Backend::set_target_check;
};

// What Python subclasses: the backend being declared, until it is registered.
class BackendDeclaration {
 public:
  explicit BackendDeclaration(std::string name)
      : name_(name), backend_(std::make_unique<PythonBackend>(std::move(name))) {}

  PythonBackend& backend() {
    if (!backend_) raise(make_error("backend '{}' was given to register_backend already", name_));
    return *backend_;
  }
  std::unique_ptr<PythonBackend> take() {
    backend();
    return std::move(backend_);
  }
  const std::string& name() const { return name_; }
  // Names a callback in errors.
  std::string callback(const std::string& what) const {
    return fmt::format("backend '{}': {}", name_, what);
  }

 private:
  std::string name_;
  std::unique_ptr<PythonBackend> backend_;
};

GraphPhase graph_phase(const std::string& name) {
  for (GraphPhase phase : {GraphPhase::kPrePartitioning, GraphPhase::kPostPartitioning0,
                           GraphPhase::kPostPartitioning1})
    if (graph_phase_name(phase) == name) return phase;
  raise(
      make_error("unknown graph phase '{}'; expected PRE_PARTITIONING, POST_PARTITIONING_0 "
                 "or POST_PARTITIONING_1",
                 name));
}

TirPhase tir_phase(const std::string& name) {
  const char* names[] = {"TIR_PHASE_0", "TIR_PHASE_1", "TIR_PHASE_2", "TIR_PHASE_3"};
  for (std::size_t i = 0; i < 4; ++i)
    if (name == names[i]) return static_cast<TirPhase>(i);
  raise(make_error("unknown loop-IR phase '{}'; expected TIR_PHASE_0 to TIR_PHASE_3", name));
}

tiling::Role role(const std::string& name) {
  for (tiling::Role r : {tiling::Role::kFeatures, tiling::Role::kWeights, tiling::Role::kBias,
                         tiling::Role::kAccumulators, tiling::Role::kOutputs})
    if (tiling::role_name(r) == name) return r;
  raise(make_error("unknown role '{}'; expected features, weights, bias, accumulators or outputs", name));
}

void declare(py::class_<BackendDeclaration>& c) {
  using D = BackendDeclaration;
  c.def(
       "add_string_attr",
       [](D& d, std::string name, std::string value, std::string help) {
         d.backend().add_string_attr(std::move(name), std::move(value), std::move(help));
       },
       py::arg("name"), py::arg("default"), py::arg("help") = "")
      .def(
          "add_int_attr",
          [](D& d, std::string name, std::int64_t value, std::string help) {
            d.backend().add_int_attr(std::move(name), value, std::move(help));
          },
          py::arg("name"), py::arg("default"), py::arg("help") = "")
      .def(
          "add_bool_attr",
          [](D& d, std::string name, bool value, std::string help) {
            d.backend().add_bool_attr(std::move(name), value, std::move(help));
          },
          py::arg("name"), py::arg("default"), py::arg("help") = "")
      .def(
          "set_target_check",
          [](D& d, py::function check) {
            Callable callback(std::move(check), d.callback("the target check"));
            d.backend().set_target_check(
                [callback](const Target& target) { return call_predicate(callback, target); });
          },
          "check(target) returns None, or what is wrong with the target's attributes")
      .def(
          "add_pattern",
          [](D& d, std::string name, const PyPattern& pattern, py::object predicate) {
            BackendPredicate check;
            if (!predicate.is_none()) {
              Callable callback(std::move(predicate),
                                d.callback(fmt::format("the predicate of pattern '{}'", name)));
              check = [callback](const Match& match, const Target& target) {
                py::gil_scoped_acquire gil;
                Loan loan(*match.root->function()->module(), callback.what(), false);
                return call_predicate(callback, PyMatch{&match, loan.module()}, target);
              };
            }
            d.backend().add_pattern(std::move(name), pattern.pattern, std::move(check));
          },
          py::arg("name"), py::arg("pattern"), py::arg("predicate") = py::none(),
          "predicate(match, target) returns None to accept, or the reason to reject")
      .def(
          "set_op_support",
          [](D& d, py::function supports) {
            Callable callback(std::move(supports), d.callback("the op support"));
            d.backend().set_op_support([callback](const Node& node, const Target& target) {
              py::gil_scoped_acquire gil;
              Loan loan(*node.function()->module(), callback.what(), false);
              return call_predicate(callback, NodeHandle(node, loan.module()), target);
            });
          },
          "supports(node, target) returns None when the target runs the node alone, else why not")
      .def(
          "add_composite_lowering",
          [](D& d, std::string pattern, py::function lower) {
            Callable callback(std::move(lower),
                              d.callback(fmt::format("the lowering of pattern '{}'", pattern)));
            d.backend().add_composite_lowering(
                std::move(pattern),
                [callback](const lower::CompositeOperands& operands,
                           const Target& target) -> Expected<lower::ExternCall> {
                  py::gil_scoped_acquire gil;
                  Loan loan(*operands.call().function()->module(), callback.what(), false);
                  return callback.call<lower::ExternCall>(
                      [&](py::handle result) { return extern_call_of(callback, result); },
                      PyCompositeCall{&operands, loan.module()}, target);
                });
          },
          "lower(call, target) returns the uma.ExternCall one call of the composite becomes")
      .def(
          "keep_reductions_whole",
          [](D& d, std::string pattern) { d.backend().keep_reductions_whole(std::move(pattern)); },
          py::arg("pattern"),
          "with memories: the lowering of `pattern` takes a layer's reductions whole (a pool, "
          "which cannot resume from partial results), so the core never cuts them into chunks "
          "for it, even where a memory holds accumulators")
      .def(
          "add_graph_pass",
          [](D& d, const std::string& phase, std::string name, py::function pass) {
            Callable callback(std::move(pass),
                              d.callback(fmt::format("the graph pass '{}'", name)));
            d.backend().add_graph_pass(
                graph_phase(phase), std::move(name),
                [callback](Module& module, const Target& target) -> Expected<bool> {
                  py::gil_scoped_acquire gil;
                  Loan loan(module, callback.what(), true);
                  return callback.call<bool>(
                      [&](py::handle result) -> Expected<bool> {
                        if (!py::isinstance<py::bool_>(result))
                          return callback.wrong_result(fmt::format(
                              "{}, not a bool (whether it changed the module)", type_name(result)));
                        return result.cast<bool>();
                      },
                      loan.module(), target);
                });
          },
          py::arg("phase"), py::arg("name"), py::arg("run"),
          "run(module, target) at PRE_PARTITIONING, POST_PARTITIONING_0 or "
          "POST_PARTITIONING_1 returns whether it changed the module")
      .def(
          "add_memory",
          [](D& d, std::string name, std::int64_t kb, const std::vector<std::string>& holds,
             std::int64_t alignment, bool optional, std::string help) {
            tiling::MemoryDecl memory{.name = std::move(name), .default_kb = kb,
                                      .alignment = alignment, .holds = {},
                                      .optional = optional, .help = std::move(help)};
            for (const std::string& held : holds) memory.holds.push_back(role(held));
            d.backend().add_memory(std::move(memory));
          },
          py::arg("name"), py::arg("kb"), py::arg("holds"), py::arg("alignment") = 1,
          py::arg("optional") = false, py::arg("help") = "",
          "an on-chip memory of `kb` KiB (the target attribute <name>_kb) holding the operands "
          "of the roles in `holds` ('features', 'weights', 'bias'); the core tiles each "
          "composite with a lowering to fit the memories")
      .def(
          "set_dma",
          [](D& d, std::int64_t bytes_per_cycle, std::int64_t setup_cycles, std::int64_t dims,
             bool overlaps_compute, std::string start, std::string wait) {
            d.backend().set_dma({.bytes_per_cycle = bytes_per_cycle,
                                 .setup_cycles = setup_cycles,
                                 .dims = dims,
                                 .overlaps_compute = overlaps_compute,
                                 .start_function = std::move(start),
                                 .wait_function = std::move(wait)});
          },
          py::kw_only(), py::arg("bytes_per_cycle") = 8, py::arg("setup_cycles") = 16,
          py::arg("dims") = 2, py::arg("overlaps_compute") = true, py::arg("start") = "",
          py::arg("wait") = "",
          "the DMA engine filling the memories: the defaults of its target attributes, and the "
          "C functions of its transfers (empty: a memcpy per row)")
      .def("set_max_immediate_elements",
           [](D& d, std::int64_t count) { d.backend().set_max_immediate_elements(count); })
      .def(
          "add_schedule",
          [](D& d, std::string block, py::function schedule) {
            Callable callback(std::move(schedule),
                              d.callback(fmt::format("the schedule of block '{}'", block)));
            d.backend().add_schedule(std::move(block),
                                     [callback](tir::Schedule& sched, const tir::BlockRef& ref,
                                                const Target& target) -> Status {
                                       // Python schedules a copy of its own, which may outlive
                                       // the call; what it did is copied back.
                                       py::gil_scoped_acquire gil;
                                       py::object copy = py::cast(sched);
                                       Expected<bool> done = callback.call<bool>(
                                           [&](py::handle result) -> Expected<bool> {
                                             if (!result.is_none())
                                               return callback.wrong_result(
                                                   fmt::format("{}, not None", type_name(result)));
                                             return true;
                                           },
                                           copy, ref, target);
                                       if (!done) return done.error();
                                       sched = copy.cast<const tir::Schedule&>();
                                       return Status::success();
                                     });
          },
          py::arg("block"), py::arg("schedule"),
          "schedule(sched, block, target) changes the uma.Schedule `sched` of each function of "
          "the target at each block of that name (after lowering, before TIR_PHASE_0), and "
          "returns None")
      .def(
          "add_tir_pass",
          [](D& d, const std::string& phase, std::string name, py::function pass) {
            Callable callback(std::move(pass),
                              d.callback(fmt::format("the loop-IR pass '{}'", name)));
            d.backend().add_tir_pass(
                tir_phase(phase), std::move(name),
                [callback](const tir::PrimFunc& func,
                           const Target& target) -> Expected<tir::PrimFunc> {
                  return callback.call<tir::PrimFunc>(
                      [&](py::handle result) -> Expected<tir::PrimFunc> {
                        if (result.is_none()) return func;
                        if (!py::isinstance<tir::PrimFunc>(result))
                          return callback.wrong_result(
                              fmt::format("{}, not a uma.PrimFunc or None", type_name(result)));
                        return result.cast<tir::PrimFunc>();
                      },
                      func, target);
                });
          },
          py::arg("phase"), py::arg("name"), py::arg("run"),
          "run(func, target) at TIR_PHASE_0..3 returns the function changed, or None")
      .def("add_include",
           [](D& d, std::string header) { d.backend().add_include(std::move(header)); })
      .def("add_include_dir",
           [](D& d, std::string dir) { d.backend().add_include_dir(std::move(dir)); })
      .def(
          "add_c_source",
          [](D& d, std::string name, std::string code) {
            d.backend().add_c_source(std::move(name), std::move(code));
          },
          py::arg("name"), py::arg("code"), "C compiled and linked with the backend's functions")
      .def("add_c_source_file",
           [](D& d, std::string path) { d.backend().add_c_source_file(std::move(path)); })
      .def("add_library",
           [](D& d, std::string argument) { d.backend().add_library(std::move(argument)); })
      .def("set_declare_externs",
           [](D& d, bool declare) { d.backend().set_declare_externs(declare); })
      .def("set_extern_status", [](D& d, bool status) { d.backend().set_extern_status(status); })
      .def(
          "set_extern_printer",
          [](D& d, py::function print) {
            Callable callback(std::move(print), d.callback("the extern-call printer"));
            d.backend().set_extern_printer(
                [callback](const tir::CallNode& call, const codegen::CExprPrinter& print_arg,
                           const Target& target) -> std::optional<std::string> {
                  std::vector<std::string> args;
                  for (const tir::Expr& arg : call.args) args.push_back(print_arg(arg));
                  Expected<std::optional<std::string>> printed =
                      callback.call<std::optional<std::string>>(
                          [&](py::handle result) -> Expected<std::optional<std::string>> {
                            if (result.is_none()) return std::optional<std::string>();
                            if (!py::isinstance<py::str>(result))
                              return callback.wrong_result(
                                  fmt::format("{}, not a str or None", type_name(result)));
                            return std::optional<std::string>(result.cast<std::string>());
                          },
                          call.name, args, target);
                  // The hook cannot fail: the failure is recorded for the build to raise
                  // (codegen runs on the thread that builds), and the default is printed.
                  if (!printed) return std::nullopt;
                  return *printed;
                });
          },
          py::arg("print"),
          "print(name, args, target) returns the C text of a call of the extern function "
          "`name` with `args` (each argument already printed as C), or None to print the "
          "default name(args...)");
}

}  // namespace

void bind_backend(py::module_& m) {
  py::class_<BackendDeclaration> backend(m, "Backend", py::dynamic_attr());
  backend.def(py::init<std::string>(), py::arg("target_name"))
      .def_property_readonly("target_name", &BackendDeclaration::name);
  declare(backend);
  m.def(
      "register_backend",
      [](BackendDeclaration& declaration) {
        std::unique_ptr<PythonBackend> backend = declaration.take();
        py::gil_scoped_release release;
        check(register_backend(context(), std::move(backend)));
      },
      py::arg("backend"),
      "Registers the backend: its target kind, partition target and the rest for builds. "
      "A backend object is given to it once, whether it registers or fails");
  m.def(
      "backends", [] { return context().backends().names(); }, "The registered backends");
}

}  // namespace uma::python
