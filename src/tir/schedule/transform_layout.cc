// transform_layout: a buffer's elements move to new indices given by an index map (NCHW to
// NHWC, OIHW to blocked O/16 x H x W x I x 16), and every access follows them; for a
// parameter, the function's calling convention changes and its attributes say how.
#include <algorithm>

#include <fmt/ranges.h>

#include "schedule_util.h"
#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"

namespace uma::tir {

namespace {

// "(o, i, h, w) -> (o / 16, h, w, i, o % 16)"
std::string map_text(const IndexMap& map) {
  std::vector<std::string> src, dst;
  for (const Var& v : map.src) src.push_back(to_string(v));
  for (const Expr& e : map.dst) dst.push_back(to_string(e));
  return fmt::format("({}) -> ({})", fmt::join(src, ", "), fmt::join(dst, ", "));
}

// Rewrites the accesses of `old` as accesses of `now` at the map's indices; records the
// first access it cannot rewrite.
class Relayout final : public sched::BoundedMutator {
 public:
  Relayout(sched::BlockRemap& remap, const Buffer& old, const Buffer& now, const IndexMap& map)
      : BoundedMutator(remap, {}), old_(old), now_(now), map_(map) {}
  using BoundedMutator::mutate;

  const std::optional<std::string>& error() const { return error_; }

 protected:
  Expr mutate(const LoadNode& op, const Expr& self) override {
    if (op.buffer != old_) return BoundedMutator::mutate(op, self);
    return LoadNode::make(now_, indices(op.indices));
  }
  Stmt mutate(const StoreNode& op, const Stmt& self) override {
    if (op.buffer != old_) return BoundedMutator::mutate(op, self);
    Expr value = mutate(op.value);
    return StoreNode::make(now_, value, indices(op.indices));
  }
  Expr mutate(const AddressNode& op, const Expr& self) override {
    if (op.buffer == old_ && !error_)
      error_ = fmt::format("%{} is passed by address (to an extern call), whose layout it fixes",
                           old_->name);
    return BoundedMutator::mutate(op, self);
  }
  Buffer mutate_buffer(const Buffer& buffer) override { return buffer == old_ ? now_ : buffer; }

 private:
  std::vector<Expr> indices(const std::vector<Expr>& old) {
    std::vector<Expr> in;
    for (const Expr& index : old) in.push_back(mutate(index));
    if (in.size() != map_.src.size()) {
      if (!error_)
        error_ = fmt::format("an access of %{} has {} indices for its {} dimensions", old_->name,
                             in.size(), map_.src.size());
      return in;
    }
    std::unordered_map<const VarNode*, Expr> at;
    for (std::size_t d = 0; d < in.size(); ++d) {
      if (in[d].type() != map_.src[d].type() && !error_)
        error_ = fmt::format("an index of %{} is of type {}, the map's variable '{}' of {}",
                             old_->name, to_string(in[d].type()), to_string(map_.src[d]),
                             to_string(map_.src[d].type()));
      at[map_.src[d].as<VarNode>()] = in[d];
    }
    if (error_) return in;
    std::vector<Expr> out;
    for (const Expr& e : map_.dst) out.push_back(simplify(substitute(e, at), known()));
    return out;
  }

  const Buffer& old_;
  const Buffer& now_;
  const IndexMap& map_;
  std::optional<std::string> error_;
};

}  // namespace

Expected<Buffer> Schedule::transform_layout(const Buffer& buffer, const IndexMap& map) {
  if (buffer == nullptr) return make_error("transform_layout: the buffer is null");
  const std::string& name = buffer->name;
  auto param = std::find(func_.params.begin(), func_.params.end(), buffer);
  if (param == func_.params.end() && !sched::allocates(func_.body, buffer))
    return make_error(
        "transform_layout: %{} is neither a parameter of function @{} nor allocated "
        "in it",
        name, func_.name);
  if (!buffer->strides.empty())
    return make_error("transform_layout: %{} has explicit strides", name);
  if (map.src.size() != buffer->shape.size())
    return make_error("transform_layout: the map has {} variables for the {} dimensions of %{}",
                      map.src.size(), buffer->shape.size(), name);
  if (map.dst.empty()) return make_error("transform_layout: the map of %{} gives no index", name);

  // The old indices range over the shape; the new shape covers what the map gives them.
  Bounds known;
  std::unordered_set<const VarNode*> src;
  for (std::size_t d = 0; d < map.src.size(); ++d) {
    const auto* var = map.src[d].as<VarNode>();
    if (var == nullptr || !src.insert(var).second)
      return make_error("transform_layout: index {} of the map of %{} is not a variable of its own",
                        d, name);
    auto extent = as_const_int(buffer->shape[d]);
    if (!extent)
      return make_error("transform_layout: dimension {} of %{} has extent {}, not a constant", d,
                        name, to_string(buffer->shape[d]));
    if (var->type != buffer->shape[d].type())
      return make_error(
          "transform_layout: the map's variable '{}' is of type {}, not %{}'s index "
          "type {}",
          var->name, to_string(var->type), name, to_string(buffer->shape[d].type()));
    known[var] = Interval::range(0, *extent);
  }
  std::vector<Expr> shape;
  for (std::size_t k = 0; k < map.dst.size(); ++k) {
    const Expr& e = map.dst[k];
    bool foreign = false;
    pre_order_visit(EvaluateNode::make(e), [&](const ExprNode* node, const StmtNode*) {
      if (node != nullptr && node->kind == ExprKind::Var &&
          !src.contains(static_cast<const VarNode*>(node)))
        foreign = true;
    });
    if (foreign || !e.type().is_scalar() || !is_integer(e.type().dtype))
      return make_error(
          "transform_layout: new index {} of %{} ({}) is not an integer of the map's variables", k,
          name, to_string(e));
    Interval range = bounds_of(e, known);
    if (range.min < 0 || !range.has_upper())
      return make_error("transform_layout: new index {} of %{} ({}) may be negative or unbounded",
                        k, name, to_string(e));
    shape.push_back(IntImmNode::make(e.type(), range.max + 1));
  }

  Buffer now = make_buffer(name, buffer->dtype, std::move(shape), buffer->scope);
  sched::BlockRemap remap;
  Relayout relayout(remap, buffer, now, map);
  Stmt body = relayout.mutate(func_.body);
  if (relayout.error()) return make_error("transform_layout: {}", *relayout.error());

  if (param != func_.params.end()) {
    *param = now;
    std::string key = "layout_transform." + name;
    std::vector<std::string> maps;
    if (const Attribute* applied = func_.attrs.find(key))
      if (const auto* list = std::get_if<std::vector<std::string>>(applied)) maps = *list;
    maps.push_back(map_text(map));
    func_.attrs.set(key, std::move(maps));
  }
  commit(std::move(body), remap);
  return now;
}

}  // namespace uma::tir
