// Tests of the C compiler driver and the library loader: the object cache (counted, not
// timed), parallel builds, compiler errors that keep the generated file, file names that
// no shell interprets, and clear errors for missing libraries and symbols.
#include "uma/runtime/c_compiler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "c_test_util.h"
#include "uma/runtime/library.h"
#include "uma/support/file.h"
#include "uma/support/hash.h"

namespace uma::runtime {
namespace {

namespace fs = std::filesystem;
using testing_c::fresh_dir;

CSourceFile function_source(const std::string& symbol, int value) {
  return {symbol,
          "#include <stdint.h>\n"
          "int32_t " +
              symbol +
              "(void* const* args) {\n"
              "  *(int32_t*)args[0] = " +
              std::to_string(value) +
              ";\n"
              "  return 0;\n"
              "}\n"};
}

using testing_c::call_int;

TEST(CCompiler, SecondBuildHitsTheCache) {
  std::string cache = fresh_dir("cache-test");
  std::vector<CSourceFile> sources = {function_source("forty_two", 42)};
  CCompiler compiler({.cache_dir = cache});
  auto first = compiler.build_shared_library(sources);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(compiler.stats().compiled, 1u);
  EXPECT_EQ(compiler.stats().cache_hits, 0u);
  EXPECT_EQ(compiler.stats().linked, 1u);

  auto second = compiler.build_shared_library(sources);
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(*second, *first);
  EXPECT_EQ(compiler.stats().compiled, 1u);
  EXPECT_EQ(compiler.stats().cache_hits, 1u);
  EXPECT_EQ(compiler.stats().link_cache_hits, 1u);

  // Another compiler object (another process, say) finds the same cache; other flags miss.
  CCompiler again({.cache_dir = cache});
  ASSERT_TRUE(again.compile(sources).ok());
  EXPECT_EQ(again.stats().cache_hits, 1u);
  CCompiler other_flags({.compile_flags = {"-O1", "-fPIC", "-std=c11"}, .cache_dir = cache});
  ASSERT_TRUE(other_flags.compile(sources).ok());
  EXPECT_EQ(other_flags.stats().compiled, 1u);

  auto library = Library::open(*first);
  ASSERT_TRUE(library.ok()) << library.error().message();
  EXPECT_EQ(call_int(*library, "forty_two"), 42);
}

#if defined(__x86_64__)
// Objects for two CPUs are two cache entries; code for the baseline x86-64 builds and runs.
TEST(CCompiler, EachCpuHasItsOwnObjects) {
  std::string cache = fresh_dir("cpu-test");
  std::vector<CSourceFile> sources = {function_source("seven", 7)};
  CCompiler baseline({.cpu = "x86-64", .cache_dir = cache});
  auto library = baseline.build_shared_library(sources);
  ASSERT_TRUE(library.ok()) << library.error().message();
  auto loaded = Library::open(*library);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(call_int(*loaded, "seven"), 7);
  CCompiler v2({.cpu = "x86-64-v2", .features = {"+popcnt", "-avx"}, .cache_dir = cache});
  ASSERT_TRUE(v2.compile(sources).ok());
  EXPECT_EQ(v2.stats().compiled, 1u);
  CCompiler again({.cpu = "x86-64", .cache_dir = cache});
  ASSERT_TRUE(again.compile(sources).ok());
  EXPECT_EQ(again.stats().cache_hits, 1u);
  CCompiler native({.cpu = "native", .cache_dir = cache});
  ASSERT_TRUE(native.compile(sources).ok());
  EXPECT_EQ(native.stats().compiled, 1u);
}
#endif

TEST(CCompiler, NativeResolvesToAConcreteCpu) {
  auto native = resolve_native_cpu("cc");
  ASSERT_TRUE(native.ok()) << native.error().message();
  EXPECT_FALSE(native->empty());
  EXPECT_EQ(native->rfind("native", 0), std::string::npos) << *native;
  auto again = resolve_native_cpu("cc");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *native);
}

TEST(CCompiler, CpuAndFeaturesBecomeFlags) {
  auto flags = cpu_flags("znver4", {"avx2", "+fma", "-avx512f", "no-sse4a"});
  ASSERT_TRUE(flags.ok()) << flags.error().message();
  EXPECT_EQ(*flags, (std::vector<std::string>{"-march=znver4", "-mavx2", "-mfma", "-mno-avx512f",
                                              "-mno-sse4a"}));
  EXPECT_TRUE(cpu_flags("", {})->empty());
  EXPECT_EQ(cpu_flags("-O0", {}).error().message(), "'-O0' is not a CPU name for the C compiler");
  EXPECT_EQ(cpu_flags("x86-64", {"avx2 -O0"}).error().message(),
            "'avx2 -O0' is not a CPU feature for the C compiler");
  CCompiler bad({.cpu = "no such cpu", .cache_dir = fresh_dir("bad-cpu-test")});
  auto built = bad.compile({function_source("one", 1)});
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().message(), "'no such cpu' is not a CPU name for the C compiler");
}

