// Target kinds and targets: registration, the text form, typed attributes and every error.
#include "uma/uma/target.h"

#include <gtest/gtest.h>

#include <thread>

#include "uma/uma/context.h"

namespace uma {
namespace {

TargetKind npu_kind() {
  return {"my_npu",
          {{"dimension", std::int64_t{16}, "array side"},
           {"variant", std::string("v1"), "silicon revision"},
           {"fast-math", false, "allow reassociation"}}};
}

class TargetTest : public ::testing::Test {
 protected:
  TargetTest() { EXPECT_TRUE(kinds.add(npu_kind()).ok()); }

  std::string parse_error(std::string_view text) {
    Expected<Target> target = kinds.parse(text);
    EXPECT_FALSE(target.ok()) << text;
    return target.ok() ? "" : target.error().message();
  }

  TargetKindRegistry kinds;
};

TEST_F(TargetTest, DefaultsHoldWhenNothingIsSet) {
  Expected<Target> target = kinds.parse("my_npu");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->name(), "my_npu");
  EXPECT_EQ(target->get_int("dimension").value(), 16);
  EXPECT_EQ(target->get_string("variant").value(), "v1");
  EXPECT_FALSE(target->get_bool("fast-math").value());
  EXPECT_EQ(target->get_string("model").value(), "");  // standard attributes, empty
  EXPECT_EQ(target->str(), "my_npu");
}

TEST_F(TargetTest, AttributesOverrideDefaultsAndPrintBack) {
  Expected<Target> target =
      kinds.parse("  my_npu --dimension=32 --variant=v2 --fast-math -model=x1 ");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->get_int("dimension").value(), 32);
  EXPECT_EQ(target->get_string("variant").value(), "v2");
  EXPECT_TRUE(target->get_bool("fast-math").value());
  EXPECT_EQ(target->get_string("model").value(), "x1");
  EXPECT_EQ(target->str(), "my_npu --dimension=32 --variant=v2 --fast-math=true --model=x1");
  Expected<Target> again = kinds.parse(target->str());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->str(), target->str());
  EXPECT_EQ(kinds.parse("my_npu --dimension=-3 --fast-math=false")->get_int("dimension").value(),
            -3);
}

TEST_F(TargetTest, BadTargetsAreClearErrors) {
  EXPECT_EQ(parse_error("my_npu --dimensoin=3"),
            "target 'my_npu --dimensoin=3': target kind 'my_npu' has no attribute 'dimensoin' "
            "(it has: dimension, variant, fast-math, keys, device, model, tag, mcpu, mattr, "
            "libs)");
  EXPECT_EQ(parse_error("my_npu --dimension=big"),
            "target 'my_npu --dimension=big': attribute 'dimension' is an int, not 'big'");
  EXPECT_EQ(parse_error("my_npu --dimension=1.5"),
            "target 'my_npu --dimension=1.5': attribute 'dimension' is an int, not '1.5'");
  EXPECT_EQ(parse_error("my_npu --fast-math=yes"),
            "target 'my_npu --fast-math=yes': attribute 'fast-math' is a bool, not 'yes'");
  EXPECT_EQ(parse_error("my_npu --dimension"),
            "target 'my_npu --dimension': attribute 'dimension' needs a value: --dimension=<int>");
  EXPECT_EQ(parse_error("my_npu --dimension=1 --dimension=2"),
            "target 'my_npu --dimension=1 --dimension=2': attribute 'dimension' is given twice");
  EXPECT_EQ(parse_error("my_npu dimension=1"),
            "target 'my_npu dimension=1': 'dimension=1' is not an attribute: write --name=value");
  EXPECT_EQ(parse_error("tpu"), "target 'tpu': unknown target kind 'tpu' (known: my_npu)");
  EXPECT_EQ(parse_error(" "), "a target is empty: write '<kind> [--attr=value]...'");
}

TEST_F(TargetTest, GettersCheckNameAndType) {
  Target target = kinds.parse("my_npu").value();
  EXPECT_EQ(target.get_string("dimension").error().message(),
            "target 'my_npu': attribute 'dimension' is an int, not a string");
  EXPECT_EQ(target.get_int("sram").error().message(),
            "target 'my_npu' has no attribute 'sram' (it has: dimension, variant, fast-math, "
            "keys, device, model, tag, mcpu, mattr, libs)");
}

TEST_F(TargetTest, BadKindsAreRefused) {
  EXPECT_EQ(kinds.add(npu_kind()).error().message(), "target kind 'my_npu' is registered already");
  EXPECT_EQ(kinds.add({"npu2", {{"model", std::string("a"), ""}}}).error().message(),
            "target kind 'npu2': attribute 'model' shadows the standard attribute of that name");
  EXPECT_EQ(kinds.add({"npu2", {{"a", std::int64_t{1}, ""}, {"a", true, ""}}}).error().message(),
            "target kind 'npu2': attribute 'a' is declared twice");
  EXPECT_EQ(kinds.add({"npu2", {{"a b", true, ""}}}).error().message(),
            "target kind 'npu2': attribute name 'a b' is not a valid name");
  EXPECT_EQ(kinds.add({"my-npu", {}}).error().message(),
            "target kind name 'my-npu' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(kinds.names(), std::vector<std::string>{"my_npu"});
}

TEST(TargetContextTest, EveryContextHasTheHostKind) {
  Context context;
  Expected<Target> host = context.target_kinds().parse("c --threads=4");
  ASSERT_TRUE(host.ok()) << host.error().message();
  EXPECT_TRUE(host->is_host());
  EXPECT_EQ(host->get_int("threads").value(), 4);
  EXPECT_EQ(context.target_kinds().add({"c", {}, true}).error().message(),
            "target kind 'c' is registered already");
}

TEST(TargetRegistryTest, RegistersAndParsesFromSeveralThreads) {
  TargetKindRegistry kinds;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&kinds, t] {
      std::string name = "kind" + std::to_string(t);
      EXPECT_TRUE(kinds.add({name, {{"n", std::int64_t{t}, ""}}}).ok());
      for (int i = 0; i < 200; ++i) {
        Expected<Target> target = kinds.parse(name + " --n=" + std::to_string(i));
        EXPECT_TRUE(target.ok());
        if (target.ok()) {
          EXPECT_EQ(target->get_int("n").value(), i);
        }
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(kinds.names().size(), 4u);
}

}  // namespace
}  // namespace uma
