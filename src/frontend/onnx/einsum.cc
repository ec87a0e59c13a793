// The converter of ONNX Einsum (opset 12 on): the equation becomes ordinary ops, so that
// backends see nothing new. A label repeated within an operand takes the diagonal (a take
// from the two axes flattened), a label no other term names is summed out, and the operands
// are folded left to right, two at a time, into one batched matmul each: the labels both
// share and still need are the batch, the ones only they share are contracted, the rest are
// rows and columns; transposes and reshapes put them in place. The output's labels are in
// the equation's order, or, without "->", numpy's: the broadcast ellipsis, then the labels
// named once, alphabetically. The dimensions an ellipsis stands for must be equal in every
// operand (no broadcasting of 1s). Types nn.matmul does not take (f64, integers) multiply
// with broadcasting and sum instead.
#include <algorithm>
#include <map>
#include <set>

#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;
// A label: a letter's character, or kEllipsis + i for the i-th last dimension an ellipsis
// stands for (so that ellipses of different lengths align at their last dimension).
using Label = int;
using Labels = std::vector<Label>;

constexpr Label kEllipsis = 1000;

// A value and the label of each of its dimensions.
struct Term {
  Value* value;
  Labels labels;
};

AttrMap attrs_with(const char* name, Attribute value) {
  AttrMap attrs;
  attrs.set(name, std::move(value));
  return attrs;
}

Expected<Value*> reshape_to(NodeContext& ctx, Value* value, Ints shape) {
  AttrMap attrs = attrs_with("newshape", std::move(shape));
  attrs.set("allowzero", std::int64_t{1});
  return ctx.emit_value("reshape", {value}, std::move(attrs));
}

// The term with its dimensions in the order of `labels` (a permutation of its own).
Expected<Term> permuted(NodeContext& ctx, const Term& term, const Labels& labels) {
  if (labels == term.labels) return term;
  Ints perm;
  for (Label label : labels)
    perm.push_back(std::find(term.labels.begin(), term.labels.end(), label) - term.labels.begin());
  UMA_TRY_ASSIGN(Value * moved,
                 ctx.emit_value("transpose", {term.value}, attrs_with("axes", perm)));
  return Term{moved, labels};
}

std::int64_t dim_of(const Term& term, Label label) {
  auto at = std::find(term.labels.begin(), term.labels.end(), label) - term.labels.begin();
  return term.value->tensor_type().shape[static_cast<std::size_t>(at)];
}

// The labels of one term of the equation for an operand of rank `rank`.
Expected<Labels> parse_term(std::string_view text, std::size_t rank, std::size_t operand) {
  Labels labels;
  std::size_t letters = 0;
  for (char c : text)
    if (std::isalpha(static_cast<unsigned char>(c))) ++letters;
  bool ellipsis = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      labels.push_back(c);
    } else if (text.substr(i, 3) == "..." && !ellipsis) {
      ellipsis = true;
      if (letters > rank)
        return make_error(
            "attribute 'equation': term {} names {} dimensions, but input {} has "
            "rank {}",
            operand, letters, operand, rank);
      for (std::size_t d = rank - letters; d-- > 0;)
        labels.push_back(kEllipsis + static_cast<Label>(d));
      i += 2;
    } else {
      return make_error(
          "attribute 'equation': term {} ('{}') has '{}', which is neither a "
          "letter nor one '...'",
          operand, text, c);
    }
  }
  if (labels.size() != rank)
    return make_error(
        "attribute 'equation': term {} ('{}') names {} dimensions, but input {} "
        "has rank {}",
        operand, text, labels.size(), operand, rank);
  return labels;
}

