// Unit tests of the pass registry and the pass manager: order, change reporting,
// verification between passes, printing after passes, timings and pipeline parsing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "uma/graph/rewriter.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using ::testing::HasSubstr;

TensorType f32(Shape shape) { return TensorType{DType::f32, std::move(shape)}; }

// A pass that records that it ran and does what it is told.
class ScriptedPass final : public Pass {
 public:
  enum class Action { kNothing, kChange, kFail, kBreakTheModule };

  ScriptedPass(std::string name, Action action, std::vector<std::string>* log)
      : name_(std::move(name)), action_(action), log_(log) {}

  std::string_view name() const override { return name_; }

  Expected<bool> run(Module& module) override {
    log_->push_back(name_);
    switch (action_) {
      case Action::kNothing:
        return false;
      case Action::kChange:
        return true;
      case Action::kFail:
        return make_error("something went wrong");
      case Action::kBreakTheModule: {
        // A node whose declared type is not the inferred one, as a buggy pass would leave.
        Function* main = module.find_function("main");
        Node* node = main->insert_node(nullptr, module.context().ops().find("tuple"),
                                       {main->param(0)}, {}, {f32({2})});
        main->set_outputs({node->result()});
        return true;
      }
    }
    return false;
  }

 private:
  std::string name_;
  Action action_;
  std::vector<std::string>* log_;
};

class PassManagerTest : public ::testing::Test {
 protected:
  PassManagerTest() {
    main->set_outputs({main->add_param(f32({2}), "x")});
    using Action = ScriptedPass::Action;
    for (auto [name, action] : {std::pair{"a", Action::kNothing}, std::pair{"b", Action::kChange},
                                std::pair{"c", Action::kNothing}, std::pair{"fail", Action::kFail},
                                std::pair{"break", Action::kBreakTheModule}}) {
      auto factory = [this, name = std::string(name), action = action] {
        return std::make_unique<ScriptedPass>(name, action, &log);
      };
      UMA_CHECK(registry.add(name, std::string("the pass ") + name, factory).ok());
    }
  }

  PassManager pipeline(std::string_view names, PipelineOptions options = {}) {
    auto manager = parse_pipeline(registry, names, std::move(options));
    UMA_CHECK(manager.ok(), "{}", manager.error().message());
    return std::move(manager.value());
  }

  Context ctx;
  Module module{ctx, "m"};
  Function* main = *module.add_function("main");
  PassRegistry registry;
  std::vector<std::string> log;
};

TEST_F(PassManagerTest, RunsPassesInOrder) {
  PassManager manager = pipeline("c,a,b,a");
  EXPECT_EQ(manager.size(), 4u);
  ASSERT_TRUE(manager.run(module).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"c", "a", "b", "a"}));
}

TEST_F(PassManagerTest, ReportsWhetherAnyPassChangedTheModule) {
  PassManager unchanged = pipeline("a,c");
  auto result = unchanged.run(module);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(*result);
  PassManager changed = pipeline("a,b,c");
  result = changed.run(module);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(*result);
  PassManager empty = pipeline("");
  EXPECT_EQ(empty.size(), 0u);
  result = empty.run(module);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(*result);
}

TEST_F(PassManagerTest, AFailureStopsThePipelineAndNamesThePass) {
  PassManager manager = pipeline("a,fail,b");
  auto result = manager.run(module);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "pass 'fail': something went wrong");
  EXPECT_EQ(log, (std::vector<std::string>{"a", "fail"}));
}

TEST_F(PassManagerTest, VerifyEachCatchesABrokenModule) {
  PassManager manager = pipeline("a,break,b", {.verify_each = true});
  auto result = manager.run(module);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(),
            "the module is invalid after pass 'break' (a bug in that pass): function @main: node "
            "#0 (tuple): result 0 has type tensor<2xf32>, inference gives tuple<tensor<2xf32>>");
  EXPECT_EQ(log, (std::vector<std::string>{"a", "break"}));
}

TEST_F(PassManagerTest, WithoutVerifyEachABrokenModulePassesThrough) {
  PassManager manager = pipeline("break,b");
  EXPECT_TRUE(manager.run(module).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"break", "b"}));
}

