// Unit tests of the ONNX importer's core (src/frontend/onnx/importer.cc, input_types.cc,
// constant.cc, tensor_proto.cc): graphs, initializers, Constant nodes, input shapes,
// folding, and every error with its exact message. External data has its own file
// (onnx_external_data_test.cc); NodeContext has onnx_node_context_test.cc.
#include "onnx_importer_test_util.h"

#include "uma/graph/printer.h"
#include "uma/runtime/interpreter.h"

namespace uma::test {
namespace {

TEST(OnnxImporterTest, ImportsAGraphKeepingNamesAsLocations) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {2});
  g.initializer("w", *f32({2}, {1, 2}));
  g.node("Add", {"x", "w"}, {"s"}, "add1");
  g.node("Relu", {"s"}, {"y"});  // unnamed: "Relu_1"
  g.output("y");
  Context context;
  auto module = import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ(to_string(**module),
            "module @g\n"
            "\n"
            "func @main(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n"
            "  %w = constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>\n"
            "  %s = add(%x, %w) : tensor<2xf32> loc(\"add1\")\n"
            "  %y = nn.relu(%s) : tensor<2xf32> loc(\"Relu_1\")\n"
            "  return %y\n"
            "}\n");
  auto outputs = interpret(**module, {f32({2}, {-5, 1})});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ(values_of(*(*outputs)[0]), (std::vector<double>{0, 3}));
}

TEST(OnnxImporterTest, InitializersBecomeOneSharedConstantAndAreNeverParameters) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {2});
  // Before IR version 4 initializers were listed among the inputs as well.
  g.input("w", onnx::TensorProto::FLOAT, {2});
  g.initializer("w", *f32({2}, {1, 2}));
  g.node("Add", {"x", "w"}, {"a"}, "a");
  g.node("Mul", {"a", "w"}, {"b"}, "b");
  g.output("b");
  Context context;
  auto module = import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  const Function* main = (*module)->find_function("main");
  ASSERT_EQ(main->num_params(), 1u);
  EXPECT_EQ(main->param(0)->name(), "x");
  int constants = 0;
  for (const auto& node : main->nodes()) constants += node->is_op("constant");
  EXPECT_EQ(constants, 1);
  const Node* add = main->outputs()[0]->producer()->operand(0)->producer();
  EXPECT_EQ(add->operand(1), main->outputs()[0]->producer()->operand(1));
  EXPECT_EQ(add->operand(1)->producer()->attrs().get_tensor("value")->name, "w");
}

TEST(OnnxImporterTest, GraphOutputsMayBeInputsOrInitializers) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::INT64, {});
  g.initializer("w", *make_tensor(DType::i64, {}, {7}));
  g.output("x");
  g.output("w");
  Context context;
  auto module = import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto outputs = interpret(**module, {make_tensor(DType::i64, {}, {3})});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ(values_of(*(*outputs)[0]), std::vector<double>{3});
  EXPECT_EQ(values_of(*(*outputs)[1]), std::vector<double>{7});
}

TEST(OnnxImporterTest, DropsNodesNoOutputNeeds) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {2});
  g.node("Relu", {"x"}, {"unused"}, "dead");
  g.node("Neg", {"x"}, {"y"}, "neg");
  g.output("y");
  Context context;
  auto module = import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ((*module)->find_function("main")->num_nodes(), 1u);
}

// ---- Constant nodes ----

TEST(OnnxImporterTest, ConstantNodesOfEveryForm) {
  OnnxGraph g;
  g.node("Constant", {}, {"t"}, "t")
      .add_attribute()
      ->CopyFrom(tensor_attr("value", *make_tensor(DType::i32, {2}, {4, -5})));
  g.float_attr(g.node("Constant", {}, {"f"}, "f"), "value_float", 1.5);
  g.floats_attr(g.node("Constant", {}, {"fs"}, "fs"), "value_floats", {0.5, 2});
  g.int_attr(g.node("Constant", {}, {"i"}, "i"), "value_int", -3);
  g.ints_attr(g.node("Constant", {}, {"is"}, "is"), "value_ints", {1, 2, 3});
  for (const char* name : {"t", "f", "fs", "i", "is"}) g.output(name);
  Context context;
  auto module = import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto outputs = interpret(**module, {});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  const std::vector<std::pair<std::string, std::vector<double>>> expected = {
      {"tensor<2xi32>", {4, -5}},
      {"tensor<f32>", {1.5}},
      {"tensor<2xf32>", {0.5, 2}},
      {"tensor<i64>", {-3}},
      {"tensor<3xi64>", {1, 2, 3}}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(to_string(Type((*outputs)[i]->type())), expected[i].first);
    EXPECT_EQ(values_of(*(*outputs)[i]), expected[i].second);
  }
}

