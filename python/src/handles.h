// Python's handles to the graph IR (uma.Module, uma.Function, uma.Node, uma.Value): each
// holds a pointer and checks, before every use, that what it names still exists and that
// Python may use it now, so that no handle can dangle. A module Python loaded or parsed is
// owned by its handles; a module the compiler gives a callback is lent for the call, and its
// handles are refused once the callback returns. A node erased, a function a build replaced
// or a module gone makes its handles raise uma.Error naming it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bindings.h"
#include "uma/graph/ir.h"

namespace uma::python {

// uma.Module: a module and who may use it, shared by every handle into it that came the same
// way. Used with the GIL held.
class ModuleHandle {
 public:
  // A module Python loaded or parsed: its handles own it.
  static std::shared_ptr<ModuleHandle> owning(std::unique_ptr<Module> module);
  // A module the compiler gives a callback (`given_to` names it: "backend 'x': the graph
  // pass 'p'") for the time of the call (see Loan); only a graph pass may change it.
  static std::shared_ptr<ModuleHandle> lent(Module& module, std::string given_to, bool may_change);

  // The module, to read. Raises when it no longer exists, the callback it was lent to has
  // returned, or another thread builds it. `what` names the handle used.
  Module& read(std::string_view what) const;
  // The module, to change. Raises as read() does, and when a build or interpretation works
  // on it (only a graph pass, through the module it is given, may change a module being
  // built) or the callback it was lent to may only read it.
  Module& change(std::string_view what) const;

  // Marks a stretch where the compiler works on the module with the GIL released: a build or
  // a partition (`changes`), or an interpretation. Meanwhile no other thread reads it and no
  // handle of this module changes it; a module lent to a callback is the compiler's already,
  // and cannot be built or partitioned again.
  class Work {
   public:
    Work(ModuleHandle& handle, std::string_view what, bool changes);
    ~Work();
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;
    Module& module() const { return module_; }

   private:
    ModuleHandle& handle_;
    Module& module_;
    bool changes_;
  };

  const std::string& name() const { return name_; }
  // For Loan: the callback has returned.
  void end_loan() { returned_ = true; }

 private:
  ModuleHandle(Module& module, std::string given_to, bool may_change);
  void refuse_changes(std::string_view what) const;

  std::unique_ptr<Module> owned_;
  Module* module_;
  std::weak_ptr<const void> alive_;
  std::string name_;      // printable, for messages once the module is gone
  std::string given_to_;  // empty for an owned module
  bool may_change_;
  bool returned_ = false;
  int readers_ = 0;  // interpretations running
  bool building_ = false;
  std::thread::id builder_;
};

using ModuleHandlePtr = std::shared_ptr<ModuleHandle>;

// How a handle's message names a function, node or value: "function @f", "node 'relu1'
// (nn.relu) of @main", "a nn.relu node of @main", "parameter 'x' of @main", "result 0 of ...".
std::string describe(const Function& function);
std::string describe(const Node& node);
std::string describe(const Value& value);

// uma.Function, uma.Node and uma.Value: an object of a module, through that module's handle.
template <typename T>
class Handle {
 public:
  Handle(const T& object, ModuleHandlePtr module)
      : object_(const_cast<T*>(&object)),
        alive_(object.liveness().watch()),
        what_(describe(object)),
        module_(std::move(module)) {}

  const T& read() const {
    module_->read(what_);
    check_alive();
    return *object_;
  }
  T& change() const {
    module_->change(what_);
    check_alive();
    return *object_;
  }
  // Another object reached from this one (a node's operand, a function's node): a handle
  // through the same module handle. Only with `object` known alive.
  template <typename U>
  Handle<U> to(const U& object) const {
    return Handle<U>(object, module_);
  }
  const std::string& what() const { return what_; }
  const ModuleHandlePtr& module() const { return module_; }
  // Identity, for == and hash(): the same object, alive or erased; never dereferenced.
  bool same(const Handle& other) const {
    return object_ == other.object_ && !alive_.owner_before(other.alive_) &&
           !other.alive_.owner_before(alive_);
  }
  std::size_t hash() const { return std::hash<const T*>()(object_); }

 private:
  void check_alive() const {
    if (alive_.expired()) raise(make_error("{} was erased", what_));
  }

  T* object_;
  std::weak_ptr<const void> alive_;
  std::string what_;
  ModuleHandlePtr module_;
};

using FunctionHandle = Handle<Function>;
using NodeHandle = Handle<Node>;
using ValueHandle = Handle<Value>;

// Handles to `objects` (pointers, alive) through `module`.
template <typename T, typename Objects>
std::vector<Handle<T>> handles(const ModuleHandlePtr& module, const Objects& objects) {
  std::vector<Handle<T>> result;
  result.reserve(objects.size());
  for (const T* object : objects) result.emplace_back(*object, module);
  return result;
}

// A module lent to a callback while it runs: made before the call, with the GIL held, and
// ended when the call returns.
class Loan {
 public:
  Loan(const Module& module, std::string given_to, bool may_change)
      : handle_(ModuleHandle::lent(const_cast<Module&>(module), std::move(given_to), may_change)) {}
  ~Loan() { handle_->end_loan(); }
  Loan(const Loan&) = delete;
  Loan& operator=(const Loan&) = delete;
  const ModuleHandlePtr& module() const { return handle_; }

 private:
  ModuleHandlePtr handle_;
};

}  // namespace uma::python
