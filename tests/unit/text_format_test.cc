// Unit tests of the graph IR's text form: printing, parsing, round trips, and every
// parser error with its exact message.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "uma/graph/builder.h"
#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

TensorType tensor_type(DType dtype, Shape shape) { return TensorType{dtype, std::move(shape)}; }

std::shared_ptr<Tensor> make_tensor(DType dtype, Shape shape, std::string name = "") {
  auto tensor = std::make_shared<Tensor>(tensor_type(dtype, std::move(shape)));
  // Negative values only where the dtype holds them.
  double offset = is_unsigned(dtype) ? 0 : -3;
  for (std::int64_t i = 0; i < tensor->num_elements(); ++i)
    tensor->set(i, static_cast<double>(i % 7) + offset);
  tensor->name = std::move(name);
  return tensor;
}

// An op with one attribute of each non-tensor kind, each with a default, so that tests
// can see defaults left out and filled back in.
void register_attr_op(Context& context) {
  OpDef op{.name = "test.attrs",
           .min_inputs = 0,
           .max_inputs = 1,
           .attrs = {{"f", AttrKind::Float, Attribute(1.0)},
                     {"fs", AttrKind::Floats, Attribute(std::vector<double>{})},
                     {"i", AttrKind::Int, Attribute(std::int64_t{0})},
                     {"is", AttrKind::Ints, Attribute(std::vector<std::int64_t>{})},
                     {"s", AttrKind::String, Attribute(std::string("same"))},
                     {"ss", AttrKind::Strings, Attribute(std::vector<std::string>{})},
                     {"t", AttrKind::Tensor, Attribute(TensorPtr())}},
           .infer = [](const std::vector<Type>&, const AttrMap&) -> Expected<std::vector<Type>> {
             return std::vector<Type>{tensor_type(DType::f32, {})};
           }};
  ASSERT_TRUE(context.ops().add(op).ok());
}

// print → parse → print is the identity; returns the text.
std::string expect_round_trip(Context& context, const Module& module, PrintOptions options = {}) {
  std::string first = to_string(module, options);
  auto parsed = parse_module(context, first, "first.uma");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message()) << "\n" << first;
  if (!parsed.ok()) return first;
  EXPECT_EQ(to_string(**parsed, options), first);
  return first;
}

std::string parse_and_print(std::string_view text, PrintOptions options = {}) {
  Context context;
  register_attr_op(context);
  auto module = parse_module(context, text, "t.uma");
  if (!module) return "error: " + module.error().message();
  return to_string(**module, options);
}

std::string parse_error(std::string_view text) {
  Context context;
  register_attr_op(context);
  auto module = parse_module(context, text, "t.uma");
  return module.ok() ? "<no error>" : module.error().message();
}

TEST(TextFormat, PrintsTheFormOfTheSpec) {
  Context context;
  Module module(context, "tiny");
  Function* main = module.add_function("main").value();
  Function* head = module.add_function("head").value();
  Value* a = head->add_param(tensor_type(DType::f32, {1, 4}), "a");
  head->set_outputs({a, a});
  head->mutable_attrs().set("Compiler", std::string("vanilla"));
  head->mutable_attrs().set("global_symbol", std::string("tiny_vanilla_main_0"));

  Value* x = main->add_param(tensor_type(DType::f32, {1, 4}), "x");
  Builder b(*main);
  Value* w = b.constant(make_tensor(DType::f32, {4, 3}, "conv1.weight"));
  w->set_name("w");
  Value* bias = b.constant(make_tensor(DType::f32, {4}));
  Node* call = b.call(head, {x});
  call->set_name("conv1");
  Value* t = b.tuple({call->result(0), call->result(1), bias});
  Value* item = b.get_item(t, 2);
  main->set_outputs({item, w});

  EXPECT_EQ(
      to_string(module),
      "module @tiny\n"
      "\n"
      "func @main(%x: tensor<1x4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>) {\n"
      "  %w = constant {value = @conv1.weight} : tensor<4x3xf32>\n"
      "  %0 = constant {value = dense<[-3.0, -2.0, -1.0, 0.0]> : tensor<4xf32>} : tensor<4xf32>\n"
      "  %1:2 = call @head(%x) : tensor<1x4xf32>, tensor<1x4xf32> loc(\"conv1\")\n"
      "  %2 = tuple(%1#0, %1#1, %0) : tuple<tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>>\n"
      "  %3 = get_item(%2) {index = 2} : tensor<4xf32>\n"
      "  return %3, %w\n"
      "}\n"
      "\n"
      "func @head(%a: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) attributes "
      "{Compiler = \"vanilla\", global_symbol = \"tiny_vanilla_main_0\"} {\n"
      "  return %a, %a\n"
      "}\n"
      "\n"
      "data @conv1.weight : tensor<4x3xf32> = "
      "\"0x000040C0000000C0000080BF000000000000803F0000004000004040000040C0000000C0000080BF0000"
      "00000000803F\"\n");
  expect_round_trip(context, module);
}

TEST(TextFormat, ModuleHeaderOnlyForANonDefaultName) {
  Context context;
  Module module(context);
  EXPECT_EQ(to_string(module), "");
  module.add_function("f").value()->set_outputs({});
  EXPECT_EQ(to_string(module), "func @f() -> () {\n  return\n}\n");
  module.set_name("my model");
  EXPECT_EQ(expect_round_trip(context, module),
            "module @\"my model\"\n\nfunc @f() -> () {\n  return\n}\n");
  EXPECT_EQ(parse_and_print("module @module"), "");
}

TEST(TextFormat, FloatsPrintShortestAndAlwaysAsFloats) {
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  f->set_outputs({});
  auto& attrs = f->mutable_attrs();
  attrs.set("a", 1.0);
  attrs.set("b", 1e-05);
  attrs.set("c", 0.1);
  attrs.set("d", std::numeric_limits<double>::infinity());
  attrs.set("e", -std::numeric_limits<double>::infinity());
  attrs.set("f", std::numeric_limits<double>::quiet_NaN());
  attrs.set("g", -0.0);
  attrs.set("h", 1e300);
  attrs.set("i", 5e-324);
  attrs.set("j", 123456789012.0);
  std::string text = expect_round_trip(context, module);
  EXPECT_NE(text.find("{a = 1.0, b = 1e-05, c = 0.1, d = inf, e = -inf, f = nan, g = -0.0, "
                      "h = 1e+300, i = 5e-324, j = 123456789012.0}"),
            std::string::npos)
      << text;
}

