// The C emitter: names the functions of a translation unit, has a FunctionPrinter print
// each, and puts the includes, helpers and extern prototypes they need in front.
#include "uma/codegen/c/c_codegen.h"

#include <fmt/format.h>

#include <tuple>

#include "code_writer.h"
#include "function_printer.h"
#include "uma/tir/dma.h"
#include "uma/tir/functor.h"

namespace uma::codegen {
namespace {

// `"npu.h"`, `<npu/driver.h>`, or a bare `npu.h` (quoted): a header name without quotes,
// brackets, spaces, comment openers or line breaks inside.
Expected<std::string> include_line(const std::string& header) {
  std::string_view name = header;
  char open = '"', close = '"';
  if (name.size() >= 2 && ((name.front() == '"' && name.back() == '"') ||
                           (name.front() == '<' && name.back() == '>'))) {
    open = name.front();
    close = name.back();
    name = name.substr(1, name.size() - 2);
  }
  bool ok = !name.empty();
  for (char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || c == '.' || c == '/' || c == '+';
    ok = ok && safe;
  }
  if (!ok || name.find("//") != std::string_view::npos || name.find("/*") != std::string_view::npos)
    return make_error("codegen hook: '{}' is not a header name", header);
  return fmt::format("#include {}{}{}", open, name, close);
}

// The extern functions the default printing calls must be C identifiers: they are linked
// against by name, so renaming them would silently call something else.
Status check_extern_names(const tir::PrimFunc& func, NameTable& globals) {
  Status status;
  for (const tir::Stmt* code : {&func.body, &func.init, &func.fini}) {
    if (!code->defined()) continue;
    tir::pre_order_visit(*code, [&](const tir::ExprNode* e, const tir::StmtNode*) {
      if (e == nullptr || e->kind != tir::ExprKind::Call || !status.ok()) return;
      const auto* call = static_cast<const tir::CallNode*>(e);
      if (call->call_kind != tir::CallNode::CallKind::kExtern) return;
      // The core's DMA functions are the generator's own helpers (uma/tir/dma.h).
      if (call->name == tir::kCoreDmaStart || call->name == tir::kCoreDmaWait) return;
      if (!is_c_identifier(call->name) || is_c_keyword(call->name) ||
          call->name.rfind("uma_", 0) == 0) {
        status = make_error("function '{}': extern function name '{}' is not a usable C identifier",
                            func.name, call->name);
        return;
      }
      globals.reserve(call->name);
    });
  }
  return status;
}

}  // namespace

std::string requested_symbol(const tir::PrimFunc& func) {
  if (auto symbol = func.attrs.string_or_none("global_symbol")) return *symbol;
  return func.name;
}

Expected<CSource> generate_c(const std::vector<tir::PrimFunc>& funcs,
                             const CCodegenOptions& options) {
  UnitState unit(options);
  std::vector<std::string> includes = {"#include <math.h>", "#include <stdbool.h>",
                                       "#include <stddef.h>", "#include <stdint.h>",
                                       "#include <stdlib.h>"};
  for (const std::string& header : options.hooks.includes) {
    UMA_TRY_ASSIGN(std::string line, include_line(header));
    includes.push_back(std::move(line));
  }
  for (const tir::PrimFunc& func : funcs) UMA_TRY(check_extern_names(func, unit.globals));

  // Exported symbols first, so that they keep the names asked for wherever possible.
  CSource source;
  for (const tir::PrimFunc& func : funcs)
    source.functions.push_back(
        {func.name, unit.globals.unique(requested_symbol(func)), func.params.size()});
  for (std::size_t k = 0; k < funcs.size(); ++k) {
    CFunction& function = source.functions[k];
    if (funcs[k].init.defined())
      function.init_symbol = unit.globals.unique(function.symbol + "_init");
    if (funcs[k].fini.defined())
      function.fini_symbol = unit.globals.unique(function.symbol + "_fini");
  }
  std::vector<std::string> impl_names;
  for (const CFunction& function : source.functions)
    impl_names.push_back(unit.globals.unique(function.symbol + "_impl"));

  CodeWriter functions;
  for (std::size_t k = 0; k < funcs.size(); ++k) {
    const CFunction& function = source.functions[k];
    FunctionPrinter printer(funcs[k], function.symbol, impl_names[k], unit);
    functions.line("");
    UMA_TRY(printer.print(functions));
    // The init and fini are functions of the same parameters with another body.
    for (const auto& [suffix, code, symbol] :
         {std::tuple{"init", &funcs[k].init, &function.init_symbol},
          {"fini", &funcs[k].fini, &function.fini_symbol}}) {
      if (symbol->empty()) continue;
      tir::PrimFunc load_time = funcs[k];
      load_time.name = fmt::format("{}.{}", funcs[k].name, suffix);
      load_time.body = *code;
      FunctionPrinter load_printer(load_time, *symbol, unit.globals.unique(*symbol + "_impl"),
                                   unit);
      functions.line("");
      UMA_TRY(load_printer.print(functions));
    }
  }

  CodeWriter out;
  out.line("// Generated by uma from the loop IR. Each entry point is");
  out.line("//   int32_t f(void* const* args)");
  out.line("// with args[k] the address of the k-th parameter buffer; it returns 0 on success.");
  for (const std::string& line : includes) out.line(line);
  std::string helpers = unit.helpers.definitions();
  if (!helpers.empty()) {
    out.line("");
    out.append(helpers);
  }
  if (!unit.extern_prototypes.empty()) {
    out.line("");
    for (const auto& [name, prototype] : unit.extern_prototypes) out.line(prototype);
  }
  out.append(functions.str());
  source.code = out.str();
  return source;
}

}  // namespace uma::codegen
