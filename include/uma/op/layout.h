// Data layouts as strings, in the spirit of TVM's: "NCHW", "NCHW16c", "OIHW16o". Each
// upper-case letter is a dimension of the tensor's logical shape (its primal axis); a
// number and a lower-case letter is a block of that many elements split off the primal
// axis of the same letter, innermost wherever it stands. NCHW16c holds element (n, c, h, w)
// at (n, c / 16, h, w, c % 16).
//
// layout_transform (src/op/layout.cc) moves a tensor between two layouts of the same
// primal axes; the host's layout pass (backends/cpu/) uses it around the ops it blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/tensor.h"
#include "uma/graph/type.h"
#include "uma/support/error.h"

namespace uma {

class Layout {
 public:
  // Errors name the layout and what is wrong in it.
  static Expected<Layout> parse(std::string_view text);

  const std::string& name() const { return name_; }
  std::size_t rank() const { return axes_.size(); }
  // The primal axes in the order they appear ("NCHW" for "NCHW16c").
  const std::string& primal() const { return primal_; }
  // The block of primal axis `letter` (upper case), or 0 when it is not split.
  std::int64_t block(char letter) const;

  // The logical extents (one per primal axis, in primal() order) of a tensor of `shape`
  // in this layout; an error when the ranks differ or a block's dimension is not its size.
  Expected<std::vector<std::int64_t>> logical(const Shape& shape) const;
  // The shape in this layout of a tensor with logical extents `extents` (primal() order);
  // an error when a blocked extent is not a multiple of its block.
  Expected<Shape> shape_of(const std::vector<std::int64_t>& extents) const;

  // The indices in this layout of the element at logical indices `logical` (primal order),
  // and the reverse. T is int64 or a loop-IR expression: anything with * / % +.
  template <typename T>
  std::vector<T> from_logical(const std::vector<T>& logical) const;
  template <typename T>
  std::vector<T> to_logical(const std::vector<T>& indices) const;

 private:
  struct Axis {
    char letter;         // upper case: primal; lower case: a block of the upper one
    std::int64_t block;  // the block's size; 0 for a primal axis
  };
  std::size_t primal_position(char letter) const;  // in primal_

  std::string name_;
  std::string primal_;
  std::vector<Axis> axes_;
};

template <typename T>
std::vector<T> Layout::from_logical(const std::vector<T>& logical) const {
  std::vector<T> out;
  out.reserve(axes_.size());
  for (const Axis& axis : axes_) {
    bool is_primal = axis.block == 0;
    char upper = is_primal ? axis.letter : static_cast<char>(axis.letter - 'a' + 'A');
    const T& index = logical[primal_position(upper)];
    std::int64_t split = block(upper);
    if (is_primal)
      out.push_back(split == 0 ? index : index / split);
    else
      out.push_back(index % split);
  }
  return out;
}

template <typename T>
std::vector<T> Layout::to_logical(const std::vector<T>& indices) const {
  std::vector<T> logical(primal_.size());
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].block != 0) continue;
    char letter = axes_[i].letter;
    std::int64_t split = block(letter);
    if (split == 0) {
      logical[primal_position(letter)] = indices[i];
      continue;
    }
    for (std::size_t j = 0; j < axes_.size(); ++j)
      if (axes_[j].block != 0 && axes_[j].letter == letter - 'A' + 'a')
        logical[primal_position(letter)] = indices[i] * split + indices[j];
  }
  return logical;
}

// A move between two layouts of the same primal axes (in any order).
class LayoutTransform {
 public:
  // Errors name the layouts.
  static Expected<LayoutTransform> make(std::string_view from, std::string_view to);

  const Layout& from() const { return from_; }
  const Layout& to() const { return to_; }
  // The shape in `to` of a tensor of `shape` in `from`.
  Expected<Shape> result_shape(const Shape& shape) const;
  // Where the element at `indices` of the result is in the source.
  template <typename T>
  std::vector<T> source_indices(const std::vector<T>& indices) const {
    return from_.from_logical(source_logical(indices));
  }
  // The logical indices (in from's primal order) of the element at `indices` of the result.
  template <typename T>
  std::vector<T> source_logical(const std::vector<T>& indices) const {
    std::vector<T> logical = to_.to_logical(indices);
    std::vector<T> reordered;
    for (std::size_t to_axis : order_) reordered.push_back(logical[to_axis]);
    return reordered;
  }

 private:
  Layout from_, to_;
  std::vector<std::size_t> order_;  // from's primal axis i is to's primal axis order_[i]
};

// `tensor` (in transform.from()) in transform.to(); an error when its shape does not fit.
// A new tensor, so that the caller may name it.
Expected<std::shared_ptr<Tensor>> relayout(const Tensor& tensor, const LayoutTransform& transform);

}  // namespace uma
