// Whether an object still exists, for holders that may outlive it: the Python bindings'
// handles to graph IR objects, which a pass, an erase or the end of a build can free while
// Python still holds them.
#pragma once

#include <memory>

namespace uma {

// A token that expires with the object holding it. A holder keeps watch(), a weak
// reference, and checks it before each use of the object. The token is made on the first
// watch(), so that objects nobody watches pay one empty pointer. Not thread-safe: the
// watchers serialize their calls (the Python bindings hold the GIL).
class Liveness {
 public:
  Liveness() = default;
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;

  std::weak_ptr<const void> watch() const {
    if (!token_) token_ = std::make_shared<const char>();
    return token_;
  }

 private:
  mutable std::shared_ptr<const char> token_;
};

}  // namespace uma
