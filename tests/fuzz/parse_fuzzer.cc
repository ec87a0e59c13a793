// libFuzzer target for the graph IR parser. Any bytes must give a module or one error,
// never a crash, a hang or a leak; and a module that parses must print, parse back and
// print the same text (print → parse → print is the identity), with and without data.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "uma/graph/parser.h"
#include "uma/graph/printer.h"
#include "uma/uma/context.h"

namespace {

void check_round_trip(uma::Context& context, const uma::Module& module,
                      const uma::PrintOptions& options) {
  std::string printed = uma::to_string(module, options);
  auto reparsed = uma::parse_module(context, printed, "printed");
  if (!reparsed) {
    std::fprintf(stderr, "printed text does not parse back: %s\n%s\n",
                 reparsed.error().message().c_str(), printed.c_str());
    std::abort();
  }
  std::string reprinted = uma::to_string(**reparsed, options);
  if (reprinted != printed) {
    std::fprintf(stderr, "print → parse → print changed the text:\n%s\n-----\n%s\n",
                 printed.c_str(), reprinted.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One op registry for every input, as a long-running tool would have.
  static uma::Context context;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = uma::parse_module(context, text, "fuzz");
  if (!module) return 0;
  check_round_trip(context, **module, {});
  check_round_trip(context, **module, {.elide_data = true});
  return 0;
}
