// The object cache cannot be poisoned: entries are used only when their bytes match their
// digests (a planted or corrupt entry is built again), and a cache folder another user can
// write to is refused, as is one that cannot be a folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "c_test_util.h"
#include "uma/runtime/c_compiler.h"
#include "uma/runtime/library.h"
#include "uma/support/file.h"

namespace uma::runtime {
namespace {

namespace fs = std::filesystem;
using testing_c::fresh_dir;

CSourceFile returning(const std::string& symbol, int value) {
  return {symbol, fmt::format("#include <stdint.h>\nint32_t {}(void* const* args) {{ "
                              "*(int32_t*)args[0] = {}; return 0; }}\n",
                              symbol, value)};
}

std::int32_t call(const std::string& path, const std::string& symbol) {
  auto library = Library::open(path);
  EXPECT_TRUE(library.ok()) << library.error().message();
  return library.ok() ? testing_c::call_int(*library, symbol) : -1;
}

std::string build_error(const std::string& cache) {
  CCompiler compiler({.cache_dir = cache});
  auto path = compiler.build_shared_library({returning("f", 1)});
  return path.ok() ? "ok" : path.error().message();
}

TEST(ObjectCache, APlantedLibraryIsReplacedNotLoaded) {
  std::string cache = fresh_dir("planted");
  CCompiler first({.cache_dir = cache});
  auto good = first.build_shared_library({returning("answer", 42)});
  auto evil = first.build_shared_library({returning("other", 666)}, cache + "/evil.so");
  ASSERT_TRUE(good.ok() && evil.ok());
  // Someone with write access puts other code under the entry's name.
  fs::copy_file(*evil, *good, fs::copy_options::overwrite_existing);
  CCompiler second({.cache_dir = cache});
  auto again = second.build_shared_library({returning("answer", 42)});
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(*again, *good);
  EXPECT_EQ(second.stats().link_cache_hits, 0u);
  EXPECT_EQ(second.stats().linked, 1u);
  EXPECT_EQ(call(*again, "answer"), 42);
}

TEST(ObjectCache, ACorruptObjectIsCompiledAgain) {
  std::string cache = fresh_dir("corrupt");
  CCompiler first({.cache_dir = cache});
  auto objects = first.compile({returning("answer", 42)});
  ASSERT_TRUE(objects.ok()) << objects.error().message();
  ASSERT_TRUE(write_file(objects->front(), "truncated").ok());
  CCompiler second({.cache_dir = cache});
  auto path = second.build_shared_library({returning("answer", 42)});
  ASSERT_TRUE(path.ok()) << path.error().message();
  EXPECT_EQ(second.stats().cache_hits, 0u);
  EXPECT_EQ(second.stats().compiled, 1u);
  EXPECT_EQ(call(*path, "answer"), 42);
  // An entry without its digest file is not trusted either.
  fs::remove(objects->front() + ".sha256");
  CCompiler third({.cache_dir = cache});
  ASSERT_TRUE(third.compile({returning("answer", 42)}).ok());
  EXPECT_EQ(third.stats().compiled, 1u);
}

TEST(ObjectCache, AFolderOthersCanWriteIsRefused) {
  std::string cache = fresh_dir("shared");
  fs::permissions(cache, fs::perms::all);
  EXPECT_EQ(build_error(cache),
            cache +
                ": the cache folder is writable by its group or by others (mode 0777); code "
                "another user can place there is never loaded (chmod go-w it, or give another "
                "folder with --cache-dir)");
}

// Only root can give a folder to another user; as any other user the case cannot be made,
// and the check is the same comparison of the folder's owner with the user.
TEST(ObjectCache, AFolderOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can make a folder another user owns";
  std::string cache = fresh_dir("foreign");
  ASSERT_EQ(::chown(cache.c_str(), 65534, 65534), 0);
  EXPECT_EQ(build_error(cache), fmt::format("{}: the cache folder belongs to user 65534, not to "
                                            "this user (0); code another user can place there "
                                            "is never loaded (give a folder of your own with "
                                            "--cache-dir)",
                                            cache));
}

TEST(ObjectCache, AFileWhereTheFolderShouldBeIsAnError) {
  std::string file = fresh_dir("file-cache") + "/cache";
  ASSERT_TRUE(write_file(file, "").ok());
  EXPECT_EQ(build_error(file),
            file + ": cannot create the cache folder: it is a file, not a folder");
  EXPECT_EQ(build_error(file + "/sub"),
            file + "/sub: cannot create the cache folder: Not a directory");
}

// Without XDG_CACHE_HOME or HOME, the cache is a folder of the user's own under the temp
// folder, made private.
TEST(ObjectCache, TheTempFallbackIsPrivate) {
  std::string temp = fresh_dir("temp-fallback");
  struct Environment {
    std::string name;
    std::optional<std::string> saved;
    explicit Environment(std::string n) : name(std::move(n)) {
      if (const char* value = std::getenv(name.c_str())) saved = value;
    }
    ~Environment() {
      if (saved)
        ::setenv(name.c_str(), saved->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  } xdg("XDG_CACHE_HOME"), home("HOME"), tmpdir("TMPDIR");
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  ::setenv("TMPDIR", temp.c_str(), 1);
  std::string expected = fmt::format("{}/uma-cache-{}", temp, ::geteuid());
  EXPECT_EQ(default_cache_dir(), expected);
  CCompiler compiler;
  ASSERT_TRUE(compiler.compile({returning("answer", 42)}).ok());
  struct stat info {};
  ASSERT_EQ(::stat(expected.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

}  // namespace
}  // namespace uma::runtime
