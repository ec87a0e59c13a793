// A match copied into a composite function (see uma/partition/composite.h).
#include "uma/partition/composite.h"

#include <string>

#include "uma/graph/rewriter.h"
#include "uma/partition/partition.h"

namespace uma {

void copy_match(const Match& match, Function& composite, std::string_view name) {
  if (!name.empty()) {
    std::string ops;
    for (const Node* node : match.nodes)
      if (!node->is_op("constant")) ops += node->op_name() + "_";
    composite.mutable_attrs().set(std::string(kCompositeAttr), std::string(name));
    composite.mutable_attrs().set("PartitionedFromPattern", ops);
  }
  ValueMap mapping;
  for (Value* input : match.inputs)
    mapping[input] = composite.add_param(input->type(), input->name());
  Rewriter(composite).clone(match.nodes, mapping);
  composite.set_outputs({mapping.at(match.root)});
}

}  // namespace uma
