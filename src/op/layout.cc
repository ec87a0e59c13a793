// Layout strings (uma/op/layout.h): parsing, and the shapes of a tensor in a layout.
#include "uma/op/layout.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>

#include "transform_util.h"
#include "uma/op/shape_util.h"
#include "uma/support/printable.h"

namespace uma {

Expected<Layout> Layout::parse(std::string_view text) {
  Layout layout;
  layout.name_ = std::string(text);
  auto fail = [&](std::string_view why) {
    return make_error("layout '{}' {}", printable(text), why);
  };
  std::size_t i = 0;
  while (i < text.size()) {
    std::int64_t block = 0;
    std::size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (block > (std::int64_t{1} << 40)) return fail("has a block too large");
      block = block * 10 + (text[i++] - '0');
      ++digits;
    }
    if (i == text.size()) return fail("ends with a number, not an axis letter");
    char letter = text[i++];
    bool upper = letter >= 'A' && letter <= 'Z', lower = letter >= 'a' && letter <= 'z';
    if (!upper && !lower)
      return fail(
          fmt::format("has '{}', which is not an axis letter", printable(std::string(1, letter))));
    if (upper && digits > 0) return fail("gives a size to a primal (upper-case) axis");
    if (lower && (digits == 0 || block < 1))
      return fail(fmt::format("has block '{}' without a positive size", letter));
    for (const Axis& axis : layout.axes_)
      if (axis.letter == letter) return fail(fmt::format("names axis '{}' twice", letter));
    layout.axes_.push_back({letter, lower ? block : 0});
    if (upper) layout.primal_.push_back(letter);
  }
  if (layout.axes_.empty()) return fail("is empty");
  for (const Axis& axis : layout.axes_)
    if (axis.block != 0 &&
        layout.primal_.find(static_cast<char>(axis.letter - 'a' + 'A')) == std::string::npos)
      return fail(fmt::format("blocks axis '{}' but has no axis '{}'", axis.letter,
                              static_cast<char>(axis.letter - 'a' + 'A')));
  return layout;
}

std::int64_t Layout::block(char letter) const {
  for (const Axis& axis : axes_)
    if (axis.block != 0 && axis.letter == letter - 'A' + 'a') return axis.block;
  return 0;
}

std::size_t Layout::primal_position(char letter) const { return primal_.find(letter); }

Expected<std::vector<std::int64_t>> Layout::logical(const Shape& shape) const {
  if (shape.size() != axes_.size())
    return make_error("a tensor of layout {} has rank {}, not {} ({})", name_, axes_.size(),
                      shape.size(), to_string(shape));
  std::vector<std::int64_t> extents(primal_.size());
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    const Axis& axis = axes_[i];
    if (axis.block != 0) {
      if (shape[i] != axis.block)
        return make_error("dimension {} of {} is {}, but layout {} blocks it by {}", i,
                          to_string(shape), shape[i], name_, axis.block);
      continue;
    }
    std::int64_t split = block(axis.letter);
    auto extent = split == 0 ? std::optional<std::int64_t>(shape[i]) : checked_mul(shape[i], split);
    if (!extent) return make_error("{} in layout {} overflows int64", to_string(shape), name_);
    extents[primal_position(axis.letter)] = *extent;
  }
  return extents;
}

Expected<Shape> Layout::shape_of(const std::vector<std::int64_t>& extents) const {
  Shape shape;
  for (const Axis& axis : axes_) {
    if (axis.block != 0) {
      shape.push_back(axis.block);
      continue;
    }
    std::int64_t extent = extents[primal_position(axis.letter)];
    std::int64_t split = block(axis.letter);
    if (split != 0 && extent % split != 0)
      return make_error("axis {} of size {} does not split into blocks of {} (layout {})",
                        axis.letter, extent, split, name_);
    shape.push_back(split == 0 ? extent : extent / split);
  }
  return shape;
}

Expected<LayoutTransform> LayoutTransform::make(std::string_view from, std::string_view to) {
  LayoutTransform transform;
  UMA_TRY_ASSIGN(transform.from_, Layout::parse(from));
  UMA_TRY_ASSIGN(transform.to_, Layout::parse(to));
  const std::string& a = transform.from_.primal();
  const std::string& b = transform.to_.primal();
  for (char letter : a) {
    std::size_t at = b.find(letter);
    if (at == std::string::npos || a.size() != b.size())
      return make_error("layouts {} and {} do not have the same axes", printable(from),
                        printable(to));
    transform.order_.push_back(at);
  }
  return transform;
}