TEST(OnnxImporterTest, ConstantNodeErrors) {
  {
    OnnxGraph g;
    auto& node = g.node("Constant", {}, {"c"}, "c");
    node.add_attribute()->set_name("sparse_value");
    node.mutable_attribute(0)->set_type(onnx::AttributeProto::SPARSE_TENSOR);
    g.output("c");
    EXPECT_EQ(import_error(g),
              "model.onnx: node 'c' (Constant): attribute 'sparse_value': sparse tensors are not "
              "supported");
  }
  {
    OnnxGraph g;
    auto& node = g.node("Constant", {}, {"c"}, "c");
    g.int_attr(node, "value_int", 1);
    g.float_attr(node, "value_float", 1);
    g.output("c");
    EXPECT_EQ(import_error(g),
              "model.onnx: node 'c' (Constant): a Constant needs exactly one value attribute "
              "(value, value_float, value_floats, value_int, value_ints), but it has 2");
  }
  {
    OnnxGraph g;
    auto& node = g.node("Constant", {}, {"c"}, "c");
    node.add_attribute()->set_name("value_string");
    node.mutable_attribute(0)->set_type(onnx::AttributeProto::STRING);
    g.output("c");
    EXPECT_EQ(import_error(g),
              "model.onnx: node 'c' (Constant): attribute 'value_string': string tensors are not "
              "supported");
  }
  {
    OnnxGraph g;
    g.int_attr(g.node("Constant", {}, {"c"}, "c"), "value_float", 1);
    g.node("Constant", {}, {"d"}, "d")
        .add_attribute()
        ->CopyFrom(tensor_attr("value", *make_tensor(DType::i32, {2}, {4, -5})));
    g.graph().mutable_node(1)->mutable_attribute(0)->mutable_t()->set_data_type(
        onnx::TensorProto::COMPLEX64);
    g.output("c");
    g.output("d");
    EXPECT_EQ(import_error(g),
              "model.onnx: node 'd' (Constant): attribute 'value' has element type COMPLEX64, "
              "which uma does not support (it supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, "
              "INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL)");
  }
}

// ---- model-level errors ----

TEST(OnnxImporterTest, OpsetErrors) {
  {
    OnnxGraph g(0);
    EXPECT_EQ(import_error(g),
              "model.onnx: opset 0 of the default ONNX domain is not supported (uma supports "
              "opsets 1 to 17)");
  }
  {
    OnnxGraph g(18);
    EXPECT_EQ(import_error(g),
              "model.onnx: opset 18 of the default ONNX domain is not supported (uma supports "
              "opsets 1 to 17)");
  }
  {
    OnnxGraph g;
    g.model.clear_opset_import();
    g.model.add_opset_import()->set_domain("ai.onnx.ml");
    EXPECT_EQ(import_error(g), "model.onnx: the model imports no opset of the default ONNX domain");
  }
  {
    // "ai.onnx" names the default domain too, and an unused other domain is fine.
    OnnxGraph g;
    g.model.mutable_opset_import(0)->set_domain("ai.onnx");
    g.model.add_opset_import()->set_domain("com.microsoft");
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.node("Relu", {"x"}, {"y"});
    g.output("y");
    Context context;
    EXPECT_TRUE(import_graph(context, g).ok());
  }
}

TEST(OnnxImporterTest, BadProtobufAndMissingGraph) {
  Context context;
  auto bad = import_onnx_bytes(context, "\x0a\xff\xff\xff", "model.onnx", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "model.onnx: not an ONNX model (the protobuf does not parse)");
  OnnxGraph g;
  g.model.clear_graph();
  EXPECT_EQ(import_error(g), "model.onnx: the model has no graph");
}

