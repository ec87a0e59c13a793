// The host's schedule of matrix products (schedule_dense.cc) on random shapes against the
// interpreter: dense layers with packed weights (with and without a bias and an
// activation), GEMVs of one row, and matmuls by a constant matrix with batch dimensions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "host_check.h"
#include "tests/unit/tensor_util.h"
#include "uma/graph/builder.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::random_tensor;

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

TEST(DenseSchedule, RandomShapesMatchTheInterpreter) {
  std::mt19937 rng(5);
  auto pick = [&](std::vector<std::int64_t> values) { return values[rng() % values.size()]; };
  for (int k = 0; k < 10; ++k) {
    // Units in blocks of 16, 8 and 4 (and 1000, blocks of 8); one row or several.
    const std::int64_t rows = pick({1, 3, 7, 12}), features = pick({5, 16, 33}),
                       units = pick({8, 16, 24, 48, 1000});
    const bool matmul = k % 3 == 2;
    Context context;
    Module module(context);
    Function& main = *module.add_function("main").value();
    Builder b(main);
    Value* y = nullptr;
    if (matmul) {
      Value* a = main.add_param(tensor({2, rows, features}), "a");
      y = b.value("nn.matmul", {a, b.constant(random_tensor({features, units}, 1))});
    } else {
      Value* x = main.add_param(tensor({rows, features}), "x");
      std::vector<Value*> operands = {x, b.constant(random_tensor({units, features}, 2))};
      if (k % 3 == 1) operands.push_back(b.constant(random_tensor({units}, 3)));
      y = b.value("nn.relu", {b.value("nn.dense", operands)});
    }
    main.set_outputs({y});
    for (int threads : {1, 2}) {
      SCOPED_TRACE(fmt::format("{} {}x{} by {} units, {} thread(s)", matmul ? "matmul" : "dense",
                               rows, features, units, threads));
      build::HostBuild built =
          testing_host::build_copy_and_check(context, module, threads, 1e-4, 1e-5);
      // The schedule ran: the accumulator is a tile of whole vectors.
      bool tiled = false;
      for (const runtime::CSourceFile& file : built.sources)
        tiled |= std::regex_search(file.code, std::regex(R"(uma_f32x\d+ \w+\[\d+\];)"));
      EXPECT_TRUE(tiled);
    }
  }
}

}  // namespace
}  // namespace uma
