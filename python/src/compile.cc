// uma.partition and uma.build: the build driver (uma/uma/build.h) from Python, the
// partition report as Python data and as its text forms, and uma.Compiled, a built model
// that runs on numpy arrays without copying them.
#include <pybind11/stl.h>

#include <mutex>
#include <sstream>

#include "handles.h"
#include "numpy_tensor.h"
#include "uma/graph/verifier.h"
#include "uma/partition/report.h"
#include "uma/runtime/executor.h"
#include "uma/uma/build.h"

namespace uma::python {
namespace {

// Targets as strings or uma.Target objects.
std::vector<std::string> target_texts(const py::iterable& targets) {
  std::vector<std::string> texts;
  for (py::handle target : targets)
    texts.push_back(py::isinstance<py::str>(target) ? target.cast<std::string>()
                                                    : target.cast<const Target&>().str());
  return texts;
}

// Runs `stage` with the GIL released. A Python callback's failure that the compiler did not
// report (a predicate's exception only rejects its match) is raised after it.
template <typename F>
auto without_gil(F&& stage) {
  FailureSink failures;
  auto result = [&] {
    py::gil_scoped_release release;
    return stage();
  }();
  failures.check();
  return result;
}

py::dict record_dict(const NodeRecord& record) {
  py::list rejections;
  for (const Rejection& r : record.rejections)
    rejections.append(py::dict(py::arg("target") = r.target,
                               py::arg("kind") = std::string(rejection_id(r.kind)),
                               py::arg("detail") = r.detail));
  return py::dict(py::arg("id") = record.id, py::arg("function") = record.function,
                  py::arg("name") = record.name, py::arg("op") = record.op,
                  py::arg("target") = record.target.empty() ? std::string("host") : record.target,
                  py::arg("composite") = record.composite, py::arg("region") = record.region,
                  py::arg("macs") = record.macs, py::arg("bytes") = record.bytes,
                  py::arg("inputs") = record.inputs, py::arg("rejections") = rejections);
}

// A built model and its executor: one run at a time.
class Compiled {
 public:
  Compiled(build::HostBuild built, std::unique_ptr<runtime::Executor> executor,
           std::vector<std::string> input_names, std::shared_ptr<PartitionReport> report)
      : built_(std::move(built)),
        executor_(std::move(executor)),
        input_names_(std::move(input_names)),
        report_(std::move(report)) {}

  py::list run(const py::args& args, const py::kwargs& kwargs) {
    const runtime::HostProgram& program = executor_->program();
    if (args.size() + kwargs.size() != program.inputs.size())
      raise(make_error("the model takes {} input(s), not {}", program.inputs.size(),
                       args.size() + kwargs.size()));
    std::vector<py::array> arrays;
    std::vector<const void*> inputs;
    for (std::size_t i = 0; i < program.inputs.size(); ++i) {
      const std::string& name = input_names_[i];
      py::object value;
      if (i < args.size())
        value = args[i];
      else if (kwargs.contains(name))
        value = kwargs[py::str(name)];
      else
        raise(make_error("input '{}' is not given", name));
      arrays.push_back(checked_array(value, program.inputs[i], fmt::format("input '{}'", name)));
      inputs.push_back(arrays.back().data());
    }
    py::list result;
    std::vector<void*> outputs;
    for (const TensorType& type : program.outputs) {
      py::array output(numpy_dtype(type.dtype, "an output"), type.shape);
      outputs.push_back(output.mutable_data());
      result.append(output);
    }
    Status status = [&] {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      return executor_->run(inputs, outputs);
    }();
    check(status);
    return result;
  }

  const build::HostBuild& built() const { return built_; }
  const std::shared_ptr<PartitionReport>& report() const { return report_; }
  const std::vector<std::string>& input_names() const { return input_names_; }