// The diagonal of the term over each label it repeats.
Expected<Term> diagonals(NodeContext& ctx, Term term) {
  for (;;) {
    auto repeated = std::find_if(term.labels.begin(), term.labels.end(), [&](Label label) {
      return std::count(term.labels.begin(), term.labels.end(), label) > 1;
    });
    if (repeated == term.labels.end()) return term;
    const Label label = *repeated;
    // The two axes last, flattened; element i * (n + 1) is diagonal element i.
    Labels order;
    std::size_t seen = 0;
    for (Label l : term.labels)
      if (l != label || seen++ >= 2) order.push_back(l);
    const Shape& shape = term.value->tensor_type().shape;
    std::vector<std::size_t> axes;
    for (std::size_t d = 0; d < term.labels.size() && axes.size() < 2; ++d)
      if (term.labels[d] == label) axes.push_back(d);
    const std::int64_t n = shape[axes[0]];
    if (shape[axes[1]] != n)
      return make_error("attribute 'equation': label '{}' of one input has dimensions {} and {}",
                        static_cast<char>(label), n, shape[axes[1]]);
    Ints perm, flat;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (d != axes[0] && d != axes[1]) {
        perm.push_back(static_cast<std::int64_t>(d));
        flat.push_back(shape[d]);
      }
    perm.push_back(static_cast<std::int64_t>(axes[0]));
    perm.push_back(static_cast<std::int64_t>(axes[1]));
    flat.push_back(n * n);
    UMA_TRY_ASSIGN(Value * moved,
                   ctx.emit_value("transpose", {term.value}, attrs_with("axes", perm)));
    UMA_TRY_ASSIGN(moved, reshape_to(ctx, moved, flat));
    auto positions = std::make_shared<Tensor>(TensorType{DType::i64, {n}});
    for (std::int64_t i = 0; i < n; ++i) positions->data<std::int64_t>()[i] = i * (n + 1);
    UMA_TRY_ASSIGN(Value * diagonal,
                   ctx.emit_value("take", {moved, ctx.constant(std::move(positions))},
                                  attrs_with("axis", static_cast<std::int64_t>(flat.size() - 1))));
    Labels labels;
    for (Label l : term.labels)
      if (l != label) labels.push_back(l);
    labels.push_back(label);
    term = Term{diagonal, labels};
  }
}

// The term with the labels `keep` does not hold summed out.
Expected<Term> sum_unneeded(NodeContext& ctx, const Term& term, const std::set<Label>& keep) {
  Ints axes;
  Labels labels;
  for (std::size_t d = 0; d < term.labels.size(); ++d) {
    if (keep.count(term.labels[d]))
      labels.push_back(term.labels[d]);
    else
      axes.push_back(static_cast<std::int64_t>(d));
  }
  if (axes.empty()) return term;
  AttrMap attrs = attrs_with("axes", axes);
  attrs.set("keepdims", std::int64_t{0});
  UMA_TRY_ASSIGN(Value * summed, ctx.emit_value("sum", {term.value}, std::move(attrs)));
  return Term{summed, labels};
}

// [batch, rows, inner] x [batch, inner, columns]: nn.matmul for the types it takes; for
// the others (f64, integers) the broadcast products summed over the inner dimension.
Expected<Value*> batched_product(NodeContext& ctx, Value* l, Value* r) {
  DType dtype = l->tensor_type().dtype;
  if (dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16)
    return ctx.emit_value("nn.matmul", {l, r});
  const Shape& a = l->tensor_type().shape;
  const Shape& b = r->tensor_type().shape;
  UMA_TRY_ASSIGN(Value * column, reshape_to(ctx, l, {a[0], a[1], a[2], 1}));
  UMA_TRY_ASSIGN(Value * row, reshape_to(ctx, r, {b[0], 1, b[1], b[2]}));
  UMA_TRY_ASSIGN(Value * products, ctx.emit_value("multiply", {column, row}));
  AttrMap attrs = attrs_with("axes", Ints{2});
  attrs.set("keepdims", std::int64_t{0});
  return ctx.emit_value("sum", {products}, std::move(attrs));
}

// a and b multiplied over their shared labels: those in `keep` stay (the batch), the others
// are contracted.
Expected<Term> contract(NodeContext& ctx, const Term& a, const Term& b,
                        const std::set<Label>& keep) {
  auto in = [](const Term& t, Label label) {
    return std::find(t.labels.begin(), t.labels.end(), label) != t.labels.end();
  };
  Labels batch, rows, inner, columns;
  for (Label label : a.labels) {
    if (!in(b, label))
      rows.push_back(label);
    else if (keep.count(label))
      batch.push_back(label);
    else
      inner.push_back(label);
  }
  for (Label label : b.labels)
    if (!in(a, label)) columns.push_back(label);
  for (Label label : batch)
    if (dim_of(a, label) != dim_of(b, label))
      return make_error("attribute 'equation': a label's dimensions differ, {} and {}",
                        dim_of(a, label), dim_of(b, label));
  for (Label label : inner)
    if (dim_of(a, label) != dim_of(b, label))
      return make_error("attribute 'equation': a label's dimensions differ, {} and {}",
                        dim_of(a, label), dim_of(b, label));
  auto size = [](const Term& t, const Labels& labels) {
    std::int64_t n = 1;
    for (Label label : labels) n *= dim_of(t, label);
    return n;
  };
  auto concat = [](std::initializer_list<const Labels*> parts) {
    Labels all;
    for (const Labels* part : parts) all.insert(all.end(), part->begin(), part->end());
    return all;
  };
  UMA_TRY_ASSIGN(Term left, permuted(ctx, a, concat({&batch, &rows, &inner})));
  UMA_TRY_ASSIGN(Term right, permuted(ctx, b, concat({&batch, &inner, &columns})));
  UMA_TRY_ASSIGN(Value * l,
                 reshape_to(ctx, left.value, {size(a, batch), size(a, rows), size(a, inner)}));
  UMA_TRY_ASSIGN(Value * r,
                 reshape_to(ctx, right.value, {size(b, batch), size(b, inner), size(b, columns)}));
  UMA_TRY_ASSIGN(Value * product, batched_product(ctx, l, r));
  Ints shape;
  for (Label label : batch) shape.push_back(dim_of(a, label));
  for (Label label : rows) shape.push_back(dim_of(a, label));
  for (Label label : columns) shape.push_back(dim_of(b, label));
  UMA_TRY_ASSIGN(Value * result, reshape_to(ctx, product, shape));
  return Term{result, concat({&batch, &rows, &columns})};
}

