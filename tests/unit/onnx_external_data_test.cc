// Unit tests of external data (tensors whose bytes live in files beside the model): read
// inside the model's folder, refused when the location leaves it in any way (absolute path,
// "..", a symlink), and checked against the file's size.
#include <filesystem>
#include <fstream>

#include "onnx_importer_test_util.h"
#include "uma/runtime/interpreter.h"

namespace uma::test {
namespace {

namespace fs = std::filesystem;

// model/            the model's folder
//   weights.bin     8 junk bytes, then 1.0f and 2.0f, then 4 junk bytes
//   sub/w.bin       1.0f and 2.0f
//   sub/inside.bin  -> ../weights.bin (a symlink that stays inside)
//   leak.bin        -> ../outside/secret.bin (a symlink that leaves)
// outside/secret.bin  1.0f and 2.0f
class OnnxExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            fmt::format("uma_external_{}",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(model_dir() / "sub");
    fs::create_directories(root_ / "outside");
    const std::string floats("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
    write(model_dir() / "weights.bin", std::string(8, 'j') + floats + "jjjj");
    write(model_dir() / "sub" / "w.bin", floats);
    write(root_ / "outside" / "secret.bin", floats);
    fs::create_symlink("../weights.bin", model_dir() / "sub" / "inside.bin");
    fs::create_symlink("../outside/secret.bin", model_dir() / "leak.bin");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path model_dir() const { return root_ / "model"; }
  std::string dir() const { return model_dir().string(); }

  static void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }

  // A model whose output is initializer 'w' (tensor<2xf32>), stored at `location`.
  static OnnxGraph model(const std::string& location, const char* offset = nullptr,
                         const char* length = nullptr) {
    OnnxGraph g;
    onnx::TensorProto& w = g.initializer("w", *f32({2}, {0, 0}));
    w.clear_raw_data();
    w.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* key, const std::string& value) {
      auto* entry = w.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add("location", location);
    if (offset) add("offset", offset);
    if (length) add("length", length);
    g.output("w");
    return g;
  }

  std::vector<double> value_of(const OnnxGraph& g) {
    Context context;
    auto module = import_graph(context, g, {}, dir());
    EXPECT_TRUE(module.ok()) << module.error().message();
    if (!module.ok()) return {};
    auto outputs = interpret(**module, {});
    EXPECT_TRUE(outputs.ok());
    return values_of(*(*outputs)[0]);
  }

  fs::path root_;
};

const std::vector<double> kOneTwo = {1, 2};

TEST_F(OnnxExternalDataTest, ReadsFilesInsideTheFolder) {
  EXPECT_EQ(value_of(model("weights.bin", "8", "8")), kOneTwo);
  EXPECT_EQ(value_of(model("sub/w.bin")), kOneTwo);
  EXPECT_EQ(value_of(model("./sub/../sub/w.bin", "0")), kOneTwo);
  EXPECT_EQ(value_of(model("sub/inside.bin", "8", "8")), kOneTwo);
}

TEST_F(OnnxExternalDataTest, ReadsRelativeToTheModelFile) {
  OnnxGraph g = model("sub/w.bin");
  std::string path = (model_dir() / "model.onnx").string();
  write(path, g.model.SerializeAsString());
  Context context;
  auto module = import_onnx_file(context, path);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto outputs = interpret(**module, {});
  ASSERT_TRUE(outputs.ok());
  EXPECT_EQ(values_of(*(*outputs)[0]), kOneTwo);
}

TEST_F(OnnxExternalDataTest, RefusesLocationsOutsideTheFolder) {
  std::string absolute = (model_dir() / "sub" / "w.bin").string();
  EXPECT_EQ(import_error(model(absolute), {}, dir()),
            fmt::format("model.onnx: initializer 'w': external data location '{}' is an absolute "
                        "path; it must be relative to the model's folder",
                        absolute));
  std::string secret = (root_ / "outside" / "secret.bin").string();
  EXPECT_EQ(import_error(model("../outside/secret.bin"), {}, dir()),
            fmt::format("model.onnx: initializer 'w': external data location "
                        "'../outside/secret.bin' leaves the model's folder (it resolves to '{}')",
                        secret));
  EXPECT_EQ(import_error(model("sub/../../outside/secret.bin"), {}, dir()),
            fmt::format("model.onnx: initializer 'w': external data location "
                        "'sub/../../outside/secret.bin' leaves the model's folder (it resolves to "
                        "'{}')",
                        secret));
  EXPECT_EQ(import_error(model("leak.bin"), {}, dir()),
            fmt::format("model.onnx: initializer 'w': external data location 'leak.bin' leaves "
                        "the model's folder (it resolves to '{}')",
                        secret));
  EXPECT_EQ(import_error(model(std::string("sub/w.bin\0/../../x", 18)), {}, dir()),
            "model.onnx: initializer 'w': external data location contains a NUL byte");
}

TEST_F(OnnxExternalDataTest, ChecksOffsetsAndLengthsAgainstTheFile) {
  EXPECT_EQ(import_error(model("weights.bin", "21"), {}, dir()),
            "model.onnx: initializer 'w': external data offset 21 is past the end of "
            "'weights.bin' (20 bytes)");
  EXPECT_EQ(import_error(model("weights.bin", "16", "8"), {}, dir()),
            "model.onnx: initializer 'w': external data offset 16 + length 8 goes past the end "
            "of 'weights.bin' (20 bytes)");
  EXPECT_EQ(import_error(model("weights.bin", "0", "12"), {}, dir()),
            "model.onnx: initializer 'w': external data holds 12 bytes, but tensor<2xf32> needs 8");
  EXPECT_EQ(import_error(model("weights.bin"), {}, dir()),
            "model.onnx: initializer 'w': external data holds 20 bytes, but tensor<2xf32> needs 8");
  EXPECT_EQ(import_error(model("weights.bin", "8x"), {}, dir()),
            "model.onnx: initializer 'w': external data 'offset' is '8x', not a non-negative "
            "integer");
  EXPECT_EQ(import_error(model("weights.bin", "0", "-8"), {}, dir()),
            "model.onnx: initializer 'w': external data 'length' is '-8', not a non-negative "
            "integer");
  EXPECT_EQ(import_error(model("missing.bin"), {}, dir()),
            "model.onnx: initializer 'w': external data file 'missing.bin' does not exist or is "
            "not a regular file");
  EXPECT_EQ(import_error(model("sub"), {}, dir()),
            "model.onnx: initializer 'w': external data file 'sub' does not exist or is not a "
            "regular file");
  EXPECT_EQ(import_error(model(""), {}, dir()),
            "model.onnx: initializer 'w': external data has an empty 'location'");
}

TEST_F(OnnxExternalDataTest, RefusedForModelsGivenInMemory) {
  EXPECT_EQ(import_error(model("sub/w.bin")),
            "model.onnx: initializer 'w': external data 'sub/w.bin' cannot be read: the model was "
            "given in memory, without a folder");
}

TEST_F(OnnxExternalDataTest, AttributeTensorsToo) {
  auto constant_model = [](const std::string& location) {
    OnnxGraph g;
    onnx::AttributeProto attr = tensor_attr("value", *f32({2}, {0, 0}));
    attr.mutable_t()->clear_raw_data();
    attr.mutable_t()->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* entry = attr.mutable_t()->add_external_data();
    entry->set_key("location");
    entry->set_value(location);
    *g.node("Constant", {}, {"c"}, "c").add_attribute() = attr;
    g.output("c");
    return g;
  };
  EXPECT_EQ(value_of(constant_model("sub/w.bin")), kOneTwo);
  EXPECT_EQ(import_error(constant_model("leak.bin"), {}, dir()),
            fmt::format("model.onnx: node 'c' (Constant): attribute 'value': external data "
                        "location 'leak.bin' leaves the model's folder (it resolves to '{}')",
                        (root_ / "outside" / "secret.bin").string()));
}

}  // namespace
}  // namespace uma::test