TEST(CCompiler, CompilesSeveralFilesInParallel) {
  std::vector<CSourceFile> sources;
  for (int k = 0; k < 6; ++k) sources.push_back(function_source("f" + std::to_string(k), k * 10));
  CCompiler compiler({.cache_dir = fresh_dir("parallel-test"), .jobs = 2});
  std::string output = fs::path(fresh_dir("parallel-out")) / "model.so";
  auto path = compiler.build_shared_library(sources, output);
  ASSERT_TRUE(path.ok()) << path.error().message();
  EXPECT_EQ(*path, output);
  EXPECT_EQ(compiler.stats().compiled, 6u);
  auto library = Library::open(*path);
  ASSERT_TRUE(library.ok()) << library.error().message();
  for (int k = 0; k < 6; ++k) EXPECT_EQ(call_int(*library, "f" + std::to_string(k)), k * 10);
}

TEST(CCompiler, CompilerErrorsKeepTheGeneratedFile) {
  std::string cache = fresh_dir("error-test");
  CCompiler compiler({.cache_dir = cache});
  CSourceFile broken{"broken", "int f(void) { return undeclared_name; }\n"};
  auto result = compiler.build_shared_library({function_source("fine", 1), broken});
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message();
  std::string prefix = "C compiler failed on " + cache + "/broken-";
  ASSERT_EQ(message.rfind(prefix, 0), 0u) << message;
  std::string path = message.substr(0, message.find(' ', prefix.size()));
  path = path.substr(std::string("C compiler failed on ").size());
  EXPECT_EQ(path.substr(path.size() - 2), ".c");
  EXPECT_NE(message.find("(exit status 1):\n"), std::string::npos) << message;
  EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
  auto kept = read_file(path);
  ASSERT_TRUE(kept.ok()) << kept.error().message();
  EXPECT_EQ(*kept, broken.code);
}

TEST(CCompiler, LinkErrorsNameTheLibrary) {
  std::string cache = fresh_dir("link-error-test");
  CCompiler compiler({.libraries = {"-luma_no_such_library"}, .cache_dir = cache});
  auto result = compiler.build_shared_library({function_source("f", 1)});
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message();
  EXPECT_EQ(message.rfind("linking " + cache + "/lib", 0), 0u) << message;
  EXPECT_NE(message.find(".so failed (exit status 1):\n"), std::string::npos) << message;
  EXPECT_NE(message.find("uma_no_such_library"), std::string::npos) << message;
}