TEST_F(PassManagerTest, PrintsAfterTheNamedPasses) {
  std::ostringstream out;
  PassManager manager = pipeline("a,b,c", {.print_after = {"b", "c"}, .print_stream = &out});
  ASSERT_TRUE(manager.run(module).ok());
  std::string text = out.str();
  EXPECT_THAT(text, ::testing::Not(HasSubstr("IR after a")));
  EXPECT_THAT(text, HasSubstr("// -----// IR after b //----- //\n"));
  EXPECT_THAT(text, HasSubstr("// -----// IR after c (no change) //----- //\n"));
  EXPECT_LT(text.find("IR after b"), text.find("IR after c"));
}

TEST_F(PassManagerTest, PrintsAfterAllPasses) {
  std::ostringstream out;
  PassManager manager = pipeline("a,b,a", {.print_after = {"all"}, .print_stream = &out});
  ASSERT_TRUE(manager.run(module).ok());
  std::string text = out.str();
  std::size_t headers = 0;
  for (std::size_t at = text.find("// -----// IR after"); at != std::string::npos;
       at = text.find("// -----// IR after", at + 1))
    ++headers;
  EXPECT_EQ(headers, 3u);
}

TEST_F(PassManagerTest, RecordsTimingsOfTheLastRun) {
  PassManager manager = pipeline("a,b,c");
  ASSERT_TRUE(manager.run(module).ok());
  ASSERT_TRUE(manager.run(module).ok());
  const auto& timings = manager.timings();
  ASSERT_EQ(timings.size(), 3u);
  EXPECT_EQ(timings[0].pass, "a");
  EXPECT_EQ(timings[1].pass, "b");
  EXPECT_EQ(timings[2].pass, "c");
  EXPECT_FALSE(timings[0].changed);
  EXPECT_TRUE(timings[1].changed);
  for (const PassTiming& t : timings) EXPECT_GE(t.elapsed.count(), 0);

  std::ostringstream out;
  manager.print_timings(out);
  std::string table = out.str();
  EXPECT_THAT(table, HasSubstr("pass execution timing report"));
  EXPECT_THAT(table, HasSubstr("total: "));
  EXPECT_THAT(table, HasSubstr("%      yes  b\n"));
  EXPECT_THAT(table, HasSubstr("%       no  c\n"));
}

// A build's pipelines share one list through the options, each run adding to it.
TEST_F(PassManagerTest, AppendsTimingsToTheOptionsList) {
  std::vector<PassTiming> build;
  PassManager first = pipeline("a,b", {.timings = &build});
  PassManager second = pipeline("c", {.timings = &build});
  ASSERT_TRUE(first.run(module).ok());
  ASSERT_TRUE(second.run(module).ok());
  ASSERT_TRUE(first.run(module).ok());
  std::vector<std::string> names;
  for (const PassTiming& t : build) names.push_back(t.pass);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "a", "b"}));
  EXPECT_EQ(first.timings().size(), 2u);
}

TEST_F(PassManagerTest, SplitPipelineGivesNamesAndOptions) {
  auto items = split_pipeline(" a ,b{x=1,2 y=3}, c");
  ASSERT_TRUE(items.ok()) << items.error().message();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[0].name, "a");
  EXPECT_EQ((*items)[1].name, "b");
  EXPECT_EQ((*items)[1].options, "x=1,2 y=3");
  EXPECT_EQ((*items)[2].name, "c");
  EXPECT_EQ((*items)[2].options, "");
  EXPECT_EQ(split_pipeline("a{x=1").error().message(),
            "pipeline 'a{x=1': '{' without a closing '}'");
}

TEST_F(PassManagerTest, ParsePipelineNamesUnknownPassesAndListsKnownOnes) {
  auto manager = parse_pipeline(registry, "a,x");
  ASSERT_FALSE(manager.ok());
  EXPECT_EQ(manager.error().message(), "unknown pass 'x' (known passes: a, b, break, c, fail)");
}

