// The host's vector partial sums (schedule_reduction.cc) on random shapes against the
// interpreter: softmax and log-softmax along the last axis and along a middle one, layer
// norms over one or two axes, instance norms, with extents that split into 16, 8 or 4
// lanes and extents none of them divides (the scalar loop stays).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "host_check.h"
#include "tests/unit/tensor_util.h"
#include "uma/graph/attribute.h"
#include "uma/graph/builder.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using test::random_tensor;

Type tensor(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

TEST(ReductionSchedule, RandomShapesMatchTheInterpreter) {
  std::mt19937 rng(11);
  auto pick = [&](std::vector<std::int64_t> values) { return values[rng() % values.size()]; };
  const std::vector<std::string> ops = {"nn.softmax", "nn.log_softmax", "nn.layer_norm",
                                        "nn.instance_norm"};
  for (int k = 0; k < 12; ++k) {
    const std::string& op = ops[static_cast<std::size_t>(k) % ops.size()];
    const std::int64_t rows = pick({1, 3, 6}), channels = pick({2, 5}),
                       width = pick({4, 8, 12, 16, 40, 64, 7});
    const Shape shape = {rows, channels, width};
    Context context;
    Module module(context);
    Function& main = *module.add_function("main").value();
    Builder b(main);
    Value* x = main.add_param(tensor(shape), "x");
    AttrMap attrs;
    std::string variant;
    std::vector<Value*> operands = {x};
    if (op == "nn.layer_norm") {
      // Over the last axis, or over the last two (gamma of their shape).
      const bool two = k % 8 == 6;
      attrs.set("axis", std::int64_t{two ? 1 : 2});
      Shape normalized = two ? Shape{channels, width} : Shape{width};
      operands.push_back(b.constant(random_tensor(normalized, 1)));
      operands.push_back(b.constant(random_tensor(normalized, 2)));
      variant = two ? " over 2 axes" : "";
    } else if (op == "nn.instance_norm") {
      operands.push_back(b.constant(random_tensor({channels}, 3)));
      operands.push_back(b.constant(random_tensor({channels}, 4)));
    } else if (k % 8 == 4) {
      attrs.set("axis", std::int64_t{1});  // a middle axis: strided, left to lowering
      variant = " along axis 1";
    }
    main.set_outputs({b.value(op, operands, attrs)});
    const bool scheduled = variant != " along axis 1" && width % 4 == 0;
    for (int threads : {1, 2}) {
      SCOPED_TRACE(fmt::format("{}{} of {}x{}x{}, {} thread(s)", op, variant, rows, channels, width,
                               threads));
      build::HostBuild built =
          testing_host::build_copy_and_check(context, module, threads, 1e-5, 1e-6);
      // The schedule ran where it applies: the partial sums are a buffer of their own.
      bool partials = false;
      for (const runtime::CSourceFile& file : built.sources)
        partials |= file.code.find("_rf") != std::string::npos;
      EXPECT_EQ(partials, scheduled);
    }
  }
}

}  // namespace
}  // namespace uma
