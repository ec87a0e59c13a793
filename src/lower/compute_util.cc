// Helpers for writing compute rules.
#include "uma/lower/compute_util.h"

#include <cmath>
#include <limits>

#include "uma/op/layout.h"

namespace uma::lower {

using namespace tir;

namespace {

bool is_predicate(std::string_view name) {
  return name == "isnan" || name == "isinf" || name == "isfinite";
}

// The least and greatest values of an integer dtype, as int64 (u64's greatest saturates:
// its immediate is written with the same bits).
std::int64_t int_lowest(DType dtype) {
  switch (dtype) {
    case DType::i8:
      return std::numeric_limits<std::int8_t>::min();
    case DType::i16:
      return std::numeric_limits<std::int16_t>::min();
    case DType::i32:
      return std::numeric_limits<std::int32_t>::min();
    case DType::i64:
      return std::numeric_limits<std::int64_t>::min();
    default:
      return 0;  // unsigned and bool
  }
}

std::int64_t int_highest(DType dtype) {
  switch (dtype) {
    case DType::i8:
      return std::numeric_limits<std::int8_t>::max();
    case DType::i16:
      return std::numeric_limits<std::int16_t>::max();
    case DType::i32:
      return std::numeric_limits<std::int32_t>::max();
    case DType::i64:
      return std::numeric_limits<std::int64_t>::max();
    case DType::u8:
      return std::numeric_limits<std::uint8_t>::max();
    case DType::u16:
      return std::numeric_limits<std::uint16_t>::max();
    case DType::u32:
      return std::numeric_limits<std::uint32_t>::max();
    case DType::u64:
      return -1;  // all bits set
    default:
      return 1;  // bool
  }
}

}  // namespace

Expr constant(DType dtype, double value) {
  DataType type = DataType::scalar(dtype);
  if (is_float(dtype)) return FloatImmNode::make(type, value);
  if (dtype == DType::boolean) return IntImmNode::make(type, value != 0 ? 1 : 0);
  return IntImmNode::make(type, static_cast<std::int64_t>(value));
}

Expr lowest(DType dtype) {
  if (is_float(dtype)) return constant(dtype, -std::numeric_limits<double>::infinity());
  return IntImmNode::make(DataType::scalar(dtype), int_lowest(dtype));
}

Expr highest(DType dtype) {
  if (is_float(dtype)) return constant(dtype, std::numeric_limits<double>::infinity());
  return IntImmNode::make(DataType::scalar(dtype), int_highest(dtype));
}

Expr cast(DType dtype, const Expr& e) {
  DataType type = DataType::vector(dtype, e.type().lanes);
  if (e.type() == type) return e;
  return CastNode::make(type, e);
}

Expr intrinsic(std::string_view name, std::vector<Expr> args) {
  UMA_CHECK(!args.empty(), "intrinsic {} without arguments", name);
  DataType type = args.front().type();
  if (is_predicate(name)) type = DataType::vector(DType::boolean, type.lanes);
  return CallNode::make(type, std::string(name), std::move(args), CallNode::CallKind::kIntrinsic);
}

Indices broadcast_indices(const Indices& out, const Shape& from, const Shape& to) {
  UMA_CHECK(from.size() <= out.size(), "broadcasting rank {} to rank {}", from.size(), out.size());
  UMA_CHECK(to.empty() || to.size() == out.size(), "{} indices for rank {}", out.size(), to.size());
  std::size_t lead = out.size() - from.size();
  Indices indices;
  indices.reserve(from.size());
  for (std::size_t d = 0; d < from.size(); ++d) {
    bool broadcast = from[d] == 1 && (to.empty() || to[lead + d] != 1);
    indices.push_back(broadcast ? Expr(0) : out[lead + d]);
  }
  return indices;
}

std::string block_name(std::string_view op) {
  std::size_t dot = op.rfind('.');
  return std::string(dot == std::string_view::npos ? op : op.substr(dot + 1));
}

Stage pointwise_stage(std::string name, DType dtype, Shape shape,
                      std::function<Expr(const Indices&)> element, bool injective) {
  Stage stage;
  stage.name = std::move(name);
  stage.dtype = dtype;
  stage.shape = std::move(shape);
  stage.element = std::move(element);
  stage.injective = injective;
  return stage;
}

TensorView view_of(const Stage& stage) {
  UMA_CHECK(stage.element != nullptr, "stage {} is not pointwise", stage.name);
  return TensorView{stage.dtype, stage.shape, stage.element, nullptr, stage.padding};
}

AttrMap block_attrs(const Node& node) {
  AttrMap attrs;
  for (const auto& [name, value] : node.attrs())
    if (!is_discardable_attr(name)) attrs.set(name, value);
  return attrs;
}

TensorView pad_view(const TensorView& view, const std::vector<std::int64_t>& before,
                    const std::vector<std::int64_t>& after, const Expr& fill) {
  const std::size_t rank = view.shape.size();
  UMA_CHECK(before.size() == rank && after.size() == rank, "padding of rank {} for rank {}",
            before.size(), rank);
  bool padded = false;
  Shape shape = view.shape;
  for (std::size_t d = 0; d < rank; ++d) {
    shape[d] += before[d] + after[d];
    padded |= before[d] != 0 || after[d] != 0;
  }
  if (!padded) return view;
  Expr value = cast(view.dtype, fill);
  auto at = [view, before, after, value](const Indices& idx) {
    Indices inner(idx.size());
    Expr inside;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      inner[d] = before[d] == 0 ? idx[d] : idx[d] - before[d];
      // Only the sides that add elements need a test.
      Expr ok;
      if (before[d] > 0) ok = inner[d] >= 0;
      if (after[d] > 0) {
        Expr below = inner[d] < view.shape[d];
        ok = ok.defined() ? (ok && below) : below;
      }
      if (ok.defined()) inside = inside.defined() ? (inside && ok) : ok;
    }
    Expr read = view.at(inner);
    return inside.defined() ? SelectNode::make(inside, read, value) : read;
  };
  return TensorView{view.dtype, shape, at, nullptr};
}

