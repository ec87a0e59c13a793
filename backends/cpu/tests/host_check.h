// The host's schedule tests build a copy of a module, parsed from its text so that the
// build cannot touch the original, and check it against the interpreter on random inputs.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/unit/build_check.h"
#include "tests/unit/c_test_util.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/uma/build.h"

namespace uma::testing_host {

inline build::HostBuild build_copy_and_check(Context& context, const Module& module, int threads,
                                             double rtol, double atol) {
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  options.passes.verify_each = true;
  auto copy = parse_module(context, to_string(module));
  EXPECT_TRUE(copy.ok()) << copy.error().message();
  if (!copy.ok()) return {};
  return testing_build::build_and_check(
      *(*copy)->find_function("main"), 3,
      [&] { return build::build(**copy, {fmt::format("c --threads={}", threads)}, options); }, rtol,
      atol);
}

}  // namespace uma::testing_host