Expected<Shape> LayoutTransform::result_shape(const Shape& shape) const {
  UMA_TRY_ASSIGN(std::vector<std::int64_t> extents, from_.logical(shape));
  std::vector<std::int64_t> reordered(extents.size());
  for (std::size_t i = 0; i < extents.size(); ++i) reordered[order_[i]] = extents[i];
  return to_.shape_of(reordered);
}

// Weight packing relayouts every constant of a model at build time, so this walks the result
// once with no per-element index vectors. Both maps are separable: a source offset is a sum
// over the primal axes of one table each, and the result's indices move the logical indices
// by a fixed step per axis.
Expected<std::shared_ptr<Tensor>> relayout(const Tensor& tensor, const LayoutTransform& transform) {
  UMA_TRY_ASSIGN(Shape shape, transform.result_shape(tensor.shape()));
  UMA_TRY_ASSIGN(std::vector<std::int64_t> extents, transform.from().logical(tensor.shape()));
  // Every element of the result is written below.
  auto out = Tensor::for_overwrite(TensorType{tensor.dtype(), shape});
  if (out->num_elements() == 0) return out;

  const std::vector<std::int64_t> strides = row_major_strides(tensor.shape());
  std::size_t primals = extents.size();
  std::vector<std::vector<std::int64_t>> offset_of(primals);  // [primal][logical index]
  for (std::size_t p = 0; p < primals; ++p) {
    std::vector<std::int64_t> logical(primals, 0);
    for (logical[p] = 0; logical[p] < extents[p]; ++logical[p]) {
      std::vector<std::int64_t> source = transform.from().from_logical(logical);
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < source.size(); ++d) offset += source[d] * strides[d];
      offset_of[p].push_back(offset);
    }
  }
  std::vector<std::vector<std::int64_t>> step(shape.size());  // logical move per result axis
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::vector<std::int64_t> unit(shape.size(), 0);
    unit[d] = 1;
    step[d] = transform.source_logical(unit);
  }

  // Rows along the result's last axis; a scalar is one row of one element.
  std::size_t outer_axes = shape.empty() ? 0 : shape.size() - 1;
  std::int64_t row = shape.empty() ? 1 : shape.back();
  std::vector<std::int64_t> row_step =
      shape.empty() ? std::vector<std::int64_t>(primals, 0) : step.back();
  // The primals a row moves along (usually one); the others add the same offset to all of it.
  std::vector<std::size_t> moving;
  for (std::size_t p = 0; p < primals; ++p)
    if (row_step[p] != 0) moving.push_back(p);
  std::vector<std::int64_t> index(outer_axes, 0), logical(primals, 0);
  auto copy_rows = [&]<std::size_t kSize>() {
    const std::byte* from = tensor.bytes().data();
    std::byte* to = out->bytes().data();
    for (std::int64_t rows = out->num_elements() / row; rows-- > 0; to += row * kSize) {
      std::int64_t base = 0;
      for (std::size_t p = 0; p < primals; ++p)
        if (row_step[p] == 0) base += offset_of[p][static_cast<std::size_t>(logical[p])];
      for (std::int64_t j = 0; j < row; ++j) {
        std::int64_t offset = base;
        for (std::size_t p : moving)
          offset += offset_of[p][static_cast<std::size_t>(logical[p] + j * row_step[p])];
        std::memcpy(to + j * kSize, from + offset * kSize, kSize);  // a move of a fixed size
      }
      for (std::size_t d = outer_axes; d-- > 0;) {  // the next row, row-major
        bool wraps = ++index[d] == shape[d];
        for (std::size_t p = 0; p < primals; ++p)
          logical[p] += wraps ? -(shape[d] - 1) * step[d][p] : step[d][p];
        if (!wraps) break;
        index[d] = 0;
      }
    }
  };
  switch (dtype_size(tensor.dtype())) {
    case 1:
      copy_rows.operator()<1>();
      break;
    case 2:
      copy_rows.operator()<2>();
      break;
    case 4:
      copy_rows.operator()<4>();
      break;
    default:
      UMA_CHECK(dtype_size(tensor.dtype()) == 8, "an element of {} bytes",
                dtype_size(tensor.dtype()));
      copy_rows.operator()<8>();
      break;
  }
  return out;
}

}  // namespace uma
