// Unit tests of the ONNX converter of TfIdfVectorizer (src/frontend/onnx/tfidf.cc): what the
// node tests leave out (trigrams, IDF and TFIDF with and without weights, output columns
// shared by n-grams, an n-gram the pool repeats, int64 tokens, empty rows), every error, and
// the counts compiled for the host against the interpreter.
#include <gtest/gtest.h>

#include <limits>

#include "build_check.h"
#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::make_tensor;
using test::OnnxModel;
using test::values_of;
using Ints = std::vector<std::int64_t>;
using Values = std::vector<double>;

// Unigrams 1 and 3, bigrams (1, 2) and (2, 1), the trigram (1, 1, 3).
const Ints kPool = {1, 3, 1, 2, 2, 1, 1, 1, 3};
const Ints kStarts = {0, 2, 6};

OnnxModel tfidf(DType dtype, const Shape& shape, const std::string& mode, std::int64_t least,
                std::int64_t most, std::int64_t skip, const Ints& indexes,
                const Ints& starts = kStarts, const Ints& pool = kPool) {
  OnnxModel model("TfIdfVectorizer", 9);
  model.input("x", dtype, shape)
      .output("y")
      .string_attr("mode", mode)
      .int_attr("min_gram_length", least)
      .int_attr("max_gram_length", most)
      .int_attr("max_skip_count", skip)
      .ints_attr("ngram_counts", starts)
      .ints_attr("ngram_indexes", indexes)
      .ints_attr("pool_int64s", pool);
  return model;
}

class OnnxTfIdfTest : public test::OnnxConverterTest {
 protected:
  // TF counts of the pool's n-grams in one row of i64 tokens, each in its own column.
  Values counts(std::int64_t least, std::int64_t most, std::int64_t skip, const Values& row) {
    auto n = static_cast<std::int64_t>(row.size());
    return run1(tfidf(DType::i64, {n}, "TF", least, most, skip, {0, 1, 2, 3, 4}),
                {make_tensor(DType::i64, {n}, row)});
  }
};

TEST_F(OnnxTfIdfTest, CountsEachSizeWithItsSkips) {
  const Values row = {1, 2, 1, 2, 1, 1, 3};
  // (2, 1) also at distance 2 (positions 3 and 5), (1, 1, 3) at 4, 5, 6 and 2, 4, 6;
  // unigrams count once whatever the skips.
  EXPECT_EQ(counts(1, 3, 1, row), (Values{4, 1, 2, 3, 2}));
  EXPECT_EQ(counts(1, 3, 0, row), (Values{4, 1, 2, 2, 1}));
  EXPECT_EQ(counts(2, 3, 1, row), (Values{0, 0, 2, 3, 2}));
  // No row long enough for a trigram, none for anything.
  EXPECT_EQ(counts(1, 3, 5, {2, 1}), (Values{1, 0, 0, 1, 0}));
  EXPECT_EQ(counts(1, 3, 5, {}), (Values{0, 0, 0, 0, 0}));
}

TEST_F(OnnxTfIdfTest, WeighsByOutputColumn) {
  auto x = make_tensor(DType::i64, {7}, {1, 2, 1, 2, 1, 1, 3});
  // Two n-grams a column: present in IDF, summed in TF.
  OnnxModel idf = tfidf(DType::i64, {7}, "IDF", 1, 3, 1, {0, 0, 1, 1, 2});
  idf.floats_attr("weights", {0.5, 2, 4});
  EXPECT_EQ(run1(idf, {x}), (Values{0.5, 2, 4}));
  EXPECT_EQ(run1(tfidf(DType::i64, {7}, "IDF", 1, 3, 1, {0, 0, 1, 1, 2}), {x}), (Values{1, 1, 1}));
  EXPECT_EQ(run1(tfidf(DType::i64, {7}, "TF", 1, 3, 1, {0, 0, 1, 1, 2}), {x}), (Values{5, 5, 2}));
  OnnxModel both = tfidf(DType::i32, {2, 4}, "TFIDF", 1, 3, 2, {4, 3, 2, 1, 0});
  both.floats_attr("weights", {0.5, 2, 4, 1, 3});
  std::vector<TensorPtr> rows =
      run(both, {make_tensor(DType::i32, {2, 4}, {1, 2, 1, 2, 3, 1, 1, 3})});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]->shape(), (Shape{2, 5}));
  EXPECT_EQ(values_of(*rows[0]), (Values{0, 2, 12, 0, 6, 0.5, 0, 0, 2, 6}));
  // TFIDF without weights is TF.
  EXPECT_EQ(run1(tfidf(DType::i64, {7}, "TFIDF", 1, 3, 1, {0, 1, 2, 3, 4}), {x}),
            (Values{4, 1, 2, 3, 2}));
}

TEST_F(OnnxTfIdfTest, ARepeatedNGramCountsInItsLastPlace) {
  OnnxModel model = tfidf(DType::i64, {3}, "TF", 1, 1, 0, {0, 1}, {0}, {5, 5});
  EXPECT_EQ(run1(model, {make_tensor(DType::i64, {3}, {5, 4, 5})}), (Values{0, 2}));
}