TEST(TextFormat, EveryDTypeRoundTripsInlineAndInTheDataSection) {
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  Builder b(*f);
  std::vector<Value*> outputs;
  for (DType dtype :
       {DType::f32, DType::f16, DType::bf16, DType::i8, DType::u8, DType::i32, DType::i64,
        DType::boolean, DType::f64, DType::i16, DType::u16, DType::u32, DType::u64}) {
    outputs.push_back(b.constant(make_tensor(dtype, {2, 3})));
    outputs.push_back(b.constant(make_tensor(dtype, {3, 3})));
  }
  f->set_outputs(outputs);
  std::string text = expect_round_trip(context, module);
  EXPECT_NE(text.find("dense<[-3.0, -2.0, -1.0, 0.0, 1.0, 2.0]> : tensor<2x3xf16>"),
            std::string::npos);
  EXPECT_NE(text.find("dense<[-3, -2, -1, 0, 1, 2]> : tensor<2x3xi8>"), std::string::npos);
  EXPECT_NE(text.find("dense<[0, 1, 2, 3, 4, 5]> : tensor<2x3xu8>"), std::string::npos);
  EXPECT_NE(text.find("dense<[true, true, true, false, true, true]> : tensor<2x3xbool>"),
            std::string::npos);
  EXPECT_NE(text.find("dense<[-3.0, -2.0, -1.0, 0.0, 1.0, 2.0]> : tensor<2x3xf64>"),
            std::string::npos);
  EXPECT_NE(text.find("dense<[-3, -2, -1, 0, 1, 2]> : tensor<2x3xi16>"), std::string::npos);
  for (const char* dtype : {"u16", "u32", "u64"})
    EXPECT_NE(text.find(fmt::format("dense<[0, 1, 2, 3, 4, 5]> : tensor<2x3x{}>", dtype)),
              std::string::npos)
        << dtype;
  EXPECT_NE(text.find("data @cst6 : tensor<3x3xi64> = \"0xFDFFFFFFFFFFFFFF"), std::string::npos);
  EXPECT_NE(text.find("data @cst9 : tensor<3x3xi16> = \"0xFDFFFEFFFFFF"), std::string::npos);
  EXPECT_NE(text.find("data @cst1 : tensor<3x3xf16> = \"0x00C200C0"), std::string::npos) << text;
}

TEST(TextFormat, InlineValuesReadBackExactly) {
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  Builder b(*f);
  auto f32 = std::make_shared<Tensor>(tensor_type(DType::f32, {6}));
  float f32_values[] = {
      0.1f, 1e-45f, 3.4028235e38f, -0.0f, std::numeric_limits<float>::infinity(), 16777217.0f};
  for (int i = 0; i < 6; ++i) f32->data<float>()[i] = f32_values[i];
  auto f16 = std::make_shared<Tensor>(tensor_type(DType::f16, {4}));
  std::uint16_t f16_bits[] = {0x2e66, 0x0001, 0x7bff, 0xfc00};  // 0.1, tiniest, max, -inf
  for (int i = 0; i < 4; ++i) f16->data<std::uint16_t>()[i] = f16_bits[i];
  auto bf16 = std::make_shared<Tensor>(tensor_type(DType::bf16, {3}));
  std::uint16_t bf16_bits[] = {0x3dcd, 0x0001, 0x7f7f};
  for (int i = 0; i < 3; ++i) bf16->data<std::uint16_t>()[i] = bf16_bits[i];
  auto i64 = std::make_shared<Tensor>(tensor_type(DType::i64, {2}));
  i64->data<std::int64_t>()[0] = std::numeric_limits<std::int64_t>::min();
  i64->data<std::int64_t>()[1] = std::numeric_limits<std::int64_t>::max();
  std::vector<TensorPtr> tensors = {f32, f16, bf16, i64};
  for (const TensorPtr& t : tensors) b.constant(t);
  f->set_outputs({});
  std::string text = expect_round_trip(context, module);
  EXPECT_NE(text.find("dense<[-9223372036854775808, 9223372036854775807]>"), std::string::npos);

  auto parsed = parse_module(context, text);
  ASSERT_TRUE(parsed.ok());
  std::size_t i = 0;
  for (const auto& node : (*parsed)->find_function("f")->nodes())
    EXPECT_TRUE(node->attrs().get_tensor("value")->same_contents(*tensors[i++]));
}

// The extremes of each dtype added for ONNX's wider types, printed exactly and read back to
// the same bits: f64 in its shortest form, u64 beyond int64's range.
TEST(TextFormat, WideAndSixteenBitLiteralsRoundTripExactly) {
  std::string text =
      "func @f() -> (tensor<4xf64>, tensor<2xi16>, tensor<2xu16>, tensor<2xu32>, tensor<3xu64>) "
      "{\n"
      "  %0 = constant {value = dense<[0.1, 5e-324, -1.7976931348623157e+308, -0.0]> : "
      "tensor<4xf64>} : tensor<4xf64>\n"
      "  %1 = constant {value = dense<[-32768, 32767]> : tensor<2xi16>} : tensor<2xi16>\n"
      "  %2 = constant {value = dense<[0, 65535]> : tensor<2xu16>} : tensor<2xu16>\n"
      "  %3 = constant {value = dense<[0, 4294967295]> : tensor<2xu32>} : tensor<2xu32>\n"
      "  %4 = constant {value = dense<[9007199254740993, 9223372036854775808, "
      "18446744073709551615]> : tensor<3xu64>} : tensor<3xu64>\n"
      "  return %0, %1, %2, %3, %4\n"
      "}\n";
  EXPECT_EQ(parse_and_print(text), text);
  Context context;
  auto module = parse_module(context, text, "t.uma");
  ASSERT_TRUE(module.ok()) << module.error().message();
  std::vector<TensorPtr> values;
  for (const auto& node : (*module)->find_function("f")->nodes())
    values.push_back(node->attrs().get_tensor("value"));
  ASSERT_EQ(values.size(), 5u);
  const TensorPtr& f64 = values[0];
  EXPECT_EQ(f64->data<double>()[0], 0.1);
  EXPECT_EQ(f64->data<double>()[1], std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::signbit(f64->data<double>()[3]));
  const TensorPtr& u64 = values[4];
  EXPECT_EQ(u64->data<std::uint64_t>()[0], (std::uint64_t{1} << 53) + 1);
  EXPECT_EQ(u64->data<std::uint64_t>()[2], std::numeric_limits<std::uint64_t>::max());
}

