// The loop IR from Python, for loop-IR passes: uma.PrimFunc (its name, buffers and text),
// and uma.Schedule over it, which finds blocks, reads their buffers, iteration variables
// and loops, moves buffers into memory scopes and replaces a block's loop nest by an extern
// call (tir::Schedule).
#include <pybind11/stl.h>

#include "lowering.h"
#include "uma/tir/printer.h"
#include "uma/tir/schedule.h"

namespace uma::python {
namespace {

// An extent or shape: an int when it is constant, else its text.
py::object int_or_text(const tir::Expr& e) {
  if (std::optional<std::int64_t> value = tir::as_const_int(e)) return py::int_(*value);
  return py::str(tir::to_string(e));
}

py::dict buffer_dict(const tir::Buffer& buffer) {
  py::list shape;
  for (const tir::Expr& dim : buffer->shape) shape.append(int_or_text(dim));
  return py::dict(py::arg("name") = buffer->name,
                  py::arg("dtype") = std::string(dtype_name(buffer->dtype)),
                  py::arg("shape") = py::tuple(shape), py::arg("scope") = buffer->scope);
}

py::list buffer_list(const std::vector<tir::Buffer>& buffers) {
  py::list result;
  for (const tir::Buffer& buffer : buffers) result.append(buffer_dict(buffer));
  return result;
}

const tir::BlockNode& block_of(const tir::Schedule& schedule, const tir::BlockRef& block) {
  tir::Stmt stmt = unwrap(schedule.block_stmt(block, "block"));
  return *stmt.as<tir::BlockNode>();
}

// The buffer of that name the block reads or writes.
tir::Buffer buffer_of(const tir::Schedule& schedule, const tir::BlockRef& ref,
                      const std::string& name) {
  const tir::BlockNode& block = block_of(schedule, ref);
  for (const std::vector<tir::Buffer>* buffers : {&block.reads, &block.writes})
    for (const tir::Buffer& buffer : *buffers)
      if (buffer->name == name) return buffer;
  raise(make_error("block '{}' neither reads nor writes a buffer '{}'", block.name, name));
}

}  // namespace

void bind_schedule(py::module_& m) {
  py::class_<tir::PrimFunc>(m, "PrimFunc")
      .def_readonly("name", &tir::PrimFunc::name)
      .def_property_readonly(
          "params", [](const tir::PrimFunc& func) { return buffer_list(func.params); },
          "Its buffers: the inputs, then the outputs")
      .def("__str__", [](const tir::PrimFunc& func) { return tir::to_string(func); });

  py::class_<tir::BlockRef>(m, "BlockRef");

  py::class_<tir::Schedule>(m, "Schedule")
      .def(py::init<tir::PrimFunc>(), py::arg("func"))
      .def_property_readonly("func", &tir::Schedule::func, "The function as scheduled so far")
      .def(
          "get_block",
          [](tir::Schedule& s, const std::string& name) { return unwrap(s.get_block(name)); },
          "The block of that name; an error when there is none or several")
      .def(
          "get_blocks",
          [](tir::Schedule& s, const std::string& name) { return unwrap(s.get_blocks(name)); },
          "Every block of that name, in program order; an error when there is none")
      .def(
          "block",
          [](const tir::Schedule& s, const tir::BlockRef& ref) {
            const tir::BlockNode& block = block_of(s, ref);
            py::list iter_vars;
            for (const tir::IterVar& iv : block.iter_vars)
              iter_vars.append(py::dict(py::arg("name") = iv.name,
                                        py::arg("extent") = int_or_text(iv.extent),
                                        py::arg("kind") = std::string(iter_kind_name(iv.kind))));
            return py::dict(
                py::arg("name") = block.name, py::arg("reads") = buffer_list(block.reads),
                py::arg("writes") = buffer_list(block.writes), py::arg("iter_vars") = iter_vars);
          },
          "The block's name, the buffers it reads and writes, and its iteration variables")
      .def(
          "get_loops",
          [](const tir::Schedule& s, const tir::BlockRef& block) {
            std::vector<std::string> names;
            for (const tir::LoopRef& loop : unwrap(s.get_loops(block)))
              names.push_back(loop.var.as<tir::VarNode>()->name);
            return names;
          },
          "The names of the block's loops' variables, outermost first")
      .def(
          "cache_read",
          [](tir::Schedule& s, const tir::BlockRef& block, const std::string& buffer,
             const std::string& scope) {
            return unwrap(s.cache_read(block, buffer_of(s, block, buffer), scope));
          },
          py::arg("block"), py::arg("buffer"), py::arg("scope"),
          "Makes the block read a copy of the buffer (named) in memory `scope`; the copy block")
      .def(
          "cache_write",
          [](tir::Schedule& s, const tir::BlockRef& block, const std::string& buffer,
             const std::string& scope) {
            return unwrap(s.cache_write(block, buffer_of(s, block, buffer), scope));
          },
          py::arg("block"), py::arg("buffer"), py::arg("scope"),
          "Makes the block write the buffer (named) in memory `scope`, then copy it out; the "
          "copy block")
      .def(
          "replace_with_extern",
          [](tir::Schedule& s, const tir::BlockRef& block, const std::string& name,
             const std::optional<py::list>& scalars) {
            std::optional<std::vector<tir::Expr>> args;
            if (scalars) {
              args.emplace();
              for (py::handle scalar : *scalars) args->push_back(expr_from(scalar));
            }
            check(s.replace_with_extern(block, name, std::move(args)));
          },
          py::arg("block"), py::arg("name"), py::arg("scalars") = std::nullopt,
          "Replaces the block's loop nest by name(&reads..., &writes..., scalars...), the "
          "scalars by default the extents of its loops");
}

}  // namespace uma::python
