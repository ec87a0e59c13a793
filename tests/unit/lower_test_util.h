// Differential tests of lowering: graph functions built op by op, lowered to the loop IR,
// generated as C, compiled, called on random inputs and compared with the reference
// interpreter.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "c_test_util.h"
#include "uma/graph/builder.h"
#include "uma/lower/lower.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/interpreter.h"
#include "uma/tir/passes.h"
#include "uma/tir/verifier.h"
#include "uma/uma/context.h"

namespace uma::testing_lower {

// Builds a function's body from its parameters; returns its outputs.
using BuildFn = std::function<std::vector<Value*>(Builder&, const std::vector<Value*>& params)>;

struct Case {
  std::string label;
  std::vector<TensorType> params;
  BuildFn build;
  // |compiled - reference| <= tolerance * (1 + |reference|): relative, with the same bound
  // for results near 0 (f32 sums round differently from the reference's double sums).
  double tolerance = 1e-5;
};

// One op applied to the parameters.
inline Case op_case(std::string label, std::string op, std::vector<TensorType> params,
                    AttrMap attrs = {}, double tolerance = 1e-5) {
  return Case{std::move(label), std::move(params),
              [op, attrs](Builder& b, const std::vector<Value*>& p) {
                Node* node = b.create(op, p, attrs);
                return node->results();
              },
              tolerance};
}

// One op applied to constants, for chosen values (NaN, extremes, what random inputs would
// make the reference reject): constants of more than kMaxImmediateElements elements reach the
// function as bound parameters, smaller ones as immediates.
inline Case constant_case(std::string label, std::string op, std::vector<TensorPtr> operands,
                          AttrMap attrs = {}, double tolerance = 1e-5) {
  return Case{std::move(label),
              {},
              [op, operands, attrs](Builder& b, const std::vector<Value*>&) {
                std::vector<Value*> values;
                for (const TensorPtr& operand : operands) values.push_back(b.constant(operand));
                return b.create(op, values, attrs)->results();
              },
              tolerance};
}

inline TensorType f32(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

// Lowers every case's @main (each its own symbol), builds them into one library, and
// checks each against the interpreter on two random inputs.
inline void check_cases(const std::vector<Case>& cases) {
  Context context;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<tir::PrimFunc> funcs;
  std::vector<std::size_t> lowered;  // the cases that lowered
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto module = std::make_unique<Module>(context, "case");
    Function& main = **module->add_function("main");
    std::vector<Value*> params;
    for (std::size_t k = 0; k < c.params.size(); ++k)
      params.push_back(main.add_param(c.params[k], fmt::format("p{}", k)));
    Builder builder(main);
    main.set_outputs(c.build(builder, params));
    auto func = lower::lower_function(main, {.symbol = fmt::format("case_{}", i)});
    if (!func.ok()) {
      ADD_FAILURE() << c.label << ": " << func.error().message();
      continue;
    }
    if (Status ok = tir::verify(*func); !ok) {
      ADD_FAILURE() << c.label << ": " << ok.error().message();
      continue;
    }
    // Code generation needs the reductions' inits decomposed (the first core pass).
    auto decomposed = tir::decompose_reductions_pass().run(*func);
    if (!decomposed.ok()) {
      ADD_FAILURE() << c.label << ": " << decomposed.error().message();
      continue;
    }
    funcs.push_back(std::move(*decomposed));
    modules.push_back(std::move(module));
    lowered.push_back(i);
  }
  if (funcs.empty()) return;
  auto built = testing_c::build(funcs);
  ASSERT_TRUE(built.ok()) << built.error().message();
  for (std::size_t f = 0; f < funcs.size(); ++f) {
    const Case& c = cases[lowered[f]];
    const Function& main = *modules[f]->find_function("main");
    for (std::uint64_t seed : {1, 2}) {
      SCOPED_TRACE(fmt::format("{} (seed {})", c.label, seed));
      std::vector<TensorPtr> inputs = random_inputs(main, seed);
      auto expected = interpret(main, inputs);
      ASSERT_TRUE(expected.ok()) << expected.error().message();
      std::vector<void*> args;
      for (const TensorPtr& input : inputs)
        args.push_back(const_cast<std::byte*>(input->bytes().data()));
      for (const auto& [index, tensor] : lower::bound_constants(funcs[f]))
        args.push_back(const_cast<std::byte*>(tensor->bytes().data()));
      std::vector<std::shared_ptr<Tensor>> outputs;
      for (const TensorPtr& e : *expected) {
        outputs.push_back(std::make_shared<Tensor>(e->type()));
        args.push_back(outputs.back()->bytes().data());
      }
      ASSERT_EQ(testing_c::call(*built, f, args), 0);
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        TensorComparison cmp =
            compare_tensors(*outputs[k], *(*expected)[k], c.tolerance, c.tolerance);
        EXPECT_TRUE(cmp.ok()) << "output " << k << ": " << cmp.mismatches
                              << " mismatch(es), first at " << cmp.first_mismatch << " (got "
                              << (cmp.first_mismatch >= 0 ? outputs[k]->get(cmp.first_mismatch)
                                                          : 0.0)
                              << ", expected "
                              << (cmp.first_mismatch >= 0 ? (*expected)[k]->get(cmp.first_mismatch)
                                                          : 0.0)
                              << "), max abs error " << cmp.max_abs_error;
      }
    }
  }
}

}  // namespace uma::testing_lower