TEST(TextFormat, DefaultAttributesAreLeftOutAndFilledIn) {
  Context context;
  register_attr_op(context);
  std::string text =
      "func @f() -> (tensor<f32>, tensor<f32>) {\n"
      "  %0 = test.attrs : tensor<f32>\n"
      "  %1 = test.attrs {f = 2.5, fs = [1.0, 2.0], i = 3, is = [1, 2], s = \"other\", ss = "
      "[\"a\", "
      "\"\"], t = dense<[1]> : tensor<i32>} : tensor<f32>\n"
      "  return %0, %1\n"
      "}\n";
  auto module = parse_module(context, text);
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ(to_string(**module), text);
  const Node& plain = *(*module)->find_function("f")->nodes().front();
  EXPECT_EQ(plain.attrs().size(), 7u);
  EXPECT_EQ(plain.attrs().get_string("s"), "same");
  EXPECT_EQ(plain.attrs().get_float("f"), 1.0);
}

TEST(TextFormat, TheSchemaDecidesAmbiguousLiterals) {
  Context context;
  register_attr_op(context);
  auto module = parse_module(context,
                             "func @f() -> (tensor<f32>) {\n"
                             "  %0 = test.attrs {f = 3, fs = [1, 2.5, -4], ss = []}\n"
                             "  return %0\n"
                             "}\n");
  ASSERT_TRUE(module.ok()) << module.error().message();
  const AttrMap& attrs = (*module)->find_function("f")->nodes().front()->attrs();
  EXPECT_EQ(attrs.get_float("f"), 3.0);
  EXPECT_EQ(attrs.get_floats("fs"), (std::vector<double>{1.0, 2.5, -4.0}));
  EXPECT_TRUE(attrs.get_strings("ss").empty());
  EXPECT_NE(to_string(**module).find("{f = 3.0, fs = [1.0, 2.5, -4.0]}"), std::string::npos);
}