 private:
  build::HostBuild built_;
  std::unique_ptr<runtime::Executor> executor_;
  std::vector<std::string> input_names_;
  std::shared_ptr<PartitionReport> report_;
  std::mutex mutex_;
};

std::shared_ptr<PartitionReport> partition(ModuleHandle& handle, const py::iterable& targets) {
  std::vector<std::string> texts = target_texts(targets);
  auto report = std::make_shared<PartitionReport>();
  ModuleHandle::Work work(handle, "uma.partition", true);
  Module& module = work.module();
  without_gil([&] {
    // What Python changed is checked before the compiler relies on it.
    check(verify(module));
    build::BuildTargets parsed = unwrap(build::parse_targets(module.context(), texts));
    check(build::partition_for_targets(module, parsed, {.report = report.get()}));
    return true;
  });
  return report;
}

std::unique_ptr<Compiled> build_model(ModuleHandle& handle, const py::iterable& targets,
                                      int threads, const std::string& cflags,
                                      const std::string& cache_dir) {
  std::vector<std::string> texts = target_texts(targets);
  ModuleHandle::Work work(handle, "uma.build", true);
  Module& module = work.module();
  if (threads != 1) texts.push_back(fmt::format("{} --threads={}", kHostTargetKind, threads));
  std::vector<std::string> names;
  if (Function* main = module.find_function("main"))
    for (const Value* param : main->params()) names.push_back(param->name());
  auto report = std::make_shared<PartitionReport>();
  build::BuildOptions options{.report = report.get()};
  std::istringstream flags(cflags);
  for (std::string flag; flags >> flag;) options.compiler.compile_flags.push_back(flag);
  options.compiler.cache_dir = cache_dir;
  return without_gil([&] {
    check(verify(module));
    build::BuildTargets parsed = unwrap(build::parse_targets(module.context(), texts));
    build::HostBuild built = unwrap(build::build(module, parsed, options));
    std::unique_ptr<runtime::Executor> executor = unwrap(runtime::Executor::create(built.program));
    return std::make_unique<Compiled>(std::move(built), std::move(executor), std::move(names),
                                      std::move(report));
  });
}

}  // namespace

void bind_compile(py::module_& m) {
  py::class_<PartitionReport, std::shared_ptr<PartitionReport>>(m, "PartitionReport")
      .def_property_readonly("targets", &PartitionReport::targets)
      .def_property_readonly(
          "records",
          [](const PartitionReport& report) {
            py::list records;
            for (const NodeRecord& record : report.records()) records.append(record_dict(record));
            return records;
          },
          "Every node of the host function before partitioning: its target, composite, "
          "region, cost and each other target's reason to reject it")
      .def_property_readonly(
          "summary",
          [](const PartitionReport& report) {
            py::list rows;
            for (const TargetSummary& s : report.summary())
              rows.append(py::dict(py::arg("target") = s.target, py::arg("nodes") = s.nodes,
                                   py::arg("regions") = s.regions, py::arg("macs") = s.macs,
                                   py::arg("bytes") = s.bytes));
            return rows;
          })
      .def_property_readonly(
          "tilings",
          [](const PartitionReport& report) -> py::object {
            // The JSON's objects, so that Python reads the fields the JSON documents.
            py::dict parsed = py::module_::import("json").attr("loads")(report.to_json());
            return parsed.contains("tilings") ? parsed["tilings"] : py::list();
          },
          "Each layer a build tiled into its target's memories: its plan as the JSON's "
          "\"tilings\" has it (tile, chunks, tiles, buffering, per operand and memory) and, "
          "when its backend has a performance model, its \"estimate\" (cycles, "
          "compute_cycles, dma_cycles, stall_cycles, dram_bytes, energy_pj, utilisation, "
          "bound, ... as uma sim --json prints them)")
      .def("to_json", &PartitionReport::to_json)
      .def("to_table", &PartitionReport::to_table)
      .def("to_dot", &PartitionReport::to_dot)
      .def("__str__", &PartitionReport::to_table);

  py::class_<Compiled>(m, "Compiled")
      .def("__call__", &Compiled::run,
           "Runs the model: inputs positional in order or by name, numpy arrays of the "
           "model's dtypes and shapes (used in place when C-contiguous); a list of arrays")
      .def_property_readonly("inputs", &Compiled::input_names)
      .def_property_readonly(
          "functions",
          [](const Compiled& c) {
            std::vector<std::pair<std::string, std::string>> functions;
            for (const build::BuiltFunction& f : c.built().built)
              functions.emplace_back(f.name, f.target);
            return functions;
          },
          "(function, target) of each generated function, in order of first call")
      .def_property_readonly(
          "c_sources",
          [](const Compiled& c) {
            std::vector<std::pair<std::string, std::string>> files;
            for (const runtime::CSourceFile& f : c.built().sources)
              files.emplace_back(f.name, f.code);
            return files;
          },
          "(name, code) of each C file of the build")
      .def_property_readonly("report", &Compiled::report, "The partition report");

  m.def("partition", &partition, py::arg("module"), py::arg("targets"),
        "PRE_PARTITIONING, partitioning and POST_PARTITIONING_0 of the module in place for "
        "the targets (strings or uma.Target, in priority order); the partition report");
  m.def("build", &build_model, py::arg("module"), py::arg("targets") = py::list(),
        py::arg("threads") = 1, py::arg("cflags") = "", py::arg("cache_dir") = "",
        "Builds @main for the targets (the host alone when none is given); the module is "
        "changed in place. A uma.Compiled, ready to run");
}

}  // namespace uma::python
