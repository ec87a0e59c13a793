// Checking a build against the reference interpreter, for the tests of host builds and of
// backends: the interpreter runs @main first, on the module as it was (a build changes it),
// then the built program runs on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "c_test_util.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/uma/build.h"
#include "uma/uma/build_stages.h"

namespace uma::testing_build {

// Runs `main` on `inputs`, builds with `build`, runs the program on them and expects each
// output within rtol and atol of the interpreter's. The build, or an empty one when
// something failed (after a test failure).
inline build::HostBuild build_and_check(const Function& main, const std::vector<TensorPtr>& inputs,
                                        const std::function<Expected<build::HostBuild>()>& build,
                                        double rtol, double atol) {
  auto reference = interpret(main, inputs);
  EXPECT_TRUE(reference.ok()) << reference.error().message();
  auto built = build();
  EXPECT_TRUE(built.ok()) << built.error().message();
  if (!built.ok() || !reference.ok()) return {};
  auto outputs = runtime::Executor(built->program).run(inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.error().message();
  if (!outputs.ok()) return {};
  EXPECT_EQ(outputs->size(), reference->size());
  for (std::size_t i = 0; i < outputs->size() && i < reference->size(); ++i) {
    TensorComparison result = compare_tensors(*(*outputs)[i], *(*reference)[i], rtol, atol);
    EXPECT_TRUE(result.ok()) << "output " << i << ": " << result.mismatches
                             << " mismatch(es), max abs error " << result.max_abs_error;
  }
  return std::move(*built);
}

// The same on random inputs from `seed`.
inline build::HostBuild build_and_check(const Function& main, std::uint64_t seed,
                                        const std::function<Expected<build::HostBuild>()>& build,
                                        double rtol, double atol) {
  return build_and_check(main, random_inputs(main, seed), build, rtol, atol);
}

// Builds `module` for the host alone (an imported model, say) and checks its @main on `inputs`
// as build_and_check does, verifying the IR after every pass.
inline void check_host_build(Module& module, const std::vector<TensorPtr>& inputs, double rtol,
                             double atol) {
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  options.passes.verify_each = true;
  build_and_check(
      *module.find_function("main"), inputs, [&] { return build::build(module, {"c"}, options); },
      rtol, atol);
}

}  // namespace uma::testing_build
