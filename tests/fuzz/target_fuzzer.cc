// libFuzzer target for target strings (`--target` text): each line of the input is one
// target. Any text must give targets or one error, never a crash; a target that parses
// prints (Target::str) as text that parses back to the same target, and a list that
// parse_targets accepts binds to the backends (the host's threads, vanilla's dimension).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_context.h"
#include "uma/uma/build.h"
#include "uma/uma/context.h"

namespace {

using uma::fuzz::fuzz_context;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s\n%s\n", what, detail.c_str());
  std::abort();
}

void check_round_trip(const uma::Target& target) {
  std::string printed = target.str();
  auto reparsed = fuzz_context().target_kinds().parse(printed);
  if (!reparsed)
    fail("a printed target does not parse back:", printed + "\n" + reparsed.error().message());
  if (reparsed->str() != printed) fail("print -> parse -> print changed the target:", printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = std::min(text.find('\n', begin), text.size());
    lines.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  for (const std::string& line : lines)
    if (auto target = fuzz_context().target_kinds().parse(line)) check_round_trip(*target);
  if (auto targets = uma::build::parse_targets(fuzz_context(), lines)) {
    for (const uma::Target& target : targets->backends) check_round_trip(target);
    check_round_trip(targets->host);
  }
  return 0;
}