TEST(OnnxImporterTest, ListsEveryUnsupportedOpWithItsNodes) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {1});
  g.node("Foo", {"x"}, {"a"}, "a");
  g.node("Relu", {"a"}, {"r"}, "r");
  g.node("Foo", {"r"}, {"b"}, "b");
  g.node("Bar", {"b"}, {"c"});
  g.node("Gelu", {"c"}, {"d"}, "d").set_domain("com.microsoft");
  g.output("d");
  EXPECT_EQ(import_error(g),
            "model.onnx: unsupported ops: Foo (nodes 'a', 'b'), Bar (node 'Bar_3'), "
            "com.microsoft.Gelu (node 'd')");
}

TEST(OnnxImporterTest, LongListsOfNodesAreCounted) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {1});
  std::string previous = "x";
  for (int i = 0; i < 12; ++i) {
    std::string out = fmt::format("v{}", i);
    g.node("Foo", {previous}, {out});
    previous = out;
  }
  g.output(previous);
  EXPECT_EQ(import_error(g),
            "model.onnx: unsupported ops: Foo (nodes 'Foo_0', 'Foo_1', 'Foo_2', 'Foo_3', 'Foo_4', "
            "'Foo_5', 'Foo_6', 'Foo_7', 'Foo_8', 'Foo_9' and 2 more)");
}

TEST(OnnxImporterTest, GraphStructureErrors) {
  {
    OnnxGraph g;
    g.node("Relu", {"nowhere"}, {"y"}, "r");
    g.output("y");
    EXPECT_EQ(import_error(g),
              "model.onnx: missing initializer or input 'nowhere' used by node 'r'");
  }
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.node("Relu", {"later"}, {"y"}, "first");
    g.node("Neg", {"x"}, {"later"}, "second");
    g.output("y");
    EXPECT_EQ(import_error(g),
              "model.onnx: node 'first' uses 'later' before the node that produces it: the graph "
              "is not in topological order");
  }
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.node("Relu", {"x"}, {"y"}, "one");
    g.node("Neg", {"x"}, {"y"}, "two");
    g.output("y");
    EXPECT_EQ(import_error(g), "model.onnx: 'y' is produced by two nodes, 'one' and 'two'");
  }
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.output("nothing");
    EXPECT_EQ(import_error(g),
              "model.onnx: graph output 'nothing' is not produced by any node, and is neither an "
              "input nor an initializer");
  }
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.node("Relu", {"x"}, {"x"}, "r");
    g.output("x");
    EXPECT_EQ(import_error(g), "model.onnx: graph input 'x' is also produced by node 'r'");
  }
  {
    OnnxGraph g;
    g.initializer("w", *f32({1}, {1}));
    g.initializer("w", *f32({1}, {2}));
    EXPECT_EQ(import_error(g), "model.onnx: two initializers are named 'w'");
  }
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.input("x", onnx::TensorProto::FLOAT, {1});
    EXPECT_EQ(import_error(g), "model.onnx: two graph inputs are named 'x'");
  }
  {
    OnnxGraph g;
    g.input("", onnx::TensorProto::FLOAT, {1});
    EXPECT_EQ(import_error(g), "model.onnx: a graph input has no name");
  }
  {
    OnnxGraph g;
    g.initializer("", *f32({1}, {1}));
    EXPECT_EQ(import_error(g), "model.onnx: an initializer has no name");
  }
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::FLOAT, {1});
    g.initializer("w", *f32({1}, {1}));
    g.node("Relu", {"x"}, {"w"}, "r");
    EXPECT_EQ(import_error(g), "model.onnx: initializer 'w' is also produced by node 'r'");
  }
  {
    OnnxGraph g;
    g.graph().add_sparse_initializer()->mutable_values()->set_name("s");
    EXPECT_EQ(import_error(g), "model.onnx: sparse initializers are not supported ('s')");
  }
}

// ---- element types and sizes ----

TEST(OnnxImporterTest, UnsupportedElementTypesNameTheTensor) {
  {
    OnnxGraph g;
    g.input("x", onnx::TensorProto::COMPLEX64, {1});
    EXPECT_EQ(
        import_error(g),
        "model.onnx: input 'x' has element type COMPLEX64, which uma does not support (it "
        "supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, UINT16, "
        "UINT32, UINT64, BOOL)");
  }
  {
    OnnxGraph g;
    onnx::TensorProto& w = g.initializer("w", *f32({1}, {1}));
    w.set_data_type(onnx::TensorProto::STRING);
    EXPECT_EQ(
        import_error(g),
        "model.onnx: initializer 'w' has element type STRING, which uma does not support (it "
        "supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, UINT16, "
        "UINT32, UINT64, BOOL)");
  }
  {
    OnnxGraph g;
    g.initializer("w", *f32({1}, {1})).set_data_type(0);
    EXPECT_EQ(import_error(g),
              "model.onnx: initializer 'w' has element type UNDEFINED, which uma does not support "
              "(it supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, "
              "UINT16, UINT32, UINT64, BOOL)");
  }
}