Expected<Values> convert_einsum(NodeContext& ctx) {
  UMA_TRY_ASSIGN(std::string equation, ctx.attr_string("equation", std::nullopt));
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const std::size_t arrow = equation.find("->");
  const std::string inputs = equation.substr(0, arrow);
  std::vector<std::string> texts;
  for (std::size_t start = 0;;) {
    std::size_t comma = inputs.find(',', start);
    texts.push_back(inputs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (texts.size() != ctx.num_inputs())
    return make_error(
        "attribute 'equation' (\"{}\") has {} input terms, but the node has {} "
        "inputs",
        equation, texts.size(), ctx.num_inputs());
  std::vector<Term> terms;
  std::map<Label, int> uses;
  std::size_t ellipsis_rank = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    UMA_TRY_ASSIGN(Value * value, required_input(ctx, i, "Inputs"));
    UMA_TRY_ASSIGN(Labels labels, parse_term(texts[i], value->tensor_type().rank(), i));
    for (Label label : labels) ++uses[label];
    for (Label label : labels)
      if (label >= kEllipsis)
        ellipsis_rank = std::max(ellipsis_rank, static_cast<std::size_t>(label - kEllipsis + 1));
    terms.push_back(Term{value, std::move(labels)});
  }
  Labels output;
  if (arrow == std::string::npos) {
    // numpy's implicit output: the ellipsis, then the labels written once in the whole
    // equation, alphabetically ("ii" is a trace).
    for (std::size_t d = ellipsis_rank; d-- > 0;)
      output.push_back(kEllipsis + static_cast<Label>(d));
    for (const auto& [label, count] : uses)
      if (label < kEllipsis && count == 1) output.push_back(label);
  } else {
    const std::string text = equation.substr(arrow + 2);
    std::size_t letters =
        static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c));
        }));
    bool has_ellipsis = text.find("...") != std::string::npos;
    UMA_TRY_ASSIGN(output,
                   parse_term(text, letters + (has_ellipsis ? ellipsis_rank : 0), texts.size()));
    for (Label label : output)
      if (!uses.count(label))
        return make_error(
            "attribute 'equation': the output's label '{}' names no input's "
            "dimension",
            static_cast<char>(label));
  }
  const std::set<Label> wanted(output.begin(), output.end());
  if (wanted.size() != output.size())
    return make_error("attribute 'equation': the output repeats a label");

  // Fold the terms; a label is kept while the output or a term still to come needs it.
  auto needed_after = [&](std::size_t i) {
    std::set<Label> keep = wanted;
    for (std::size_t j = i + 1; j < terms.size(); ++j)
      keep.insert(terms[j].labels.begin(), terms[j].labels.end());
    return keep;
  };
  UMA_TRY_ASSIGN(Term acc, diagonals(ctx, terms[0]));
  for (std::size_t i = 1; i < terms.size(); ++i) {
    UMA_TRY_ASSIGN(Term next, diagonals(ctx, terms[i]));
    std::set<Label> keep = needed_after(i);
    // A label only one side has and nothing later needs is summed before the product.
    std::set<Label> keep_a = keep, keep_b = keep;
    keep_a.insert(next.labels.begin(), next.labels.end());
    keep_b.insert(acc.labels.begin(), acc.labels.end());
    UMA_TRY_ASSIGN(acc, sum_unneeded(ctx, acc, keep_a));
    UMA_TRY_ASSIGN(next, sum_unneeded(ctx, next, keep_b));
    UMA_TRY_ASSIGN(acc, contract(ctx, acc, next, keep));
  }
  UMA_TRY_ASSIGN(acc, sum_unneeded(ctx, acc, wanted));
  UMA_TRY_ASSIGN(acc, permuted(ctx, acc, output));
  return Values{acc.value};
}

}  // namespace

void register_einsum_converter(ConverterTable& table) { table.add("Einsum", 12, convert_einsum); }

}  // namespace uma::onnx_import
