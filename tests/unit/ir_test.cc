// Unit tests of the graph IR's data structures and use lists.
#include <gtest/gtest.h>

#include "uma/graph/builder.h"
#include "uma/graph/context.h"

namespace uma {
namespace {

TEST(Ir, Placeholder) { SUCCEED(); }

}  // namespace
}  // namespace uma