TEST(OnnxImporterTest, AbsurdSizesAreRefusedBeforeAllocating) {
  auto error_for = [](const std::function<void(onnx::TensorProto&)>& corrupt) {
    OnnxGraph g;
    corrupt(g.initializer("w", *f32({2}, {1, 2})));
    return import_error(g);
  };
  EXPECT_EQ(error_for([](onnx::TensorProto& w) { w.mutable_raw_data()->resize(7); }),
            "model.onnx: initializer 'w': raw_data holds 7 bytes, but tensor<2xf32> needs 8");
  EXPECT_EQ(error_for([](onnx::TensorProto& w) { w.set_dims(0, 1000000000000); }),
            "model.onnx: initializer 'w': raw_data holds 8 bytes, but "
            "tensor<1000000000000xf32> needs 4000000000000");
  EXPECT_EQ(error_for([](onnx::TensorProto& w) {
              w.set_dims(0, 4294967296);
              w.add_dims(4294967296);
            }),
            "model.onnx: initializer 'w': shape 4294967296x4294967296 has more elements than fit "
            "in 64 bits");
  EXPECT_EQ(error_for([](onnx::TensorProto& w) { w.set_dims(0, -2); }),
            "model.onnx: initializer 'w': negative dimension -2 in shape -2");
  EXPECT_EQ(error_for([](onnx::TensorProto& w) {
              w.clear_raw_data();
              w.add_float_data(1);
            }),
            "model.onnx: initializer 'w': float_data holds 1 value(s), but tensor<2xf32> has 2 "
            "element(s)");
  EXPECT_EQ(error_for([](onnx::TensorProto& w) {
              w.clear_raw_data();
              w.set_data_type(onnx::TensorProto::INT64);
            }),
            "model.onnx: initializer 'w': int64_data holds 0 value(s), but tensor<2xi64> has 2 "
            "element(s)");
  EXPECT_EQ(error_for([](onnx::TensorProto& w) { w.mutable_segment()->set_begin(0); }),
            "model.onnx: initializer 'w': segmented tensors are not supported");
}

// Found by the fuzzer: a type with a 0 dimension has no elements whatever its other
// dimensions, but converters that multiply some of them (Flatten, Softmax, reductions)
// overflowed. Shapes from the model must have nonzero dimensions that multiply within 64 bits.
TEST(OnnxImporterTest, ZeroSizedShapesWithHugeDimensionsAreRefused) {
  OnnxGraph input;
  input.input("x", onnx::TensorProto::FLOAT, {3, 0, 4611686018427387904});
  input.node("Flatten", {"x"}, {"y"});
  input.output("y");
  EXPECT_EQ(import_error(input),
            "model.onnx: input 'x': shape 3x0x4611686018427387904 has more elements than fit in "
            "64 bits");
  OnnxGraph init;
  onnx::TensorProto& w = init.initializer("w", *f32({0}, {}));
  w.add_dims(4294967296);
  w.add_dims(4294967296);
  EXPECT_EQ(import_error(init),
            "model.onnx: initializer 'w': shape 0x4294967296x4294967296 has more elements than "
            "fit in 64 bits");
}

