// Reading whole files: anything but a regular file is refused at once with a clear error,
// never a hang on a FIFO, an endless read of a device, or an empty text from a folder.
#include "uma/support/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "c_test_util.h"
#include "uma/frontend/onnx/importer.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

std::string read_error(const std::string& path) {
  auto text = read_file(path);
  return text.ok() ? "ok: " + *text : text.error().message();
}

TEST(FileTest, ReadsARegularFile) {
  std::string path = testing_c::fresh_dir("file") + "/a.uma";
  ASSERT_TRUE(write_file(path, "func @main() -> () {\n  return\n}\n").ok());
  EXPECT_EQ(read_error(path), "ok: func @main() -> () {\n  return\n}\n");
}

TEST(FileTest, RefusesWhatIsNotARegularFile) {
  std::string dir = testing_c::fresh_dir("file");
  EXPECT_EQ(read_error(dir), dir + ": is a folder, not a file");
  EXPECT_EQ(read_error("/dev/zero"),
            "/dev/zero: is not a regular file (a FIFO, a device or a socket)");
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_error(fifo), fifo + ": is not a regular file (a FIFO, a device or a socket)");
  Context context;
  auto model = import_onnx_file(context, fifo);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message(),
            fifo + ": is not a regular file (a FIFO, a device or a socket)");
}

}  // namespace
}  // namespace uma
