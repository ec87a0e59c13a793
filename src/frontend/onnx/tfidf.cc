// The converter of ONNX TfIdfVectorizer (opset 9 on) over integer tokens: the pool's n-grams
// are known at import, so their counts are ordinary ops. For each size n from
// min_gram_length to max_gram_length and each skip distance s (1 to max_skip_count + 1; one
// pass for unigrams, which skipping does not change), the n slices of every row starting at
// 0, s, ..., (n - 1) * s are compared with the n-grams' tokens, the comparisons and-ed and
// summed over the positions: [rows, n-grams] counts. A `take` per n-gram sharing an output
// column puts them in ngram_indexes' columns, and TF, IDF or TFIDF weighs them, all as
// ONNX's reference does (the weights are by output column, and an n-gram the pool repeats
// counts once, in its last place). String pools are not supported.
#include <algorithm>
#include <limits>
#include <map>

#include "static_input.h"
#include "uma/op/shape_util.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// The n-grams of one size that count, and where each goes.
struct Grams {
  std::int64_t size;
  std::vector<Ints> tokens;  // each of `size` tokens
  Ints columns;              // each one's output column
};

// The counted n-grams of the pool, and the output's row size.
struct Vocabulary {
  std::vector<Grams> sizes;
  std::int64_t columns;
};

Value* i64_constant(NodeContext& ctx, Shape shape, const Ints& values) {
  return ctx.constant(i64_tensor(std::move(shape), values));
}

// The pool's n-grams of sizes `least` to `most`: ngram_counts holds where each size's
// n-grams start in pool_int64s (size 1 first), and the n-grams of every size, in the pool's
// order, take their columns from ngram_indexes.
Expected<Vocabulary> read_vocabulary(const NodeContext& ctx, std::int64_t least,
                                     std::int64_t most) {
  if (ctx.has_attr("pool_strings"))
    return make_error(
        "attribute 'pool_strings' is not supported: uma's tensors hold numbers, so only "
        "integer tokens matched against pool_int64s are");
  UMA_TRY_ASSIGN(Ints pool, ctx.attr_ints("pool_int64s", std::nullopt));
  UMA_TRY_ASSIGN(Ints starts, ctx.attr_ints("ngram_counts", std::nullopt));
  UMA_TRY_ASSIGN(Ints indexes, ctx.attr_ints("ngram_indexes", std::nullopt));
  const auto pool_size = static_cast<std::int64_t>(pool.size());
  std::int64_t count = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const auto n = static_cast<std::int64_t>(i + 1);
    const std::int64_t begin = starts[i];
    const std::int64_t end = i + 1 < starts.size() ? starts[i + 1] : pool_size;
    if (begin < 0 || begin > end || end > pool_size)
      return make_error(
          "attribute 'ngram_counts' is {}, but must hold non-decreasing starts in the {} "
          "values of pool_int64s",
          format_ints(starts), pool_size);
    if ((end - begin) % n != 0)
      return make_error("the pool's {}-grams take {} values, which is no multiple of {}", n,
                        end - begin, n);
    count += (end - begin) / n;
  }
  if (count == 0 || static_cast<std::int64_t>(indexes.size()) != count)
    return make_error(
        "attribute 'ngram_indexes' has {} values, but must have one per n-gram of the pool, "
        "which has {}",
        indexes.size(), count);
  const std::int64_t last = *std::max_element(indexes.begin(), indexes.end());
  if (*std::min_element(indexes.begin(), indexes.end()) < 0)
    return make_error("attribute 'ngram_indexes' is {}, but output columns count from 0",
                      format_ints(indexes));
  // last + 1 columns; the largest int64 (which has no successor) is refused all the same.
  const std::int64_t columns = last == std::numeric_limits<std::int64_t>::max() ? last : last + 1;
  UMA_TRY(check_constant("the output row that attribute 'ngram_indexes' asks for", {columns}));

  Vocabulary vocabulary{.sizes = {}, .columns = columns};
  std::size_t number = 0;  // of the n-gram in the pool, all sizes
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const auto n = static_cast<std::int64_t>(i + 1);
    const std::int64_t end = i + 1 < starts.size() ? starts[i + 1] : pool_size;
    // Each n-gram's last place in the pool, which the reference's lookup keeps.
    std::map<Ints, std::int64_t> columns;
    std::vector<Ints> order;
    for (std::int64_t at = starts[i]; at < end; at += n, ++number) {
      Ints tokens(pool.begin() + at, pool.begin() + at + n);
      if (columns.count(tokens) == 0) order.push_back(tokens);
      columns[tokens] = indexes[number];
    }
    if (n < least || n > most || order.empty()) continue;
    Grams grams{.size = n, .tokens = order, .columns = {}};
    for (const Ints& tokens : order) grams.columns.push_back(columns[tokens]);
    vocabulary.sizes.push_back(std::move(grams));
  }
  return vocabulary;
}

