// The context: its registries, filled explicitly (the composition root of the compiler).
#include "uma/uma/context.h"

#include "backends/cpu/cpu.h"
#include "uma/partition/partition.h"
#include "uma/uma/backend.h"
#include "uma/uma/target.h"

namespace uma {

Context::Context() : Context(backends::make_cpu_backend()) {}

Context::Context(std::unique_ptr<Backend> host)
    : partition_targets_(std::make_unique<PartitionTargetRegistry>()),
      target_kinds_(std::make_unique<TargetKindRegistry>()),
      backends_(std::make_unique<BackendRegistry>()) {
  register_all_ops(ops_);
  register_core_passes(passes_);
  register_partition_passes(passes_);
  UMA_CHECK(host != nullptr && host->spec().host, "the host's backend is null or not a host's");
  Status registered = register_backend(*this, std::move(host));
  UMA_CHECK(registered.ok(), "the host's backend is invalid: {}",
            registered.ok() ? "" : registered.error().message());
}

Context::~Context() = default;

}  // namespace uma