TEST(OnnxImporterTest, ReadsTypedDataFields) {
  OnnxGraph g;
  onnx::TensorProto& h = g.initializer("h", *f32({1}, {0}));
  h.clear_raw_data();
  h.set_data_type(onnx::TensorProto::FLOAT16);
  h.add_int32_data(0x3c00);  // 1.0 as a half
  onnx::TensorProto& b = g.initializer("b", *f32({2}, {0, 0}));
  b.clear_raw_data();
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_int32_data(0);
  b.add_int32_data(7);
  onnx::TensorProto& i = g.initializer("i", *f32({2}, {0, 0}));
  i.clear_raw_data();
  i.set_data_type(onnx::TensorProto::INT8);
  i.add_int32_data(-3);
  i.add_int32_data(300);  // out of range: wraps as the C++ cast does
  g.output("h");
  g.output("b");
  g.output("i");
  Context context;
  auto module = import_graph(context, g);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto outputs = interpret(**module, {});
  ASSERT_TRUE(outputs.ok());
  EXPECT_EQ(values_of(*(*outputs)[0]), std::vector<double>{1});
  EXPECT_EQ(values_of(*(*outputs)[1]), (std::vector<double>{0, 1}));
  EXPECT_EQ(values_of(*(*outputs)[2]), (std::vector<double>{-3, 44}));
}

// Each type in the typed field ONNX specifies for it, exactly: DOUBLE in double_data, the
// 16-bit integers as values in int32_data, UINT32 and UINT64 in uint64_data (UINT64 beyond
// int64's range too).
TEST(OnnxImporterTest, ReadsTheTypedFieldsOfEveryWideAndSixteenBitType) {
  auto read = [](onnx::TensorProto::DataType type, auto fill) {
    onnx::TensorProto proto;
    proto.set_data_type(type);
    proto.add_dims(2);
    fill(proto);
    auto tensor = tensor_from_onnx(proto, "t", "");
    EXPECT_TRUE(tensor.ok()) << tensor.error().message();
    return tensor.ok() ? *tensor : nullptr;
  };
  auto f64 = read(onnx::TensorProto::DOUBLE, [](onnx::TensorProto& p) {
    p.add_double_data(0.1);
    p.add_double_data(-1e300);
  });
  ASSERT_NE(f64, nullptr);
  EXPECT_EQ(f64->dtype(), DType::f64);
  EXPECT_EQ(f64->data<double>()[0], 0.1);
  EXPECT_EQ(f64->data<double>()[1], -1e300);
  auto i16 = read(onnx::TensorProto::INT16, [](onnx::TensorProto& p) {
    p.add_int32_data(-32768);
    p.add_int32_data(32767);
  });
  ASSERT_NE(i16, nullptr);
  EXPECT_EQ(i16->dtype(), DType::i16);
  EXPECT_EQ(i16->data<std::int16_t>()[0], -32768);
  EXPECT_EQ(i16->data<std::int16_t>()[1], 32767);
  auto u16 = read(onnx::TensorProto::UINT16, [](onnx::TensorProto& p) {
    p.add_int32_data(0);
    p.add_int32_data(65535);
  });
  ASSERT_NE(u16, nullptr);
  EXPECT_EQ(u16->dtype(), DType::u16);
  EXPECT_EQ(u16->data<std::uint16_t>()[1], 65535);
  auto u32 = read(onnx::TensorProto::UINT32, [](onnx::TensorProto& p) {
    p.add_uint64_data(1);
    p.add_uint64_data(4294967295u);
  });
  ASSERT_NE(u32, nullptr);
  EXPECT_EQ(u32->dtype(), DType::u32);
  EXPECT_EQ(u32->data<std::uint32_t>()[1], 4294967295u);
  auto u64 = read(onnx::TensorProto::UINT64, [](onnx::TensorProto& p) {
    p.add_uint64_data((std::uint64_t{1} << 53) + 1);
    p.add_uint64_data(0xFFFFFFFFFFFFFFFFull);
  });
  ASSERT_NE(u64, nullptr);
  EXPECT_EQ(u64->dtype(), DType::u64);
  EXPECT_EQ(u64->data<std::uint64_t>()[0], (std::uint64_t{1} << 53) + 1);
  EXPECT_EQ(u64->data<std::uint64_t>()[1], 0xFFFFFFFFFFFFFFFFull);
  // Counted like the other typed fields.
  onnx::TensorProto short_of_one;
  short_of_one.set_data_type(onnx::TensorProto::UINT32);
  short_of_one.add_dims(2);
  short_of_one.add_uint64_data(1);
  auto error = tensor_from_onnx(short_of_one, "t", "");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().message(),
            "t: uint64_data holds 1 value(s), but tensor<2xu32> has 2 element(s)");
}