TEST_F(OnnxTfIdfTest, Errors) {
  auto error = [&](OnnxModel model) { return import_error(model); };
  const Ints columns = {0, 1, 2, 3, 4};
  EXPECT_EQ(error(tfidf(DType::f32, {4}, "TF", 1, 2, 0, columns)),
            "m.onnx: node 'n' (TfIdfVectorizer): input 0 ('X') is tensor<4xf32>, but must be i32 "
            "or i64 tokens, [C] or [N, C]");
  EXPECT_EQ(error(tfidf(DType::i64, {1, 2, 4}, "TF", 1, 2, 0, columns)),
            "m.onnx: node 'n' (TfIdfVectorizer): input 0 ('X') is tensor<1x2x4xi64>, but must be "
            "i32 or i64 tokens, [C] or [N, C]");
  EXPECT_EQ(error(tfidf(DType::i64, {0, 4}, "TF", 1, 2, 0, columns)),
            "m.onnx: node 'n' (TfIdfVectorizer): input 0 ('X') is tensor<0x4xi64>, but must have "
            "at least one row");
  EXPECT_EQ(error(tfidf(DType::i64, {4}, "BM25", 1, 2, 0, columns)),
            "m.onnx: node 'n' (TfIdfVectorizer): attribute 'mode' is 'BM25', but must be TF, IDF "
            "or TFIDF");
  EXPECT_EQ(error(tfidf(DType::i64, {4}, "TF", 2, 1, 0, columns)),
            "m.onnx: node 'n' (TfIdfVectorizer): attributes 'min_gram_length', "
            "'max_gram_length' and 'max_skip_count' are 2, 1 and 0, but must be 1 <= min <= max "
            "and a skip count of at least 0");
  EXPECT_EQ(error(tfidf(DType::i64, {4}, "TF", 1, 2, 0, {0, 1, 2, 3})),
            "m.onnx: node 'n' (TfIdfVectorizer): attribute 'ngram_indexes' has 4 values, but "
            "must have one per n-gram of the pool, which has 5");
  EXPECT_EQ(error(tfidf(DType::i64, {4}, "TF", 1, 2, 0, {0, 1, -2, 3, 4})),
            "m.onnx: node 'n' (TfIdfVectorizer): attribute 'ngram_indexes' is [0, 1, -2, 3, 4], "
            "but output columns count from 0");
  EXPECT_EQ(error(tfidf(DType::i64, {4}, "TF", 1, 2, 0, {0, 1, 2, 3, std::int64_t{1} << 40})),
            "m.onnx: node 'n' (TfIdfVectorizer): the output row that attribute 'ngram_indexes' "
            "asks for would be a constant of 1099511627777 elements here, more than the 16777216 "
            "uma builds");
  // The largest index (what the fuzzer found: one column past it overflowed).
  EXPECT_EQ(error(tfidf(DType::i64, {4}, "TF", 1, 2, 0,
                        {0, 1, 2, 3, std::numeric_limits<std::int64_t>::max()})),
            "m.onnx: node 'n' (TfIdfVectorizer): the output row that attribute 'ngram_indexes' "
            "asks for would be a constant of 9223372036854775807 elements here, more than the "
            "16777216 uma builds");
  OnnxModel few_weights = tfidf(DType::i64, {4}, "IDF", 1, 2, 0, columns);
  few_weights.floats_attr("weights", {1, 2});
  EXPECT_EQ(error(few_weights),
            "m.onnx: node 'n' (TfIdfVectorizer): attribute 'weights' has 2 values, but must have "
            "one per output column, 5");
  OnnxModel strings = tfidf(DType::i64, {4}, "TF", 1, 2, 0, columns);
  strings.strings_attr("pool_strings", {"a", "b"});
  EXPECT_EQ(error(strings),
            "m.onnx: node 'n' (TfIdfVectorizer): attribute 'pool_strings' is not supported: uma's "
            "tensors hold numbers, so only integer tokens matched against pool_int64s are");
  auto pool = [](const Ints& starts, const Ints& values) {
    return tfidf(DType::i64, {4}, "TF", 1, 2, 0, {0}, starts, values);
  };
  EXPECT_EQ(error(pool({0, 3, 2}, {1, 2, 3})),
            "m.onnx: node 'n' (TfIdfVectorizer): attribute 'ngram_counts' is [0, 3, 2], but must "
            "hold non-decreasing starts in the 3 values of pool_int64s");
  EXPECT_EQ(error(pool({1, 2}, {1, 2, 3})),
            "m.onnx: node 'n' (TfIdfVectorizer): the pool's 2-grams take 1 values, which is no "
            "multiple of 2");
}

TEST_F(OnnxTfIdfTest, CompiledMatchesTheInterpreter) {
  struct Case {
    DType dtype;
    Shape shape;
    std::string mode;
    std::int64_t least, most, skip;
    Ints indexes;
    Values weights;
  };
  const std::vector<Case> cases = {
      {DType::i64, {9}, "TF", 1, 3, 2, {0, 1, 2, 3, 4}, {}},
      {DType::i32, {3, 7}, "TFIDF", 1, 3, 1, {4, 2, 0, 1, 3}, {1, 0.5, 2, 0.25, 4}},
      {DType::i64, {2, 12}, "IDF", 2, 3, 4, {1, 1, 0, 2, 2}, {}},
      {DType::i32, {4, 5}, "TF", 1, 2, 0, {0, 0, 0, 1, 6}, {}},
  };
  std::uint64_t state = 7;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mode + " " + to_string(c.shape));
    OnnxModel model = tfidf(c.dtype, c.shape, c.mode, c.least, c.most, c.skip, c.indexes);
    if (!c.weights.empty()) model.floats_attr("weights", c.weights);
    auto module = model.import(ctx);
    ASSERT_TRUE(module.ok()) << module.error().message();
    // Tokens 0 to 3, so that the pool's n-grams occur.
    Values tokens;
    for (std::int64_t i = 0; i < TensorType{c.dtype, c.shape}.num_elements(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      tokens.push_back(static_cast<double>((state >> 33) % 4));
    }
    testing_build::check_host_build(**module, {make_tensor(c.dtype, c.shape, tokens)}, 0, 0);
  }
}

}  // namespace
}  // namespace uma