// How often each of `grams` occurs in each row of `tokens` ([rows, C], i64), as [rows,
// n-grams] f32; nullptr when no n-gram of that size fits in a row.
Expected<Value*> count(NodeContext& ctx, Value* tokens, const Grams& grams, std::int64_t max_skip) {
  const std::int64_t rows = shape_of(tokens)[0], length = shape_of(tokens)[1];
  const std::int64_t n = grams.size;
  const auto number = static_cast<std::int64_t>(grams.tokens.size());
  // Token k of every n-gram, [1, n-grams, 1], to compare with every row and position.
  std::vector<Value*> pool_tokens;
  for (std::int64_t k = 0; k < n; ++k) {
    Ints column;
    for (const Ints& gram : grams.tokens) column.push_back(gram[static_cast<std::size_t>(k)]);
    pool_tokens.push_back(i64_constant(ctx, {1, number, 1}, column));
  }
  Value* total = nullptr;
  const std::int64_t distances = n == 1 ? 1 : std::min(max_skip, length) + 1;
  for (std::int64_t s = 1; s <= distances; ++s) {
    const std::int64_t starts = length - (n - 1) * s;  // where an n-gram fits
    if (starts <= 0) break;
    Value* match = nullptr;
    for (std::int64_t k = 0; k < n; ++k) {
      UMA_TRY_ASSIGN(Value * window, ctx.emit_value("strided_slice", {tokens},
                                                    attrs_of({{"begin", Ints{k * s}},
                                                              {"end", Ints{k * s + starts}},
                                                              {"axes", Ints{1}}})));
      UMA_TRY_ASSIGN(window, reshaped(ctx, window, {rows, 1, starts}));
      UMA_TRY_ASSIGN(Value * same,
                     ctx.emit_value("equal", {window, pool_tokens[static_cast<std::size_t>(k)]}));
      if (match == nullptr) {
        match = same;
      } else {
        UMA_TRY_ASSIGN(match, ctx.emit_value("logical_and", {match, same}));
      }
    }
    UMA_TRY_ASSIGN(Value * ones,
                   ctx.emit_value("cast", {match}, attrs_of({{"dtype", std::string("f32")}})));
    UMA_TRY_ASSIGN(Value * found,
                   ctx.emit_value("sum", {ones},
                                  attrs_of({{"axes", Ints{2}}, {"keepdims", std::int64_t{0}}})));
    if (total == nullptr) {
      total = found;
    } else {
      UMA_TRY_ASSIGN(total, ctx.emit_value("add", {total, found}));
    }
  }
  return total;
}

// The counts of every n-gram of `vocabulary` in each row, [rows, columns] f32: the counts
// of all sizes side by side and a zero after them, then for the i-th n-gram of each column
// (i = 0, 1, ... up to the most a column has) a take of its count, or of the zero.
Expected<Value*> column_counts(NodeContext& ctx, Value* tokens, const Vocabulary& vocabulary,
                               std::int64_t max_skip) {
  const std::int64_t rows = shape_of(tokens)[0];
  Values parts;
  std::vector<Ints> sources(static_cast<std::size_t>(vocabulary.columns));
  std::int64_t position = 0;
  for (const Grams& grams : vocabulary.sizes) {
    UMA_TRY_ASSIGN(Value * counts, count(ctx, tokens, grams, max_skip));
    if (counts == nullptr) continue;
    parts.push_back(counts);
    for (std::int64_t column : grams.columns)
      sources[static_cast<std::size_t>(column)].push_back(position++);
  }
  UMA_TRY_ASSIGN(
      Value * zero,
      ctx.emit_value(
          "full", {},
          attrs_of({{"shape", Ints{rows, parts.empty() ? vocabulary.columns : std::int64_t{1}}},
                    {"dtype", std::string("f32")}})));
  if (parts.empty()) return zero;
  parts.push_back(zero);
  UMA_TRY_ASSIGN(Value * all,
                 ctx.emit_value("concatenate", parts, attrs_of({{"axis", std::int64_t{1}}})));
  std::size_t layers = 0;
  for (const Ints& from : sources) layers = std::max(layers, from.size());
  Value* result = nullptr;
  for (std::size_t layer = 0; layer < layers; ++layer) {
    Ints picks;
    for (const Ints& from : sources) picks.push_back(layer < from.size() ? from[layer] : position);
    UMA_TRY_ASSIGN(Value * picked,
                   ctx.emit_value("take", {all, i64_constant(ctx, {vocabulary.columns}, picks)},
                                  attrs_of({{"axis", std::int64_t{1}}})));
    if (result == nullptr) {
      result = picked;
    } else {
      UMA_TRY_ASSIGN(result, ctx.emit_value("add", {result, picked}));
    }
  }
  return result;
}

