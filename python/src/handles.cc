// Python's handles to the graph IR: the checks before each use (see handles.h).
#include "handles.h"

#include "uma/support/printable.h"

namespace uma::python {

ModuleHandle::ModuleHandle(Module& module, std::string given_to, bool may_change)
    : module_(&module),
      alive_(module.liveness().watch()),
      name_(printable(module.name())),
      given_to_(std::move(given_to)),
      may_change_(may_change) {}

std::shared_ptr<ModuleHandle> ModuleHandle::owning(std::unique_ptr<Module> module) {
  std::shared_ptr<ModuleHandle> handle(new ModuleHandle(*module, "", true));
  handle->owned_ = std::move(module);
  return handle;
}

std::shared_ptr<ModuleHandle> ModuleHandle::lent(Module& module, std::string given_to,
                                                 bool may_change) {
  return std::shared_ptr<ModuleHandle>(new ModuleHandle(module, std::move(given_to), may_change));
}

Module& ModuleHandle::read(std::string_view what) const {
  if (returned_)
    raise(make_error(
        "{}: module '{}' was given to {}, which has returned; what a callback is given is "
        "valid only while it runs",
        what, name_, given_to_));
  if (alive_.expired()) raise(make_error("{}: module '{}' no longer exists", what, name_));
  if (building_ && builder_ != std::this_thread::get_id())
    raise(make_error("{}: module '{}' is being built on another thread", what, name_));
  return *module_;
}

void ModuleHandle::refuse_changes(std::string_view what) const {
  if (!may_change_)
    raise(make_error(
        "{}: module '{}' was given to {}, which may only read it; a graph pass may change the "
        "module it is given",
        what, name_, given_to_));
  if (building_)
    raise(make_error(
        "{}: module '{}' is being built; only a graph pass may change it, through the module it "
        "is given",
        what, name_));
  if (readers_ > 0)
    raise(make_error("{}: module '{}' is being interpreted and cannot change meanwhile", what,
                     name_));
}

Module& ModuleHandle::change(std::string_view what) const {
  Module& module = read(what);
  refuse_changes(what);
  return module;
}

ModuleHandle::Work::Work(ModuleHandle& handle, std::string_view what, bool changes)
    : handle_(handle), module_(handle.read(what)), changes_(changes) {
  if (changes) {
    if (!handle.given_to_.empty())
      raise(make_error(
          "{}: module '{}' was given to {}: the compiler is working on it, and it cannot be "
          "built or partitioned again meanwhile; build a module of your own (uma.parse, "
          "uma.load)",
          what, handle.name_, handle.given_to_));
    handle.refuse_changes(what);
    handle.building_ = true;
    handle.builder_ = std::this_thread::get_id();
  } else {
    ++handle.readers_;
  }
}

ModuleHandle::Work::~Work() {
  if (changes_)
    handle_.building_ = false;
  else
    --handle_.readers_;
}

std::string describe(const Function& function) {
  return fmt::format("function @{}", printable(function.name()));
}

std::string describe(const Node& node) {
  std::string function = printable(node.function()->name());
  if (node.name().empty()) return fmt::format("a {} node of @{}", node.op_name(), function);
  return fmt::format("node '{}' ({}) of @{}", printable(node.name()), node.op_name(), function);
}

std::string describe(const Value& value) {
  if (value.is_param()) {
    std::string function = printable(value.function()->name());
    if (value.name().empty()) return fmt::format("parameter {} of @{}", value.index(), function);
    return fmt::format("parameter '{}' of @{}", printable(value.name()), function);
  }
  return fmt::format("result {} of {}", value.index(), describe(*value.producer()));
}

}  // namespace uma::python