// tensor_to_onnx writes raw_data, which reads back to the same bytes for every dtype.
TEST(OnnxImporterTest, EveryDtypeRoundTripsThroughRawData) {
  for (DType dtype : kAllDTypes) {
    auto tensor = std::make_shared<Tensor>(TensorType{dtype, {3}});
    // Arbitrary bytes, except that a bool holds only 0 or 1.
    for (std::size_t b = 0; b < tensor->bytes().size(); ++b)
      tensor->bytes()[b] =
          std::byte{static_cast<unsigned char>(dtype == DType::boolean ? b % 2 : b * 37 + 1)};
    onnx::TensorProto proto = tensor_to_onnx(*tensor, "t");
    EXPECT_EQ(dtype_from_onnx(proto.data_type()), dtype);
    auto back = tensor_from_onnx(proto, "t", "");
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_TRUE((*back)->same_contents(*tensor)) << dtype_name(dtype);
  }
}

// ---- graph input shapes ----

TEST(OnnxImporterTest, SymbolicDimensionsComeFromInputShapes) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {"N", 3, Unknown{}});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  Context context;
  OnnxImportOptions options;
  options.input_shapes["x"] = {2, 3, 5};
  auto module = import_graph(context, g, options);
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ(to_string((*module)->find_function("main")->param(0)->type()), "tensor<2x3x5xf32>");
}

TEST(OnnxImporterTest, InputShapeErrors) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {"N", 3, 224});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  auto error_with = [&](std::map<std::string, Shape, std::less<>> shapes) {
    OnnxImportOptions options;
    options.input_shapes = std::move(shapes);
    return import_error(g, options);
  };
  EXPECT_EQ(error_with({}),
            "model.onnx: input 'x' has symbolic dimension 'N' (dimension 0 of Nx3x224); give its "
            "size with --input-shape x=AxBxC, e.g. --input-shape x=1x3x224");
  EXPECT_EQ(error_with({{"x", {1, 4, 224}}}),
            "model.onnx: --input-shape x=1x4x224 contradicts the model: dimension 1 of input 'x' "
            "is 3 (Nx3x224)");
  EXPECT_EQ(error_with({{"x", {1, 3}}}),
            "model.onnx: --input-shape x=1x3 has 2 dimension(s), but input 'x' has rank 3 "
            "(Nx3x224)");
  EXPECT_EQ(error_with({{"x", {1, 3, 224}}, {"z", {1}}}),
            "model.onnx: --input-shape names 'z', which is not an input of the model (its inputs: "
            "'x')");
  OnnxGraph huge;
  huge.input("h", onnx::TensorProto::FLOAT, {"N", "M"});
  OnnxImportOptions huge_shape;
  huge_shape.input_shapes["h"] = {4294967296, 4294967296};
  EXPECT_EQ(import_error(huge, huge_shape),
            "model.onnx: input 'h': shape 4294967296x4294967296 has more elements than fit in 64 "
            "bits");

  OnnxGraph unknown;
  unknown.input("u", onnx::TensorProto::INT64, {Unknown{}, 2});
  EXPECT_EQ(import_error(unknown),
            "model.onnx: input 'u' has an unknown dimension (dimension 0 of ?x2); give its size "
            "with --input-shape u=AxBxC, e.g. --input-shape u=1x2");
  OnnxGraph no_shape;
  no_shape.input("s", onnx::TensorProto::FLOAT, {});
  no_shape.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_EQ(import_error(no_shape),
            "model.onnx: input 's' has no shape in the model; give it with --input-shape s=AxBxC");
  OnnxGraph negative;
  negative.input("n", onnx::TensorProto::FLOAT, {-1});
  EXPECT_EQ(import_error(negative),
            "model.onnx: input 'n' has a negative dimension -1 (dimension 0 of -1)");
  OnnxGraph sequence;
  sequence.graph().add_input()->set_name("q");
  sequence.graph().mutable_input(0)->mutable_type()->mutable_sequence_type();
  EXPECT_EQ(import_error(sequence),
            "model.onnx: input 'q' is a sequence; only tensor inputs are supported");
}