TEST(CCompiler, AMissingCompilerIsAClearError) {
  CCompiler compiler({.compiler = "uma-no-such-cc", .cache_dir = fresh_dir("no-cc-test")});
  auto result = compiler.build_shared_library({function_source("f", 1)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "cannot run 'uma-no-such-cc': No such file or directory");
}

TEST(CCompiler, FileNamesAreNeverInterpretedByAShell) {
  // A cache folder and a source name full of shell syntax, and a compiler command with an
  // argument: the compile succeeds and creates nothing but its own files.
  std::string root = fresh_dir("shell-test");
  std::string cache = root + "/-dir with 'quotes' $(touch pwned) ; `touch pwned2`";
  CCompiler compiler({.compiler = "cc -DVALUE=7", .cache_dir = cache});
  CSourceFile source{"; touch pwned3 #",
                     "#include <stdint.h>\n"
                     "int32_t value(void* const* args) {\n"
                     "  *(int32_t*)args[0] = VALUE;\n"
                     "  return 0;\n"
                     "}\n"};
  auto path = compiler.build_shared_library({source});
  ASSERT_TRUE(path.ok()) << path.error().message();
  auto library = Library::open(*path);
  ASSERT_TRUE(library.ok()) << library.error().message();
  EXPECT_EQ(call_int(*library, "value"), 7);
  for (const char* name : {"pwned", "pwned2", "pwned3"}) {
    EXPECT_FALSE(fs::exists(fs::path(root) / name)) << name;
    EXPECT_FALSE(fs::exists(fs::path(cache) / name)) << name;
    EXPECT_FALSE(fs::exists(name)) << name;
  }
}

// Writes `bytes` bytes at `path`, last modified `age` ago.
void write_aged(const fs::path& path, std::size_t bytes, std::chrono::hours age) {
  ASSERT_TRUE(write_file(path.string(), std::string(bytes, 'x')).ok()) << path;
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

TEST(CCompiler, TheCacheIsTrimmedLeastRecentlyUsedFirst) {
  // Three cache files of 100 KiB, the oldest first, in a cache bounded to 250 KiB; files the
  // cache did not name are not its own, however old or large.
  fs::path cache = fresh_dir("trim-test");
  const std::size_t kib = 1024;
  write_aged(cache / "oldest-0000000000000000000000000000000000000000000000000000000000000001.o",
             100 * kib, std::chrono::hours(3));
  write_aged(cache / "older-0000000000000000000000000000000000000000000000000000000000000002.c",
             100 * kib, std::chrono::hours(2));
  write_aged(cache / "lib0000000000000000000000000000000000000000000000000000000000000003.so",
             100 * kib, std::chrono::hours(1));
  write_aged(cache / "notes.txt", 300 * kib, std::chrono::hours(9));
  write_aged(cache / "other-123.o", 300 * kib, std::chrono::hours(9));
  CCompiler compiler({.cache_dir = cache.string(), .max_cache_bytes = 250 * kib});
  auto path = compiler.build_shared_library({function_source("trimmed", 7)});
  ASSERT_TRUE(path.ok()) << path.error().message();
  // Before compiling: 300 KiB of cache files, so the oldest goes; then the new object and
  // library fit.
  EXPECT_EQ(compiler.stats().evicted, 1u);
  EXPECT_FALSE(fs::exists(
      cache / "oldest-0000000000000000000000000000000000000000000000000000000000000001.o"));
  for (const char* kept :
       {"older-0000000000000000000000000000000000000000000000000000000000000002.c",
        "lib0000000000000000000000000000000000000000000000000000000000000003.so", "notes.txt",
        "other-123.o"})
    EXPECT_TRUE(fs::exists(cache / kept)) << kept;
  {
    auto library = Library::open(*path);
    ASSERT_TRUE(library.ok()) << library.error().message();
    EXPECT_EQ(call_int(*library, "trimmed"), 7);
  }

  // A cache hit makes a file the most recently used: trimming takes it last.
  write_aged(cache / "newer-0000000000000000000000000000000000000000000000000000000000000004.o",
             100 * kib, std::chrono::hours(0));
  fs::last_write_time(*path, fs::file_time_type::clock::now() - std::chrono::hours(5));
  CCompiler unbounded({.cache_dir = cache.string(), .max_cache_bytes = 0});
  ASSERT_TRUE(unbounded.build_shared_library({function_source("trimmed", 7)}).ok());
  EXPECT_EQ(unbounded.stats().link_cache_hits, 1u);
  EXPECT_EQ(unbounded.stats().evicted, 0u);
  CCompiler tight({.cache_dir = cache.string(), .max_cache_bytes = 150 * kib});
  ASSERT_TRUE(tight.compile({}).ok());
  EXPECT_TRUE(fs::exists(*path));
  EXPECT_TRUE(fs::exists(
      cache / "newer-0000000000000000000000000000000000000000000000000000000000000004.o"));
  EXPECT_FALSE(fs::exists(
      cache / "older-0000000000000000000000000000000000000000000000000000000000000002.c"));
  EXPECT_FALSE(
      fs::exists(cache / "lib0000000000000000000000000000000000000000000000000000000000000003.so"));
}

TEST(CCompiler, TrimmingNeverRemovesALibraryThatIsLoaded) {
  fs::path cache = fresh_dir("trim-loaded-test");
  CCompiler compiler({.cache_dir = cache.string()});
  auto kept = compiler.build_shared_library({function_source("kept", 1)});
  auto dropped = compiler.build_shared_library({function_source("dropped", 2)});
  ASSERT_TRUE(kept.ok() && dropped.ok());
  auto opened = Library::open(*kept);
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  std::optional<Library> library = std::move(*opened);
  // The loaded library is the oldest file of the cache.
  for (const auto& entry : fs::directory_iterator(cache))
    fs::last_write_time(entry.path(), fs::file_time_type::clock::now() - std::chrono::hours(1));
  fs::last_write_time(*kept, fs::file_time_type::clock::now() - std::chrono::hours(2));

  // A bound of one byte: every cache file goes but the loaded library and the objects of
  // the build in progress.
  CCompiler tiny({.cache_dir = cache.string(), .max_cache_bytes = 1});
  auto fresh = tiny.build_shared_library({function_source("fresh", 3)});
  ASSERT_TRUE(fresh.ok()) << fresh.error().message();
  EXPECT_TRUE(fs::exists(*kept));
  EXPECT_FALSE(fs::exists(*dropped));
  EXPECT_EQ(call_int(*library, "kept"), 1);
  auto fresh_library = Library::open(*fresh);
  ASSERT_TRUE(fresh_library.ok()) << fresh_library.error().message();
  EXPECT_EQ(call_int(*fresh_library, "fresh"), 3);
  EXPECT_TRUE(Library::is_loaded(*kept));

  // Once closed, it is a cache file like any other.
  library.reset();
  EXPECT_FALSE(Library::is_loaded(*kept));
  ASSERT_TRUE(tiny.compile({}).ok());
  EXPECT_FALSE(fs::exists(*kept));
  EXPECT_TRUE(fs::exists(*fresh));
}

TEST(Library, MissingFilesAndSymbolsAreClearErrors) {
  std::string missing = fresh_dir("library-test") + "/none.so";
  auto none = Library::open(missing);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message().rfind("cannot load " + missing + ": ", 0), 0u)
      << none.error().message();

  CCompiler compiler({.cache_dir = fresh_dir("library-cache")});
  auto path = compiler.build_shared_library({function_source("present", 3)});
  ASSERT_TRUE(path.ok()) << path.error().message();
  auto library = Library::open(*path);
  ASSERT_TRUE(library.ok()) << library.error().message();
  auto absent = library->function("absent");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().message(), "symbol 'absent' not found in " + *path);

  // Moving keeps the library loaded; the moved-from object owns nothing.
  Library moved = std::move(*library);
  EXPECT_EQ(call_int(moved, "present"), 3);
}

TEST(ContentHash, SeparatesPartsAndIsStable) {
  EXPECT_EQ(ContentHash().add("abc").hex(), ContentHash().add("abc").hex());
  EXPECT_NE(ContentHash().add("ab").add("c").hex(), ContentHash().add("a").add("bc").hex());
  EXPECT_NE(ContentHash().add("abc").hex(), ContentHash().add("abd").hex());
  EXPECT_EQ(ContentHash().add("").hex().size(), 64u);
  // SHA-256 itself, on the FIPS 180-2 example.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace uma::runtime
