// Printing the graph IR in its text form (docs/graph-text-format.md).
#include "uma/graph/printer.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "lexer.h"

namespace uma {
namespace {

using text::quote;
using text::spell_name;

// The shortest text that reads back to the same value, with a '.' or an exponent so
// that it reads back as a float and not an integer.
template <typename T>
std::string format_float(T value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string out(buffer, result.ptr);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

// Nodes print the attributes that differ from their op's defaults, which the parser fills
// back in. (Calls have no schema; they carry only discardable attributes such as uma.target.)
template <typename F>
void for_each_printed_attr(const AttrMap& attrs, const OpDef* op, F&& f) {
  for (const auto& [name, value] : attrs) {
    const AttrDef* def = op != nullptr ? op->find_attr(name) : nullptr;
    if (def != nullptr && def->default_value && attr_equal(value, *def->default_value)) continue;
    f(name, value);
  }
}

// How the values of one function are spelled. A value keeps its own name when no other
// value of the function carries it; the others are numbered. Numbers cannot clash with
// names: a value named "0" prints as %"0", which the parser keeps apart from %0.
// A node with several results is named after its first result.
class LocalNames {
 public:
  explicit LocalNames(const Function& function) {
    std::unordered_map<std::string_view, int> uses_of_name;
    auto name_of = [](const Node& node) -> std::string_view {
      return node.num_results() == 0 ? std::string_view() : node.result(0)->name();
    };
    for (const Value* param : function.params()) ++uses_of_name[param->name()];
    for (const auto& node : function.nodes()) ++uses_of_name[name_of(*node)];
    int next_number = 0;
    auto assign = [&](const void* key, std::string_view name) {
      if (!name.empty() && uses_of_name[name] == 1)
        names_[key] = "%" + spell_name(name);
      else
        names_[key] = "%" + std::to_string(next_number++);
    };
    for (const Value* param : function.params()) assign(param, param->name());
    for (const auto& node : function.nodes()) assign(node.get(), name_of(*node));
  }

  const std::string& definition(const void* param_or_node) const {
    return names_.at(param_or_node);
  }

  // Printing serves debugging too (--print-after), so a broken module prints what it
  // can rather than crash: a value of another function shows as such.
  std::string use(const Value* value) const {
    const void* key = value->is_param() ? static_cast<const void*>(value) : value->producer();
    auto it = names_.find(key);
    if (it == names_.end()) return "<<value of another function>>";
    if (value->is_param() || value->producer()->num_results() == 1) return it->second;
    return it->second + "#" + std::to_string(value->index());
  }

 private:
  std::unordered_map<const void*, std::string> names_;
};

class ModulePrinter {
 public:
  ModulePrinter(std::ostream& os, const Module& module, const PrintOptions& options)
      : os_(os), module_(module), options_(options) {}

  void print() {
    name_referenced_tensors();
    bool first_section = true;
    auto separate = [&] {
      if (!first_section) os_ << '\n';
      first_section = false;
    };
    if (module_.name() != "module") {
      separate();
      os_ << "module @" << spell_name(module_.name()) << '\n';
    }
    for (const Function* function : module_.functions()) {
      separate();
      print_function(*function);
    }
    if (!referenced_.empty()) separate();
    for (const Tensor* tensor : referenced_) print_data(*tensor);
  }

 private:
  // Tensors without data cannot print inline, whatever their size.
  bool by_reference(const Tensor& tensor) const {
    return !tensor.has_data() || tensor.num_elements() > options_.inline_elements_limit;
  }

  // Gives each tensor printed by reference a module-unique name, in order of first use.
  // A tensor keeps its own name unless an earlier tensor took it; the parser names
  // tensors after their data entries, so printing a parsed module gives the same names.
  void name_referenced_tensors() {
    auto note = [&](const std::string&, const Attribute& value) {
      const auto* tensor = std::get_if<TensorPtr>(&value);
      if (tensor == nullptr || *tensor == nullptr || !by_reference(**tensor)) return;
      if (tensor_names_.emplace(tensor->get(), "").second) referenced_.push_back(tensor->get());
    };
    for (const Function* function : module_.functions()) {
      for_each_printed_attr(function->attrs(), nullptr, note);
      for (const auto& node : function->nodes())
        for_each_printed_attr(node->attrs(), &node->op(), note);
    }
    std::unordered_set<std::string> taken;
    for (const Tensor* tensor : referenced_)
      if (!tensor->name.empty() && taken.insert(tensor->name).second)
        tensor_names_[tensor] = tensor->name;
    int next_unnamed = 0;
    for (const Tensor* tensor : referenced_) {
      std::string& name = tensor_names_[tensor];
      if (!name.empty()) continue;
      int next_suffix = 1;
      do {
        name = tensor->name.empty() ? fmt::format("cst{}", next_unnamed++)
                                    : fmt::format("{}.{}", tensor->name, next_suffix++);
      } while (!taken.insert(name).second);
    }
  }

  void print_function(const Function& function) {
    LocalNames names(function);
    os_ << "func @" << spell_name(function.name()) << '(';
    for (std::size_t i = 0; i < function.num_params(); ++i) {
      if (i) os_ << ", ";
      const Value* param = function.param(i);
      os_ << names.definition(param) << ": " << to_string(param->type());
    }
    os_ << ") -> (";
    print_types(function.output_types());
    os_ << ')';
    if (!function.attrs().empty()) {
      os_ << " attributes ";
      print_attrs(function.attrs(), nullptr);
    }
    os_ << " {\n";
    for (const auto& node : function.nodes()) print_node(*node, names);
    os_ << "  return";
    for (std::size_t i = 0; i < function.outputs().size(); ++i)
      os_ << (i ? ", " : " ") << names.use(function.outputs()[i]);
    os_ << "\n}\n";
  }

  void print_node(const Node& node, const LocalNames& names) {
    os_ << "  " << names.definition(&node);
    if (node.num_results() != 1) os_ << ':' << node.num_results();
    os_ << " = " << node.op_name();
    if (node.is_op("call"))
      os_ << ' '
          << (node.callee() != nullptr ? "@" + spell_name(node.callee()->name()) : "<<no callee>>");
    if (node.num_operands() > 0 || node.is_op("call")) {
      os_ << '(';
      for (std::size_t i = 0; i < node.num_operands(); ++i)
        os_ << (i ? ", " : "") << names.use(node.operand(i));
      os_ << ')';
    }
    bool has_attrs = false;
    for_each_printed_attr(node.attrs(), &node.op(),
                          [&](const auto&, const auto&) { has_attrs = true; });
    if (has_attrs) {
      os_ << ' ';
      print_attrs(node.attrs(), &node.op());
    }
    if (node.num_results() > 0) {
      os_ << " : ";
      std::vector<Type> types;
      for (const Value* result : node.results()) types.push_back(result->type());
      print_types(types);
    }
    if (!node.name().empty()) os_ << " loc(" << quote(node.name()) << ')';
    os_ << '\n';
  }

  void print_types(const std::vector<Type>& types) {
    for (std::size_t i = 0; i < types.size(); ++i) os_ << (i ? ", " : "") << to_string(types[i]);
  }

  void print_attrs(const AttrMap& attrs, const OpDef* op) {
    os_ << '{';
    const char* separator = "";
    for_each_printed_attr(attrs, op, [&](const std::string& name, const Attribute& value) {
      os_ << separator << spell_name(name) << " = ";
      print_attr(value);
      separator = ", ";
    });
    os_ << '}';
  }

  template <typename T, typename F>
  void print_list(const std::vector<T>& items, F&& format) {
    os_ << '[';
    for (std::size_t i = 0; i < items.size(); ++i) os_ << (i ? ", " : "") << format(items[i]);
    os_ << ']';
  }

  void print_attr(const Attribute& value) {
    auto as_is = [](const auto& x) { return x; };
    auto as_float = [](double x) { return format_float(x); };
    auto as_string = [](const std::string& x) { return quote(x); };
    switch (attr_kind(value)) {
      case AttrKind::Int:
        os_ << std::get<std::int64_t>(value);
        break;
      case AttrKind::Float:
        os_ << format_float(std::get<double>(value));
        break;
      case AttrKind::String:
        os_ << quote(std::get<std::string>(value));
        break;
      case AttrKind::Ints:
        print_list(std::get<std::vector<std::int64_t>>(value), as_is);
        break;
      case AttrKind::Floats:
        print_list(std::get<std::vector<double>>(value), as_float);
        break;
      case AttrKind::Strings:
        print_list(std::get<std::vector<std::string>>(value), as_string);
        break;
      case AttrKind::Tensor:
        print_tensor(std::get<TensorPtr>(value));
        break;
    }
  }

  void print_tensor(const TensorPtr& tensor) {
    // Only a broken module holds a null tensor; say so rather than crash.
    if (tensor == nullptr) {
      os_ << "<<null tensor>>";
    } else if (by_reference(*tensor)) {
      os_ << '@' << spell_name(tensor_names_.at(tensor.get()));
    } else {
      os_ << "dense<[";
      for (std::int64_t i = 0; i < tensor->num_elements(); ++i) {
        if (i) os_ << ", ";
        print_element(*tensor, i);
      }
      os_ << "]> : " << to_string(tensor->type());
    }
  }

  void print_element(const Tensor& tensor, std::int64_t i) {
    switch (tensor.dtype()) {
      case DType::f32:
        os_ << format_float(tensor.data<float>()[i]);
        break;
      case DType::f16:
        os_ << format_float(f16_to_f32(tensor.data<std::uint16_t>()[i]));
        break;
      case DType::bf16:
        os_ << format_float(bf16_to_f32(tensor.data<std::uint16_t>()[i]));
        break;
      case DType::f64:
        os_ << format_float(tensor.data<double>()[i]);
        break;
      case DType::i8:
        os_ << static_cast<int>(tensor.data<std::int8_t>()[i]);
        break;
      case DType::i16:
        os_ << tensor.data<std::int16_t>()[i];
        break;
      case DType::i32:
        os_ << tensor.data<std::int32_t>()[i];
        break;
      case DType::i64:
        os_ << tensor.data<std::int64_t>()[i];
        break;
      case DType::u8:
        os_ << static_cast<int>(tensor.data<std::uint8_t>()[i]);
        break;
      case DType::u16:
        os_ << tensor.data<std::uint16_t>()[i];
        break;
      case DType::u32:
        os_ << tensor.data<std::uint32_t>()[i];
        break;
      case DType::u64:
        os_ << tensor.data<std::uint64_t>()[i];
        break;
      case DType::boolean:
        os_ << (tensor.data<std::uint8_t>()[i] != 0 ? "true" : "false");
        break;
    }
  }

  // Raw bytes in memory order (little-endian on every host uma runs on), written in
  // chunks so that a large weight never exists twice in memory as text.
  void print_data(const Tensor& tensor) {
    os_ << "data @" << spell_name(tensor_names_.at(&tensor)) << " : " << to_string(tensor.type())
        << " = ";
    if (options_.elide_data || !tensor.has_data()) {
      os_ << "elided\n";
      return;
    }
    static constexpr char kHex[] = "0123456789ABCDEF";
    os_ << "\"0x";
    char chunk[8192];
    std::size_t used = 0;
    for (std::byte b : tensor.bytes()) {
      auto value = static_cast<unsigned>(b);
      chunk[used++] = kHex[value >> 4];
      chunk[used++] = kHex[value & 0xF];
      if (used == sizeof chunk) {
        os_.write(chunk, static_cast<std::streamsize>(used));
        used = 0;
      }
    }
    os_.write(chunk, static_cast<std::streamsize>(used));
    os_ << "\"\n";
  }

  std::ostream& os_;
  const Module& module_;
  const PrintOptions& options_;
  std::vector<const Tensor*> referenced_;
  std::unordered_map<const Tensor*, std::string> tensor_names_;
};

}  // namespace

void print(std::ostream& os, const Module& module, const PrintOptions& options) {
  ModulePrinter(os, module, options).print();
}

std::string to_string(const Module& module, const PrintOptions& options) {
  std::ostringstream os;
  print(os, module, options);
  return os.str();
}

}  // namespace uma