TEST(OnnxImporterTest, ConstantInputsBindGraphInputs) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {2});
  g.input("k", onnx::TensorProto::FLOAT, {2});
  g.node("Add", {"x", "k"}, {"y"});
  g.output("y");
  Context context;
  OnnxImportOptions options;
  options.constant_inputs["k"] = f32({2}, {10, 20});
  auto module = import_graph(context, g, options);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto outputs = interpret(**module, {f32({2}, {1, 2})});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  EXPECT_EQ(values_of(*(*outputs)[0]), (std::vector<double>{11, 22}));

  options.constant_inputs["k"] = f32({3}, {1, 2, 3});
  EXPECT_EQ(
      import_error(g, options),
      "model.onnx: the value bound to input 'k' is tensor<3xf32>, but the input is tensor<2xf32>");
  options.constant_inputs.clear();
  options.constant_inputs["nope"] = f32({1}, {1});
  EXPECT_EQ(import_error(g, options),
            "model.onnx: a value is bound to 'nope', which is not an input of the model");
}

// ---- folding ----

// Shape -> Gather -> Concat -> Reshape, as exporters write a flatten, folds to a constant shape.
TEST(OnnxImporterTest, FoldsShapeComputations) {
  OnnxGraph g;
  g.input("x", onnx::TensorProto::FLOAT, {"batch", 3, 4});
  g.initializer("zero", *make_tensor(DType::i64, {1}, {0}));
  g.initializer("minus_one", *make_tensor(DType::i64, {1}, {-1}));
  g.node("Shape", {"x"}, {"shape"});
  g.int_attr(g.node("Gather", {"shape", "zero"}, {"batch"}), "axis", 0);
  g.int_attr(g.node("Concat", {"batch", "minus_one"}, {"new_shape"}), "axis", 0);
  g.node("Reshape", {"x", "new_shape"}, {"y"}, "flatten");
  g.output("y");
  Context context;
  OnnxImportOptions options;
  options.input_shapes["x"] = {2, 3, 4};
  auto module = import_graph(context, g, options);
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ(to_string(**module),
            "module @g\n"
            "\n"
            "func @main(%x: tensor<2x3x4xf32>) -> (tensor<2x12xf32>) {\n"
            "  %y = reshape(%x) {newshape = [2, -1]} : tensor<2x12xf32> loc(\"flatten\")\n"
            "  return %y\n"
            "}\n");
}

TEST(OnnxImporterTest, AKernelFailingWhileFoldingNamesTheNode) {
  OnnxGraph g;
  g.initializer("a", *make_tensor(DType::i32, {1}, {1}));
  g.initializer("b", *make_tensor(DType::i32, {1}, {0}));
  g.node("Div", {"a", "b"}, {"c"}, "div");
  g.output("c");
  EXPECT_EQ(import_error(g), "model.onnx: node 'div' (Div): divide: integer division by zero");
}

TEST(OnnxImporterTest, FoldingRespectsItsLimits) {
  OnnxGraph g;
  g.initializer("a", *f32({4}, {1, 2, 3, 4}));
  g.node("Neg", {"a"}, {"b"});
  g.node("Neg", {"b"}, {"c"});
  g.output("c");
  auto count_negatives = [&](const OnnxImportOptions& options) {
    Context context;
    auto module = import_graph(context, g, options);
    EXPECT_TRUE(module.ok());
    int negatives = 0;
    for (const auto& node : (*module)->find_function("main")->nodes())
      negatives += node->is_op("negative");
    return negatives;
  };
  // The limits are the importer's own; canonicalization (whose fold-constant pass has its
  // own limit) is off so that what import left is seen.
  EXPECT_EQ(count_negatives({.canonicalize = false}), 0);
  EXPECT_EQ(count_negatives({.max_fold_elements = 3, .canonicalize = false}), 2);
  // The budget is spent by the first fold; the second is left alone.
  EXPECT_EQ(count_negatives({.max_folded_elements = 4, .canonicalize = false}), 1);
  // Canonicalization folds what import left.
  EXPECT_EQ(count_negatives({.max_fold_elements = 3}), 0);
}

// ---- files ----

TEST(OnnxImporterTest, FileErrors) {
  Context context;
  auto missing = import_onnx_file(context, "/nonexistent/model.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "/nonexistent/model.onnx: cannot open: No such file or directory");
  auto folder = import_onnx_file(context, ::testing::TempDir());
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().message(), ::testing::TempDir() + ": is a folder, not a file");
}

TEST(OnnxImporterTest, ListsSupportedOps) {
  std::vector<std::string> ops = supported_onnx_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Constant"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "Relu"), ops.end());
}

}  // namespace
}  // namespace uma::test