Expected<Values> convert_tfidf_vectorizer(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * x, required_input(ctx, 0, "X"));
  const TensorType& type = x->tensor_type();
  if ((type.dtype != DType::i64 && type.dtype != DType::i32) || type.rank() > 2)
    return make_error("input 0 ('X') is {}, but must be i32 or i64 tokens, [C] or [N, C]",
                      to_string(Type(type)));
  if (type.rank() == 2 && type.shape[0] == 0)
    return make_error("input 0 ('X') is {}, but must have at least one row", to_string(Type(type)));
  UMA_TRY_ASSIGN(std::string mode, ctx.attr_string("mode", std::nullopt));
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return make_error("attribute 'mode' is '{}', but must be TF, IDF or TFIDF", mode);
  UMA_TRY_ASSIGN(std::int64_t least, ctx.attr_int("min_gram_length", std::nullopt));
  UMA_TRY_ASSIGN(std::int64_t most, ctx.attr_int("max_gram_length", std::nullopt));
  UMA_TRY_ASSIGN(std::int64_t max_skip, ctx.attr_int("max_skip_count", std::nullopt));
  if (least < 1 || most < least || max_skip < 0)
    return make_error(
        "attributes 'min_gram_length', 'max_gram_length' and 'max_skip_count' are {}, {} and "
        "{}, but must be 1 <= min <= max and a skip count of at least 0",
        least, most, max_skip);
  UMA_TRY_ASSIGN(Vocabulary vocabulary, read_vocabulary(ctx, least, most));
  UMA_TRY_ASSIGN(std::vector<double> weights, ctx.attr_floats("weights", std::vector<double>{}));
  if (!weights.empty() && static_cast<std::int64_t>(weights.size()) < vocabulary.columns)
    return make_error("attribute 'weights' has {} values, but must have one per output column, {}",
                      weights.size(), vocabulary.columns);

  const std::int64_t rows = type.rank() == 2 ? type.shape[0] : 1;
  UMA_TRY_ASSIGN(Value * tokens, reshaped(ctx, x, {rows, type.num_elements() / rows}));
  if (type.dtype != DType::i64) {
    UMA_TRY_ASSIGN(tokens,
                   ctx.emit_value("cast", {tokens}, attrs_of({{"dtype", std::string("i64")}})));
  }
  UMA_TRY_ASSIGN(Value * result, column_counts(ctx, tokens, vocabulary, max_skip));
  Value* weight = nullptr;
  if (!weights.empty()) {
    auto by_column = std::make_shared<Tensor>(TensorType{DType::f32, {vocabulary.columns}});
    for (std::int64_t c = 0; c < vocabulary.columns; ++c) by_column->set(c, weights[c]);
    weight = ctx.constant(std::move(by_column));
  }
  if (mode == "IDF") {
    UMA_TRY_ASSIGN(Value * present,
                   ctx.emit_value("greater", {result, scalar(ctx, DType::f32, 0)}));
    if (weight != nullptr) {
      UMA_TRY_ASSIGN(result,
                     ctx.emit_value("where", {present, weight, scalar(ctx, DType::f32, 0)}));
    } else {
      UMA_TRY_ASSIGN(result,
                     ctx.emit_value("cast", {present}, attrs_of({{"dtype", std::string("f32")}})));
    }
  } else if (mode == "TFIDF" && weight != nullptr) {
    UMA_TRY_ASSIGN(result, ctx.emit_value("multiply", {result, weight}));
  }
  if (type.rank() == 2) return Values{result};
  return single(reshaped(ctx, result, {vocabulary.columns}));
}

}  // namespace

void register_tfidf_converter(ConverterTable& table) {
  table.add("TfIdfVectorizer", 9, convert_tfidf_vectorizer);
}

}  // namespace uma::onnx_import
