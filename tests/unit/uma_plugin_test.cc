// Backend plugins: one built apart from the compiler (tests/plugins/) loads, registers and
// runs; bad ones give errors that name the file.
#include "uma/uma/plugin.h"

#include <gtest/gtest.h>

#include <thread>

#include "build_check.h"
#include "c_test_util.h"
#include "uma/graph/builder.h"
#include "uma/runtime/compare.h"
#include "uma/runtime/executor.h"
#include "uma/runtime/interpreter.h"
#include "uma/support/file.h"
#include "uma/uma/backend.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

std::string plugin(const std::string& name) {
  return std::string(UMA_TEST_PLUGIN_DIR) + "/libuma_test_" + name + "_plugin.so";
}

std::string load_error(Context& context, const std::string& path) {
  Status status = load_plugin(context, path);
  return status.ok() ? "ok" : status.error().message();
}

// relu(x) + x, built for `targets`; the generated C, after checking the outputs against the
// interpreter.
std::string build_relu_model(Context& context, const std::vector<std::string>& targets) {
  Module module(context);
  Function& main = *module.add_function("main").value();
  Builder b(main);
  Value* x = main.add_param(TensorType{DType::f32, {3, 5}}, "x");
  main.set_outputs({b.value("add", {b.value("nn.relu", {x}), x})});
  build::BuildOptions options;
  options.compiler.cache_dir = testing_c::run_cache_dir();
  build::HostBuild built = testing_build::build_and_check(
      main, 7, [&] { return build::build(module, targets, options); }, 1e-6, 1e-7);
  std::string code;
  for (const runtime::CSourceFile& file : built.sources) code += file.code;
  return code;
}

TEST(PluginTest, APluginBuiltApartLoadsAndRuns) {
  Context context;
  ASSERT_EQ(load_error(context, plugin("relu")), "ok");
  EXPECT_NE(context.backends().find("plugged"), nullptr);
  std::string code = build_relu_model(context, {"plugged"});
  EXPECT_NE(code.find("plugged_relu(&x[0], &out[0], 15);"), std::string::npos) << code;
  // Its pass reads the target's attribute.
  code = build_relu_model(context, {"plugged --offload=false"});
  EXPECT_EQ(code.find("plugged_relu(&"), std::string::npos) << code;
  // Loaded twice, its backend would be registered twice.
  EXPECT_EQ(load_error(context, plugin("relu")),
            "plugin '" + plugin("relu") +
                "': registering its backends failed: backend 'plugged': a partition target of "
                "that name is registered already");
}

TEST(PluginTest, BadPluginsAreClearErrors) {
  Context context;
  EXPECT_EQ(load_error(context, plugin("old_version")),
            "plugin '" + plugin("old_version") +
                "': built for plugin API version 7; this uma loads version 6");
  EXPECT_EQ(load_error(context, plugin("throwing")),
            "plugin '" + plugin("throwing") +
                "': its registration threw an exception: the driver is not installed");
  EXPECT_EQ(load_error(context, plugin("no_entry")),
            "plugin '" + plugin("no_entry") +
                "': has no entry point 'uma_plugin_entry': not a uma plugin (define it with "
                "UMA_PLUGIN)");
  EXPECT_EQ(load_error(context, plugin("failing")),
            "plugin '" + plugin("failing") +
                "': registering its backends failed: backend 'c': target kind 'c' is "
                "registered already");
  EXPECT_EQ(load_error(context, "/nonexistent/p.so"),
            "plugin '/nonexistent/p.so': cannot be loaded: /nonexistent/p.so: cannot open shared "
            "object file: No such file or directory");
  std::string text = testing_c::fresh_dir("plugin") + "/text.so";
  ASSERT_TRUE(write_file(text, "not a library\n").ok());
  EXPECT_EQ(load_error(context, text).rfind("plugin '" + text + "': cannot be loaded: ", 0), 0u);
  EXPECT_EQ(context.backends().names(), std::vector<std::string>{"c"});
}

// A backend that takes nothing, to register many of.
class Empty : public Backend {
 public:
  explicit Empty(std::string name) : Backend(std::move(name)) { add_int_attr("n", 0); }
};

TEST(PluginTest, RegistriesAreSafeFromSeveralThreads) {
  Context context;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&context, t] {
      for (int i = 0; i < 25; ++i) {
        std::string name = fmt::format("npu_{}_{}", t, i);
        EXPECT_TRUE(register_backend(context, std::make_unique<Empty>(name)).ok());
        auto targets = build::parse_targets(context, {name + " --n=3"});
        EXPECT_TRUE(targets.ok());
        if (targets.ok()) {
          EXPECT_EQ(targets->backends[0].get_int("n").value(), 3);
        }
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(context.backends().names().size(), 101u);  // and the host's
  EXPECT_EQ(context.partition_targets().names().size(), 100u);
}

}  // namespace
}  // namespace uma