TensorView materialize_padding(const TensorView& data, ComputeBuilder& builder) {
  if (data.padding == nullptr) return data;
  Stage copy = pointwise_stage("pad", data.dtype, data.shape, data.at, true);
  copy.attrs = data.padding->attrs;
  return builder.materialize(std::move(copy));
}

PaddedInput fold_padding(const TensorView& data, std::vector<std::int64_t> before,
                         std::vector<std::int64_t> after, const Expr& fill,
                         std::size_t first_padded, ComputeBuilder& builder) {
  PaddedInput input{data, std::move(before), std::move(after)};
  Expr value = cast(data.dtype, fill);
  auto foldable = [&](const Padding& pad) {
    if (!pad.fill.defined() || !equal(pad.fill, value)) return false;
    for (std::size_t d = 0; d < pad.before.size(); ++d) {
      if (pad.before[d] < 0 || pad.after[d] < 0) return false;
      if (d < first_padded && (pad.before[d] != 0 || pad.after[d] != 0)) return false;
    }
    return true;
  };
  while (input.data.padding != nullptr && foldable(*input.data.padding)) {
    std::shared_ptr<const Padding> pad = input.data.padding;
    for (std::size_t d = 0; d < pad->before.size(); ++d) {
      input.before[d] += pad->before[d];
      input.after[d] += pad->after[d];
    }
    input.data = pad->source;
    input.folded = true;
  }
  input.data = materialize_padding(input.data, builder);
  return input;
}

Expected<TensorView> relaid_view(const TensorView& view, const std::string& from,
                                 const std::string& to) {
  UMA_TRY_ASSIGN(LayoutTransform transform, LayoutTransform::make(from, to));
  UMA_TRY_ASSIGN(Shape shape, transform.result_shape(view.shape));
  return TensorView{
      .dtype = view.dtype, .shape = std::move(shape), .at = [view, transform](const Indices& i) {
        return view.at(transform.source_indices(i));
      }};
}

}  // namespace uma::lower
