// STUB: to be written.
#include "uma/graph/parser.h"

namespace uma {

Expected<std::unique_ptr<Module>> parse_module(Context&, std::string_view, std::string_view) {
  return make_error("not yet");
}

}  // namespace uma
