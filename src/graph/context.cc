// The context: its registries, filled explicitly.
#include "uma/graph/context.h"

#include "uma/uma/backend.h"
#include "uma/uma/target.h"

namespace uma {

Context::Context()
    : target_kinds_(std::make_unique<TargetKindRegistry>()),
      backends_(std::make_unique<BackendRegistry>()) {
  register_all_ops(ops_);
  register_core_passes(passes_);
  register_partition_passes(passes_);
  UMA_CHECK(target_kinds_->add(host_target_kind()).ok(), "the host target kind is invalid");
}

Context::~Context() = default;

}  // namespace uma
