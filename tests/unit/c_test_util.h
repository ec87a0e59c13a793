// Builds loop-IR functions into a loaded library, for tests that run generated C.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "uma/codegen/c/c_codegen.h"
#include "uma/runtime/c_compiler.h"
#include "uma/runtime/library.h"

namespace uma::testing_c {

// Calls `symbol`, a function that stores an int32 through its first argument; -1 (after a
// test failure) when the library lacks it.
inline std::int32_t call_int(const runtime::Library& library, const std::string& symbol) {
  auto function = library.function(symbol);
  EXPECT_TRUE(function.ok()) << function.error().message();
  if (!function.ok()) return -1;
  std::int32_t result = 0;
  void* args[] = {&result};
  EXPECT_EQ((*function)(args), 0);
  return result;
}

// An empty folder of the test's own under the test temp folder.
inline std::string fresh_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / ("uma-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// The cache of the compile-and-run tests, kept between runs: entries are named by their
// content and written atomically, so a rerun or a concurrent run can share them.
inline std::string run_cache_dir() {
  return (std::filesystem::path(::testing::TempDir()) / "uma-c-run-cache").string();
}

struct Built {
  codegen::CSource source;
  runtime::Library library;
};

// Generates C for `funcs`, compiles it with `extra` sources and loads the library.
inline Expected<Built> build(const std::vector<tir::PrimFunc>& funcs,
                             const codegen::CCodegenOptions& options = {},
                             std::vector<runtime::CSourceFile> extra = {},
                             runtime::CCompilerOptions compiler_options = {}) {
  UMA_TRY_ASSIGN(codegen::CSource source, codegen::generate_c(funcs, options));
  extra.insert(extra.begin(), runtime::CSourceFile{"generated", source.code});
  if (compiler_options.cache_dir.empty()) compiler_options.cache_dir = run_cache_dir();
  runtime::CCompiler compiler(compiler_options);
  UMA_TRY_ASSIGN(std::string path, compiler.build_shared_library(extra));
  UMA_TRY_ASSIGN(runtime::Library library, runtime::Library::open(path));
  return Built{std::move(source), std::move(library)};
}

// Calls a generated entry point with the buffers' addresses.
inline std::int32_t call(const Built& built, std::size_t index, std::vector<void*> args) {
  auto function = built.library.function(built.source.functions.at(index).symbol);
  EXPECT_TRUE(function.ok()) << function.error().message();
  if (!function.ok()) return -100;
  return (*function)(args.data());
}

}  // namespace uma::testing_c