TEST(TextFormat, FunctionAttributesWithoutASchema) {
  Context context;
  auto module =
      parse_module(context,
                   "func @f() -> () attributes {Composite = \"npu.conv\", a = [], b = [1, "
                   "2.5], c = [\"x\"], d = -7, e = 7.0, g = dense<[1, 2]> : tensor<2xi8>, "
                   "\"odd name\" = 1} {\n  return\n}\n");
  ASSERT_TRUE(module.ok()) << module.error().message();
  const AttrMap& attrs = (*module)->find_function("f")->attrs();
  EXPECT_TRUE(attrs.get_ints("a").empty());
  EXPECT_EQ(attrs.get_floats("b"), (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(attrs.get_strings("c"), (std::vector<std::string>{"x"}));
  EXPECT_EQ(attrs.get_int("d"), -7);
  EXPECT_EQ(attrs.get_float("e"), 7.0);
  EXPECT_EQ(attrs.get_int("odd name"), 1);
  expect_round_trip(context, **module);
}

TEST(TextFormat, HostileNamesRoundTripAndStayInsideTheirQuotes) {
  Context context;
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte += static_cast<char>(c);
  const std::vector<std::string> names = {"\"); system(\"rm -rf /",
                                          "a b",
                                          "line\nbreak",
                                          "back\\slash",
                                          every_byte,
                                          "0",
                                          "1x2",
                                          "-",
                                          "%x",
                                          "@f",
                                          "ünï"};
  Module module(context, every_byte);
  std::vector<Function*> functions;
  for (const std::string& name : names) functions.push_back(module.add_function(name).value());
  for (std::size_t i = 0; i < names.size(); ++i)
    functions[i]->add_param(tensor_type(DType::f32, {2}), names[i]);
  for (std::size_t i = 0; i < names.size(); ++i) {
    Function* f = functions[i];
    Value* p = f->param(0);
    Builder b(*f);
    Value* c = b.constant(make_tensor(DType::i32, {16}, names[i]));
    c->set_name(names[(i + 1) % names.size()]);
    c->producer()->set_name(names[i]);
    f->mutable_attrs().set(names[i], names[i]);
    f->set_outputs({p, c});
  }
  for (std::size_t i = 0; i + 1 < names.size(); ++i) {
    Node* call = Builder(*functions[i]).call(functions[i + 1], {functions[i]->param(0)});
    call->set_name(names[i]);
    call->result(0)->set_name(names[i]);
  }
  std::string text = expect_round_trip(context, module);
  // Quotes, backslashes and line breaks only ever appear escaped inside strings: every
  // line is one construct of the format.
  EXPECT_NE(text.find("%\"\\\"); system(\\\"rm -rf /\""), std::string::npos);
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    std::string_view line(text.data() + start, end - start);
    EXPECT_TRUE(line.empty() || line.starts_with("  ") || line.starts_with("}") ||
                line.starts_with("func @") || line.starts_with("data @") ||
                line.starts_with("module @"))
        << line;
  }
}

TEST(TextFormat, NumbersNeverCollideWithNames) {
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  Value* p0 = f->add_param(tensor_type(DType::f32, {2}), "0");
  Value* p1 = f->add_param(tensor_type(DType::f32, {2}), "dup");
  Value* p2 = f->add_param(tensor_type(DType::f32, {2}), "dup");
  Value* p3 = f->add_param(tensor_type(DType::f32, {2}));
  Builder b(*f);
  Value* t = b.tuple({p0, p1, p2, p3});
  t->set_name("1");
  f->set_outputs({t, p0, p1, p2, p3});
  EXPECT_EQ(expect_round_trip(context, module),
            "func @f(%\"0\": tensor<2xf32>, %0: tensor<2xf32>, %1: tensor<2xf32>, %2: "
            "tensor<2xf32>) -> (tuple<tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>>, "
            "tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {\n"
            "  %\"1\" = tuple(%\"0\", %0, %1, %2) : tuple<tensor<2xf32>, tensor<2xf32>, "
            "tensor<2xf32>, tensor<2xf32>>\n"
            "  return %\"1\", %\"0\", %0, %1, %2\n"
            "}\n");
}

TEST(TextFormat, TensorsPrintOnceUnderClashFreeNames) {
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  Builder b(*f);
  TensorPtr shared = make_tensor(DType::f32, {9}, "w");
  TensorPtr other_w = make_tensor(DType::f32, {9}, "w");
  TensorPtr named_cst0 = make_tensor(DType::f32, {9}, "cst0");
  TensorPtr unnamed = make_tensor(DType::f32, {9});
  TensorPtr unnamed2 = make_tensor(DType::f32, {9});
  std::vector<Value*> outputs;
  for (const TensorPtr& t : {unnamed, shared, other_w, shared, named_cst0, unnamed2})
    outputs.push_back(b.constant(t));
  f->set_outputs(outputs);
  std::string text = expect_round_trip(context, module, {.elide_data = true});
  EXPECT_NE(text.find("data @cst1 : tensor<9xf32> = elided\n"
                      "data @w : tensor<9xf32> = elided\n"
                      "data @w.1 : tensor<9xf32> = elided\n"
                      "data @cst0 : tensor<9xf32> = elided\n"
                      "data @cst2 : tensor<9xf32> = elided\n"),
            std::string::npos)
      << text;
  auto parsed = parse_module(context, to_string(module));
  ASSERT_TRUE(parsed.ok());
  auto nodes = (*parsed)->find_function("f")->node_list();
  EXPECT_EQ(nodes[1]->attrs().get_tensor("value"), nodes[3]->attrs().get_tensor("value"));
  EXPECT_NE(nodes[1]->attrs().get_tensor("value"), nodes[2]->attrs().get_tensor("value"));
}

TEST(TextFormat, InlineLimitIsAnOption) {
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  f->set_outputs({Builder(*f).constant(make_tensor(DType::i8, {3}))});
  EXPECT_NE(to_string(module, {.inline_elements_limit = 2}).find("@cst0"), std::string::npos);
  EXPECT_NE(to_string(module, {.inline_elements_limit = 3}).find("dense<[-3, -2, -1]>"),
            std::string::npos);
}

TEST(TextFormat, ElidedDataParsesToTensorsWithoutData) {
  std::string text =
      "func @f() -> (tensor<1000000x1000000x1000000xf32>) {\n"
      "  %0 = constant {value = @big} : tensor<1000000x1000000x1000000xf32>\n"
      "  return %0\n"
      "}\n"
      "\n"
      "data @big : tensor<1000000x1000000x1000000xf32> = elided\n";
  Context context;
  auto module = parse_module(context, text);
  ASSERT_TRUE(module.ok()) << module.error().message();
  const TensorPtr& big =
      (*module)->find_function("f")->nodes().front()->attrs().get_tensor("value");
  EXPECT_FALSE(big->has_data());
  EXPECT_EQ(big->name, "big");
  EXPECT_EQ(to_string(**module), text);
  // Small tensors without data cannot print inline either.
  std::string small = parse_and_print(
      "func @f() -> () {\n  %0 = constant {value = @s}\n  return\n}\ndata @s : tensor<f32> = "
      "elided\n");
  EXPECT_NE(small.find("data @s : tensor<f32> = elided"), std::string::npos) << small;
}

TEST(TextFormat, EmptyTensorsAndScalars) {
  std::string text =
      "func @f(%s: tensor<f32>) -> (tensor<0x3xf32>, tensor<2x0xi64>, tensor<f32>, tensor<i8>) {\n"
      "  %0 = constant {value = dense<[]> : tensor<0x3xf32>} : tensor<0x3xf32>\n"
      "  %1 = constant {value = dense<[]> : tensor<2x0xi64>} : tensor<2x0xi64>\n"
      "  %2 = constant {value = dense<[7]> : tensor<i8>} : tensor<i8>\n"
      "  return %0, %1, %s, %2\n"
      "}\n";
  EXPECT_EQ(parse_and_print(text), text);
  std::string by_reference =
      "func @f() -> (tensor<2x0xi64>, tensor<i8>) {\n"
      "  %0 = constant {value = @e} : tensor<2x0xi64>\n"
      "  %1 = constant {value = @cst0} : tensor<i8>\n"
      "  return %0, %1\n"
      "}\n"
      "\n"
      "data @e : tensor<2x0xi64> = \"0x\"\n"
      "data @cst0 : tensor<i8> = \"0x07\"\n";
  EXPECT_EQ(parse_and_print(by_reference, {.inline_elements_limit = -1}), by_reference);
}

TEST(TextFormat, ForwardReferencesAndInferredTypes) {
  std::string text =
      "func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi8>) {\n"
      "  %r:2 = call @helper(%x)\n"
      "  %w = constant {value = @weights}\n"
      "  %t = tuple(%r#1, %w)\n"
      "  %i = get_item(%t) {index = 0}\n"
      "  return %r#0, %i\n"
      "}\n"
      "func @helper(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi8>) {\n"
      "  %c = constant {value = dense<[1, 2, 3]> : tensor<3xi8>}\n"
      "  return %a, %c\n"
      "}\n"
      "data @weights : tensor<9xf32> = \"0x" +
      std::string(72, '0') + "\"\n";
  EXPECT_EQ(parse_and_print(text),
            "func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi8>) {\n"
            "  %r:2 = call @helper(%x) : tensor<2xf32>, tensor<3xi8>\n"
            "  %w = constant {value = @weights} : tensor<9xf32>\n"
            "  %t = tuple(%r#1, %w) : tuple<tensor<3xi8>, tensor<9xf32>>\n"
            "  %i = get_item(%t) {index = 0} : tensor<3xi8>\n"
            "  return %r#0, %i\n"
            "}\n"
            "\n"
            "func @helper(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi8>) {\n"
            "  %c = constant {value = dense<[1, 2, 3]> : tensor<3xi8>} : tensor<3xi8>\n"
            "  return %a, %c\n"
            "}\n"
            "\n"
            "data @weights : tensor<9xf32> = \"0x" +
                std::string(72, '0') + "\"\n");
}

TEST(TextFormat, NodesWithoutResultsAndCommentsAndLooseSpacing) {
  std::string text =
      "// a comment\n"
      "func @main ( ) -> ( ) {  // another\n"
      "  %7 : 0 = call @sink ( ) loc ( \"s\" )\n"
      "  %x = tuple ( ) : tuple < >\n"
      "  return\n"
      "}\n"
      "func @sink() -> () { return }\n";
  EXPECT_EQ(parse_and_print(text),
            "func @main() -> () {\n"
            "  %0:0 = call @sink() loc(\"s\")\n"
            "  %x = tuple : tuple<>\n"
            "  return\n"
            "}\n"
            "\n"
            "func @sink() -> () {\n"
            "  return\n"
            "}\n");
}

std::string repeat(std::string_view text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

struct ErrorCase {
  std::string text;
  std::string message;
};

// One case per error the parser can report, with its exact text.
const ErrorCase kErrorCases[] = {
    // Tokens.
    {"%", "t.uma:1:1: error: expected a name after '%'"},
    {"func @", "t.uma:1:6: error: expected a name after '@'"},
    {"\n  ?", "t.uma:2:3: error: unexpected character '?'"},
    {"\x01", "t.uma:1:1: error: unexpected character '\\x01'"},
    {"module @\"abc\nfunc", "t.uma:1:9: error: unterminated string"},
    {"module @\"a\\x4g\"", "t.uma:1:11: error: escape '\\x' needs two hex digits"},
    {"module @\"a\\t\"", "t.uma:1:11: error: unknown escape '\\t' in string"},
    // Declarations.
    {"module f", "t.uma:1:8: error: expected a module name, found 'f'"},
    {"fun @f", "t.uma:1:1: error: expected 'func', 'data' or end of input, found 'fun'"},
    {"func f", "t.uma:1:6: error: expected a function name, found 'f'"},
    {"func @f() -> () { return }\nfunc @f", "t.uma:2:6: error: redefinition of function @f"},
    {"func @f[", "t.uma:1:8: error: expected '(', found '['"},
    {"func @f(x", "t.uma:1:9: error: expected a parameter name, found 'x'"},
    {"func @f(%a: tensor<f32>, %a", "t.uma:1:26: error: redefinition of value %a"},
    {"func @f(%a tensor", "t.uma:1:12: error: expected ':', found 'tensor'"},
    {"func @f(%a: tensor<f32> %b", "t.uma:1:25: error: expected ',' or ')', found '%b'"},
    {"func @f() (", "t.uma:1:11: error: expected '->', found '('"},
    {"func @f() -> tensor", "t.uma:1:14: error: expected '(', found 'tensor'"},
    {"func @f() -> (tensor<f32>]", "t.uma:1:26: error: expected ',' or ')', found ']'"},
    {"func @f() -> () attributes [", "t.uma:1:28: error: expected '{', found '['"},
    {"func @f() -> () [", "t.uma:1:17: error: expected 'attributes' or '{', found '['"},
    {"data f", "t.uma:1:6: error: expected a data name, found 'f'"},
    {"data @w : tensor<f32> = elided\ndata @w", "t.uma:2:6: error: redefinition of data @w"},
    {"data @w = ", "t.uma:1:9: error: expected ':', found '='"},
    {"data @w : tensor<f32> \"0x\"", "t.uma:1:23: error: expected '=', found '\"0x\"'"},
    {"data @w : tensor<f32> = 0",
     "t.uma:1:25: error: expected a hex string or 'elided', found '0'"},
    {"data @w : tensor<f32> = \"1234\"",
     "t.uma:1:25: error: expected a hex string starting with 0x, found '\"1234\"'"},
    {"data @w : tensor<2xi8> = \"0x123\"",
     "t.uma:1:26: error: data @w has 3 hex digit(s), but tensor<2xi8> takes 4"},
    {"data @w : tensor<1000000000000000000xi8> = \"0x00\"",
     "t.uma:1:44: error: data @w has 2 hex digit(s), but tensor<1000000000000000000xi8> takes "
     "2000000000000000000"},
    {"data @w : tensor<2xi8> = \"0x12g4\"", "t.uma:1:31: error: invalid hex digit 'g' in data @w"},
    // Types.
    {"data @w : tuple<>", "t.uma:1:11: error: expected 'tensor', found 'tuple'"},
    {"func @f(%a: i32", "t.uma:1:13: error: expected a type, found 'i32'"},
    {"func @f(%a: tuple(", "t.uma:1:18: error: expected '<', found '('"},
    {"func @f(%a: tuple<tensor<f32> tensor",
     "t.uma:1:31: error: expected ',' or '>', found 'tensor'"},
    {"func @f(%a: " + repeat("tuple<", 65), "t.uma:1:397: error: types nest deeper than 64 levels"},
    {"func @f(%a: tensor(", "t.uma:1:19: error: expected '<', found '('"},
    {"func @f(%a: tensor<99999999999999999999xf32>",
     "t.uma:1:20: error: dimension 99999999999999999999 does not fit in 64 bits"},
    {"func @f(%a: tensor<2x-xf32>", "t.uma:1:22: error: expected a dimension, found '-'"},
    {"func @f(%a: tensor<2>", "t.uma:1:21: error: expected 'x' after a dimension, found '>'"},
    {"func @f(%a: tensor<2f32>", "t.uma:1:21: error: expected 'x' after a dimension, found 'f32'"},
    {"func @f(%a: tensor<2xc64>",
     "t.uma:1:22: error: expected a dtype (f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, "
     "u64, bool), found 'c64'"},
    {"func @f(%a: tensor<>",
     "t.uma:1:20: error: expected a dtype (f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, "
     "u64, bool), found '>'"},
    {"func @f(%a: tensor<f32 x>", "t.uma:1:24: error: expected '>', found 'x'"},
    {"func @f(%a: tensor<-1x2xf32>", "t.uma:1:13: error: negative dimension -1 in shape -1x2"},
    {"func @f(%a: tensor<4294967296x4294967296xf32>",
     "t.uma:1:13: error: shape 4294967296x4294967296 has more elements than fit in 64 bits"},
    {"func @f(%a: tensor<2000000000000000000xf32>",
     "t.uma:1:13: error: shape 2000000000000000000 is too large"},
    // Bodies.
    {"func @f() -> () attributes {a = } {",
     "t.uma:1:33: error: expected an attribute value, found '}'"},
    {"func @f() -> () {", "t.uma:1:18: error: expected a node or 'return', found end of input"},
    {"func @f() -> () { %0 = tuple : tuple<> }",
     "t.uma:1:40: error: expected a node or 'return', found '}'"},
    {"func @f() -> () {\n  return %", "t.uma:2:10: error: expected a name after '%'"},
    {"func @f(%a: tensor<f32>) -> () { return %a %a }",
     "t.uma:1:44: error: expected ',' or '}', found '%a'"},
    {"func @f() -> () { return ) }", "t.uma:1:26: error: expected a value or '}', found ')'"},
    {"func @f(%a: tensor<f32>) -> () { return %a }",
     "t.uma:1:34: error: @f returns 1 value(s), but its signature declares 0"},
    {"func @f(%a: tensor<f32>) -> (tensor<i8>) { return %a }",
     "t.uma:1:51: error: type mismatch: @f returns tensor<f32> as result 0, but its signature "
     "declares tensor<i8>"},
    {"func @f() -> () {\n  return\n}\nfunc @g() -> () {\n  return\n\nfunc @h() -> () { return }\n",
     "t.uma:7:1: error: expected a value or '}', found 'func'"},
    // Nodes.
    {"func @f(%a: tensor<f32>) -> () { %a = tuple", "t.uma:1:34: error: redefinition of value %a"},
    {"func @f() -> () { %0 = tuple\n %0 = tuple", "t.uma:2:2: error: redefinition of value %0"},
    {"func @f() -> () { %0: = tuple", "t.uma:1:23: error: expected a result count, found '='"},
    {"func @f() -> () { %0:-1 = tuple", "t.uma:1:22: error: expected a result count, found '-1'"},
    {"func @f() -> () { %0 tuple", "t.uma:1:22: error: expected '=', found 'tuple'"},
    {"func @f() -> () { %0 = @g", "t.uma:1:24: error: expected an op name, found '@g'"},
    {"func @f() -> () { %0 = nn.magic()", "t.uma:1:24: error: unknown op 'nn.magic'"},
    {"func @f() -> () { %0 = call(", "t.uma:1:28: error: expected a function name, found '('"},
    {"func @f() -> () { %0 = call @g()", "t.uma:1:29: error: undefined function @g"},
    {"func @f(%a: tensor<f32>) -> () { %0 = tuple(%a %a",
     "t.uma:1:48: error: expected ',' or ')', found '%a'"},
    {"func @f() -> () { %0 = tuple loc[", "t.uma:1:33: error: expected '(', found '['"},
    {"func @f() -> () { %0 = tuple loc(x", "t.uma:1:34: error: expected a string, found 'x'"},
    {"func @f() -> () { %0 = tuple loc(\"x\"",
     "t.uma:1:37: error: expected ')', found end of input"},
    {"func @f() -> () { %0 = tuple : f32", "t.uma:1:32: error: expected a type, found 'f32'"},
    {"func @f() -> () { %0 = get_item {index = 0}",
     "t.uma:1:24: error: node %0 (get_item): op get_item takes 1 operand(s), got 0"},
    {"func @f(%a: tensor<f32>) -> () { %0 = get_item(%a) {index = 0}",
     "t.uma:1:39: error: node %0 (get_item): operand is tensor<f32>, not a tuple"},
    {"func @f() -> () { %\"x y\" = constant",
     "t.uma:1:28: error: node %\"x y\" (constant): op constant requires attribute 'value'"},
    {"func @f(%a: tensor<f32>) -> () { %0 = call @f()",
     "t.uma:1:39: error: node %0 (call): call to @f passes 0 argument(s), the function takes 1"},
    {"func @f(%a: tensor<f32>) -> () { %0 = call @f(%0)", "t.uma:1:47: error: undefined value %0"},
    {"func @f() -> () { %0:2 = tuple",
     "t.uma:1:22: error: node %0 (tuple) has 1 result(s), but the text names 2"},
    {"func @f() -> () { %0 = call @f()",
     "t.uma:1:19: error: node %0 (call) has 0 result(s), but the text names 1"},
    {"func @f() -> () { %0 = tuple : tuple<>, tuple<>",
     "t.uma:1:32: error: node %0 (tuple) has 1 result(s), but 2 type(s) are written"},
    {"func @f() -> () { %0 = tuple : tensor<f32>",
     "t.uma:1:32: error: type mismatch: node %0 (tuple) result 0 is inferred as tuple<>, but "
     "written as tensor<f32>"},
    // Uses.
    {"func @f() -> () { %0 = tuple(,", "t.uma:1:30: error: expected a value, found ','"},
    {"func @f() -> () { %0:0 = call @f()\n %1 = tuple(%0)", "t.uma:2:13: error: %0 has no results"},
    {"func @f() -> (tensor<f32>, tensor<f32>) { %0:2 = call @f()\n %1 = tuple(%0)",
     "t.uma:2:13: error: %0 has 2 results; name one as %0#<index>"},
    {"func @f(%a: tensor<f32>) -> () { %0 = tuple(%a#x)",
     "t.uma:1:48: error: expected a result number, found 'x'"},
    {"func @f(%a: tensor<f32>) -> () { %0 = tuple(%a#1)",
     "t.uma:1:48: error: %a#1 is out of range: %a has 1 result(s)"},
    {"func @f(%a: tensor<f32>) -> () { %0 = tuple(%a#99999999999999999999)",
     "t.uma:1:48: error: %a#99999999999999999999 is out of range: %a has 1 result(s)"},
    // Attributes.
    {"func @f() -> () attributes x", "t.uma:1:28: error: expected '{', found 'x'"},
    {"func @f() -> () { %0 = test.attrs {1 = 2}",
     "t.uma:1:36: error: expected an attribute name, found '1'"},
    {"func @f() -> () { %0 = test.attrs {i = 1, i = 2}",
     "t.uma:1:43: error: attribute 'i' is given twice"},
    {"func @f() -> () { %0 = test.attrs {j = 1}",
     "t.uma:1:36: error: unknown attribute 'j' for op test.attrs"},
    {"func @f() -> () { %0 = test.attrs {\"a b\" = 1}",
     "t.uma:1:36: error: unknown attribute '\"a b\"' for op test.attrs"},
    {"func @f() -> () { %0 = test.attrs {i : 1}", "t.uma:1:38: error: expected '=', found ':'"},
    {"func @f() -> () { %0 = test.attrs {i = 1 s",
     "t.uma:1:42: error: expected ',' or '}', found 's'"},
    {"func @f() -> () { %0 = test.attrs {i = 1.5}",
     "t.uma:1:40: error: expected an integer, found '1.5'"},
    {"func @f() -> () { %0 = test.attrs {f = \"x\"}",
     "t.uma:1:40: error: expected a float, found '\"x\"'"},
    {"func @f() -> () { %0 = test.attrs {s = 1}",
     "t.uma:1:40: error: expected a string, found '1'"},
    {"func @f() -> () { %0 = test.attrs {is = 1}",
     "t.uma:1:41: error: expected a list of integers, found '1'"},
    {"func @f() -> () { %0 = test.attrs {fs = @w}",
     "t.uma:1:41: error: expected a list of floats, found '@w'"},
    {"func @f() -> () { %0 = test.attrs {ss = \"a\"}",
     "t.uma:1:41: error: expected a list of strings, found '\"a\"'"},
    {"func @f() -> () { %0 = test.attrs {t = [1]}",
     "t.uma:1:40: error: expected a tensor, found '['"},
    {"func @f() -> () { %0 = test.attrs {i = 99999999999999999999}",
     "t.uma:1:40: error: integer 99999999999999999999 does not fit in 64 bits"},
    {"func @f() -> () { %0 = test.attrs {f = 1e999}",
     "t.uma:1:40: error: float 1e999 is out of range"},
    {"func @f() -> () attributes {a = [[1]]} {",
     "t.uma:1:34: error: expected an integer, float or string, found '['"},
    {"func @f() -> () attributes {a = [\"x\", 1]} {",
     "t.uma:1:39: error: expected a string, found '1'"},
    {"func @f() -> () attributes {a = [1, \"x\"]} {",
     "t.uma:1:37: error: expected a number, found '\"x\"'"},
    {"func @f() -> () attributes {a = [1, ]} {", "t.uma:1:37: error: expected a number, found ']'"},
    {"func @f() -> () { %0 = test.attrs {is = [1, 2.5]}",
     "t.uma:1:45: error: expected an integer, found '2.5'"},
    {"func @f() -> () { %0 = test.attrs {fs = [1, \"x\"]}",
     "t.uma:1:45: error: expected a number, found '\"x\"'"},
    {"func @f() -> () { %0 = test.attrs {ss = [\"x\", 1]}",
     "t.uma:1:47: error: expected a string, found '1'"},
    {"func @f() -> () { %0 = test.attrs {is = [1 2]}",
     "t.uma:1:44: error: expected ',' or ']', found '2'"},
    // Tensor literals.
    {"func @f() -> () { %0 = constant {value = @nowhere}",
     "t.uma:1:42: error: undefined data @nowhere"},
    {"func @f() -> () { %0 = constant {value = dense[",
     "t.uma:1:47: error: expected '<', found '['"},
    {"func @f() -> () { %0 = constant {value = dense<1",
     "t.uma:1:48: error: expected '[', found '1'"},
    {"func @f() -> () { %0 = constant {value = dense<[,",
     "t.uma:1:49: error: expected a number, found ','"},
    {"func @f() -> () { %0 = constant {value = dense<[1 2",
     "t.uma:1:51: error: expected ',' or ']', found '2'"},
    {"func @f() -> () { %0 = constant {value = dense<[1]]",
     "t.uma:1:51: error: expected '>', found ']'"},
    {"func @f() -> () { %0 = constant {value = dense<[1]> tensor",
     "t.uma:1:53: error: expected ':', found 'tensor'"},
    {"func @f() -> () { %0 = constant {value = dense<[1]> : tuple<>",
     "t.uma:1:55: error: expected 'tensor', found 'tuple'"},
    {"func @f() -> () { %0 = constant {value = dense<[1, 2]> : tensor<3xf32>}",
     "t.uma:1:42: error: dense<> has 2 element(s), but tensor<3xf32> has 3"},
    {"func @f() -> () { %0 = constant {value = dense<[1]> : tensor<1000000000000000000xf32>}",
     "t.uma:1:42: error: dense<> has 1 element(s), but tensor<1000000000000000000xf32> has "
     "1000000000000000000"},
    {"func @f() -> () { %0 = constant {value = dense<[1]> : tensor<bool>}",
     "t.uma:1:49: error: expected 'true' or 'false', found '1'"},
    {"func @f() -> () { %0 = constant {value = dense<[yes]> : tensor<f32>}",
     "t.uma:1:49: error: expected a number, found 'yes'"},
    {"func @f() -> () { %0 = constant {value = dense<[1e39]> : tensor<f32>}",
     "t.uma:1:49: error: 1e39 is out of range for f32"},
    {"func @f() -> () { %0 = constant {value = dense<[1e-50]> : tensor<f32>}",
     "t.uma:1:49: error: 1e-50 is out of range for f32"},
    {"func @f() -> () { %0 = constant {value = dense<[70000]> : tensor<f16>}",
     "t.uma:1:49: error: 70000 is out of range for f16"},
    {"func @f() -> () { %0 = constant {value = dense<[1e39]> : tensor<bf16>}",
     "t.uma:1:49: error: 1e39 is out of range for bf16"},
    {"func @f() -> () { %0 = constant {value = dense<[1.0]> : tensor<i32>}",
     "t.uma:1:49: error: expected an integer, found '1.0'"},
    {"func @f() -> () { %0 = constant {value = dense<[-129]> : tensor<i8>}",
     "t.uma:1:49: error: -129 is out of range for i8"},
    {"func @f() -> () { %0 = constant {value = dense<[256]> : tensor<u8>}",
     "t.uma:1:49: error: 256 is out of range for u8"},
    {"func @f() -> () { %0 = constant {value = dense<[2147483648]> : tensor<i32>}",
     "t.uma:1:49: error: 2147483648 is out of range for i32"},
    {"func @f() -> () { %0 = constant {value = dense<[9223372036854775808]> : tensor<i64>}",
     "t.uma:1:49: error: 9223372036854775808 is out of range for i64"},
    {"func @f() -> () { %0 = constant {value = dense<[1e309]> : tensor<f64>}",
     "t.uma:1:49: error: 1e309 is out of range for f64"},
    {"func @f() -> () { %0 = constant {value = dense<[32768]> : tensor<i16>}",
     "t.uma:1:49: error: 32768 is out of range for i16"},
    {"func @f() -> () { %0 = constant {value = dense<[-1]> : tensor<u16>}",
     "t.uma:1:49: error: -1 is out of range for u16"},
    {"func @f() -> () { %0 = constant {value = dense<[4294967296]> : tensor<u32>}",
     "t.uma:1:49: error: 4294967296 is out of range for u32"},
    {"func @f() -> () { %0 = constant {value = dense<[18446744073709551616]> : tensor<u64>}",
     "t.uma:1:49: error: 18446744073709551616 is out of range for u64"},
    {"func @f() -> () { %0 = constant {value = dense<[-1]> : tensor<u64>}",
     "t.uma:1:49: error: -1 is out of range for u64"},
    {"func @f() -> () { %0 = constant {value = dense<[0.5]> : tensor<u64>}",
     "t.uma:1:49: error: expected an integer, found '0.5'"},
};

TEST(TextFormat, ParserErrorsSayExactlyWhatAndWhere) {
  for (const ErrorCase& c : kErrorCases) EXPECT_EQ(parse_error(c.text), c.message) << c.text;
}

// Inference could build huge or deeply nested types from short text; both are errors.
TEST(TextFormat, InferredTypesStayBounded) {
  std::string deep = "func @f(%v0: tensor<f32>) -> () {\n";
  for (int i = 1; i <= 65; ++i) deep += fmt::format("  %v{} = tuple(%v{})\n", i, i - 1);
  EXPECT_EQ(parse_error(deep),
            "t.uma:66:10: error: node %v65 (tuple): its result type nests tuples deeper than 64 "
            "levels");

  std::string doubling = "func @f(%v0: tensor<f32>) -> () {\n";
  for (int i = 1; i <= 40; ++i)
    doubling += fmt::format("  %v{} = tuple(%v{}, %v{})\n", i, i - 1, i - 1);
  EXPECT_EQ(parse_error(doubling),
            "t.uma:16:10: error: node %v15 (tuple): types grow too large for the size of the text");

  // Each call copies its callee's declared types.
  std::string calls = "func @f() -> () {\n";
  for (int i = 0; i < 1000; ++i) calls += fmt::format("  %r{} = call @g()\n", i);
  calls +=
      "  return\n}\nfunc @g() -> (tuple<" + repeat("tensor<f32>, ", 1999) + "tensor<f32>>) {}\n";
  std::string message = parse_error(calls);
  EXPECT_TRUE(message.ends_with("(call): types grow too large for the size of the text"))
      << message;
}

TEST(TextFormat, ErrorsNameTheFile) {
  Context context;
  auto module = parse_module(context, "bad", "models/x.uma");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message(),
            "models/x.uma:1:1: error: expected 'func', 'data' or end of input, found 'bad'");
}

TEST(TextFormat, LongTokensAreShortenedInMessages) {
  EXPECT_EQ(parse_error("x" + std::string(100, 'y')),
            "t.uma:1:1: error: expected 'func', 'data' or end of input, found "
            "'xyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...'");
}

// A large weight and a long function parse in time linear in their size.
TEST(TextFormat, LargeInputsParseQuickly) {
  constexpr std::int64_t kElements = 4 << 20;  // 16 MB of f32, 32 MB of hex
  Context context;
  Module module(context);
  Function* f = module.add_function("f").value();
  Builder b(*f);
  Value* weight = b.constant(make_tensor(DType::f32, {kElements}, "w"));
  Value* last = weight;
  for (int i = 0; i < 25000; ++i) last = b.get_item(b.tuple({last}), 0);
  f->set_outputs({last});
  auto start = std::chrono::steady_clock::now();
  std::string text = expect_round_trip(context, module);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(text.size(), static_cast<std::size_t>(kElements * 8));
  // Generous: a quadratic parser would take minutes; sanitizer builds are slower.
  EXPECT_LT(seconds, 30.0);
}

}  // namespace
}  // namespace uma