TEST_F(PassManagerTest, ParsePipelineRejectsEmptyNames) {
  for (std::string_view names : {"a,,b", "a,", ",a", " , "}) {
    auto manager = parse_pipeline(registry, names);
    ASSERT_FALSE(manager.ok()) << names;
    EXPECT_EQ(manager.error().message(), fmt::format("empty pass name in pipeline '{}'", names));
  }
}

TEST_F(PassManagerTest, ParsePipelineTrimsSpaces) {
  PassManager manager = pipeline(" a , b ");
  ASSERT_TRUE(manager.run(module).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b"}));
}

// A pass whose name records the options its factory read.
class OptionsTest : public PassManagerTest {
 protected:
  OptionsTest() {
    auto factory = [this](PassOptions& options) -> Expected<std::unique_ptr<Pass>> {
      UMA_TRY_ASSIGN(std::int64_t size, options.get_int("size", 1));
      UMA_TRY_ASSIGN(bool merge, options.get_bool("merge", true));
      std::string targets = fmt::format("{}", fmt::join(options.get_list("targets"), "|"));
      std::string name =
          fmt::format("opt[{} {} {} {}]", size, merge, targets, options.get_string("mode", "none"));
      return std::unique_ptr<Pass>(
          std::make_unique<ScriptedPass>(name, ScriptedPass::Action::kNothing, &log));
    };
    UMA_CHECK(registry.add("opt", "a pass with options", factory).ok());
  }
};

TEST_F(OptionsTest, PassesReadTheirOptions) {
  PassManager manager = pipeline("a,opt{targets=x,y size=3  merge=false},opt, opt{mode=m} ,b");
  ASSERT_TRUE(manager.run(module).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"a", "opt[3 false x|y none]", "opt[1 true  none]",
                                           "opt[1 true  m]", "b"}));
}

TEST_F(OptionsTest, BadOptionsAreErrorsThatNameThem) {
  const std::pair<const char*, const char*> cases[] = {
      {"opt{colour=red}", "pass 'opt' has no option 'colour'"},
      {"opt{size=big}", "pass option 'size' must be an integer, not 'big'"},
      {"opt{size=3x}", "pass option 'size' must be an integer, not '3x'"},
      {"opt{merge=yes}", "pass option 'merge' must be true or false, not 'yes'"},
      {"opt{size}", "pass option 'size' is not of the form key=value"},
      {"opt{=3}", "pass option '=3' is not of the form key=value"},
      {"opt{size=1 size=2}", "pass option 'size' is given twice"},
      {"opt{size=1", "pipeline 'opt{size=1': '{' without a closing '}'"},
      {"opt{size=1}b", "pipeline 'opt{size=1}b': expected ',' after '}'"},
      {"a{size=1}", "pass 'a' takes no options"},
  };
  for (auto [text, message] : cases) {
    auto manager = parse_pipeline(registry, text);
    ASSERT_FALSE(manager.ok()) << text;
    EXPECT_EQ(manager.error().message(), message) << text;
  }
}

TEST_F(PassManagerTest, RegisteringAPassTwiceIsAnError) {
  Status again = registry.add("a", "again", [] { return std::unique_ptr<Pass>(); });
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message(), "pass 'a' is registered twice");
  auto listed = registry.list();
  ASSERT_EQ(listed.size(), 5u);  // "opt" is registered only by OptionsTest
  EXPECT_EQ(listed[0], (std::pair<std::string, std::string>{"a", "the pass a"}));
}

TEST(CorePasses, AreRegisteredUnderTheirFileNames) {
  Context ctx;
  std::vector<std::string> names;
  for (const auto& [name, summary] : ctx.passes().list()) {
    names.push_back(name);
    EXPECT_FALSE(summary.empty()) << name;
    auto pass = ctx.passes().create(name);
    ASSERT_TRUE(pass.ok() && *pass != nullptr) << name;
    EXPECT_EQ((*pass)->name(), name);
  }
  for (const char* core : {"cse", "dce", "fold-constant", "infer-types"})
    EXPECT_NE(std::find(names.begin(), names.end(), core), names.end()) << core;
}

}  // namespace
}  // namespace uma
