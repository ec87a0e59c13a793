// Randomized test of the simplifier: random integer index expressions over a few variables
// with random ranges are evaluated before and after simplification, at random points in
// the ranges, by an evaluator written here (independent of the simplifier's folding), and
// must agree. Seeded, so a failure reproduces.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unordered_map>

#include "uma/tir/printer.h"
#include "uma/tir/simplify.h"
#include "uma/tir/verifier.h"

namespace uma::tir {
namespace {

using Env = std::unordered_map<const VarNode*, std::int64_t>;

std::optional<std::int64_t> eval(const Expr& e, Env& env);

std::optional<std::int64_t> eval_node(const Expr& e, Env& env) {
  auto two = [&](const auto* op) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
    auto a = eval(op->a, env), b = eval(op->b, env);
    if (!a || !b) return std::nullopt;
    return std::pair{*a, *b};
  };
  std::int64_t r = 0;
  auto checked = [&r](bool overflow) {
    return overflow ? std::nullopt : std::optional<std::int64_t>(r);
  };
  switch (e.kind()) {
    case ExprKind::IntImm:
      return e.as<IntImmNode>()->value;
    case ExprKind::Var:
      return env.at(e.as<VarNode>());
    case ExprKind::Cast:
      return eval(e.as<CastNode>()->value, env);
    case ExprKind::Add:
      if (auto v = two(e.as<AddNode>()))
        return checked(__builtin_add_overflow(v->first, v->second, &r));
      return std::nullopt;
    case ExprKind::Sub:
      if (auto v = two(e.as<SubNode>()))
        return checked(__builtin_sub_overflow(v->first, v->second, &r));
      return std::nullopt;
    case ExprKind::Mul:
      if (auto v = two(e.as<MulNode>()))
        return checked(__builtin_mul_overflow(v->first, v->second, &r));
      return std::nullopt;
    case ExprKind::Div:
    case ExprKind::Mod: {
      auto v = e.kind() == ExprKind::Div ? two(e.as<DivNode>()) : two(e.as<ModNode>());
      if (!v || v->second == 0) return std::nullopt;
      // Floor division from its definition; the values here are small enough to be exact.
      auto q = static_cast<std::int64_t>(
          std::floor(static_cast<long double>(v->first) / static_cast<long double>(v->second)));
      return e.kind() == ExprKind::Div ? q : v->first - q * v->second;
    }
#define UMA_EVAL_BINARY(k, expr)                                 \
  case ExprKind::k:                                              \
    if (auto v = two(e.as<k##Node>())) {                         \
      [[maybe_unused]] std::int64_t a = v->first, b = v->second; \
      return expr;                                               \
    }                                                            \
    return std::nullopt;
      UMA_EVAL_BINARY(Min, std::min(a, b))
      UMA_EVAL_BINARY(Max, std::max(a, b))
      UMA_EVAL_BINARY(EQ, a == b)
      UMA_EVAL_BINARY(NE, a != b)
      UMA_EVAL_BINARY(LT, a < b)
      UMA_EVAL_BINARY(LE, a <= b)
      UMA_EVAL_BINARY(GT, a > b)
      UMA_EVAL_BINARY(GE, a >= b)
      UMA_EVAL_BINARY(And, a && b)
      UMA_EVAL_BINARY(Or, a || b)
#undef UMA_EVAL_BINARY
    case ExprKind::Not:
      if (auto a = eval(e.as<NotNode>()->a, env)) return !*a;
      return std::nullopt;
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      auto c = eval(op->condition, env), t = eval(op->true_value, env),
           f = eval(op->false_value, env);
      if (!c || !t || !f) return std::nullopt;
      return *c ? t : f;
    }
    case ExprKind::Let: {
      const auto* op = e.as<LetNode>();
      auto value = eval(op->value, env);
      if (!value) return std::nullopt;
      env[op->var.as<VarNode>()] = *value;
      auto body = eval(op->body, env);
      env.erase(op->var.as<VarNode>());
      return body;
    }
    default:
      ADD_FAILURE() << "the evaluator has no rule for " << expr_kind_name(e.kind());
      return std::nullopt;
  }
}

// The value of an integer expression, or nullopt where it is undefined (division by zero,
// overflow of its type). Comparisons and logical operators give 0 or 1.
std::optional<std::int64_t> eval(const Expr& e, Env& env) {
  auto v = eval_node(e, env);
  if (v && e.type().dtype == DType::i32 && (*v < INT32_MIN || *v > INT32_MAX)) return std::nullopt;
  return v;
}

class Generator {
 public:
  Generator(std::uint64_t seed, DataType type) : rng_(seed), type_(type) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::vector<Var> vars;

  Expr constant(int lo, int hi) { return IntImmNode::make(type_, uniform(lo, hi)); }
  Expr nonzero(int lo, int hi) {
    int v = 0;
    while (v == 0) v = uniform(lo, hi);
    return IntImmNode::make(type_, v);
  }

  Expr leaf() {
    if (uniform(0, 9) < 6) return vars[uniform(0, static_cast<int>(vars.size()) - 1)];
    return constant(-10, 10);
  }

  Expr condition(int depth) {
    switch (uniform(0, 9)) {
      case 0:
        return condition(depth - 1) && condition(depth - 1);
      case 1:
        return condition(depth - 1) || condition(depth - 1);
      case 2:
        return !condition(depth - 1);
      default:
        break;
    }
    Expr a = expr(depth - 1), b = expr(depth - 1);
    switch (uniform(0, 5)) {
      case 0:
        return a < b;
      case 1:
        return a <= b;
      case 2:
        return a > b;
      case 3:
        return a >= b;
      case 4:
        return a == b;
      default:
        return a != b;
    }
  }

  Expr expr(int depth) {
    if (depth <= 0 || uniform(0, 9) < 2) return leaf();
    Expr a = expr(depth - 1);
    switch (uniform(0, 14)) {
      case 0:
      case 1:
        return a + expr(depth - 1);
      case 2:
        return a - expr(depth - 1);
      case 3:
      case 4:
        return a * constant(-4, 8);
      case 5:
        return a * leaf();
      case 6:
      case 7:
        // Mostly positive divisors, as in index arithmetic.
        return a / (uniform(0, 4) == 0 ? nonzero(-6, -1) : nonzero(1, 9));
      case 8:
        return a % (uniform(0, 4) == 0 ? nonzero(-6, -1) : nonzero(1, 9));
      case 9:
        return min(a, expr(depth - 1));
      case 10:
        return max(a, expr(depth - 1));
      case 11:
        return SelectNode::make(condition(depth - 1), a, expr(depth - 1));
      case 12:
        return uniform(0, 1) ? a / expr(depth - 1) : a % expr(depth - 1);
      case 13: {
        // What splitting and fusing loops leaves: a / c * c + a % c, a - a / c * c.
        Expr c = nonzero(1, 8);
        return uniform(0, 1) ? a / c * c + a % c + leaf() : a - a / c * c;
      }
      default: {
        Var t = VarNode::make("t", type_);
        vars.push_back(t);
        Expr body = expr(depth - 1);
        vars.pop_back();
        return LetNode::make(t, a, body);
      }
    }
  }

 private:
  std::mt19937_64 rng_;
  DataType type_;
};

struct Case {
  Expr original;
  std::vector<Interval> ranges;  // of Generator::vars, in order
};

// Compares `original` and `simplified` at random points of the ranges; returns a
// description of the first disagreement.
std::optional<std::string> disagreement(Generator& gen, const Case& c, const Expr& simplified) {
  for (int point = 0; point < 24; ++point) {
    Env env;
    std::string at;
    for (std::size_t v = 0; v < gen.vars.size(); ++v) {
      std::int64_t value =
          gen.uniform(static_cast<int>(c.ranges[v].min), static_cast<int>(c.ranges[v].max));
      env[gen.vars[v].as<VarNode>()] = value;
      at += fmt::format(" {}={}", gen.vars[v].as<VarNode>()->name, value);
    }
    auto expected = eval(c.original, env);
    if (!expected) continue;  // undefined there: nothing to preserve
    auto actual = eval(simplified, env);
    if (actual != expected)
      return fmt::format("{}\n  simplified: {}\n  at{}: {} instead of {}", to_string(c.original),
                         to_string(simplified), at, actual ? std::to_string(*actual) : "undefined",
                         *expected);
  }
  return std::nullopt;
}

class TirSimplifyRandom : public ::testing::TestWithParam<DType> {};

TEST_P(TirSimplifyRandom, PreservesValues) {
  DataType type = DataType::scalar(GetParam());
  Generator gen(0x5eed + static_cast<int>(GetParam()), type);
  gen.vars = {VarNode::make("a", type), VarNode::make("b", type), VarNode::make("c", type)};
  int failures = 0, changed = 0;
  for (int n = 0; n < 4000 && failures < 5; ++n) {
    Case c;
    Bounds known;
    for (const Var& v : gen.vars) {
      int lo = gen.uniform(-8, 8);
      c.ranges.push_back(Interval::range(lo, gen.uniform(1, 16)));
      // Some variables are not known to the simplifier (it must not assume their range).
      if (gen.uniform(0, 4) != 0) known[v.as<VarNode>()] = c.ranges.back();
    }
    c.original = gen.uniform(0, 4) == 0 ? gen.condition(4) : gen.expr(5);
    Expr simplified = simplify(c.original, known);
    changed += !simplified.same_as(c.original);
    if (auto error = disagreement(gen, c, simplified)) {
      ADD_FAILURE() << "case " << n << ": " << *error;
      ++failures;
    }
    // A simplified expression is a fixed point.
    std::string once = to_string(simplified), twice = to_string(simplify(simplified, known));
    if (once != twice) {
      ADD_FAILURE() << "case " << n << ": " << to_string(c.original) << "\n  simplified: " << once
                    << "\n  again: " << twice;
      ++failures;
    }
  }
  // The test means something only if the simplifier did rewrite.
  EXPECT_GT(changed, 2000);
}

// The same expressions under loops of the variables' ranges, simplified as a statement.
TEST_P(TirSimplifyRandom, PreservesValuesUnderLoops) {
  DataType type = DataType::scalar(GetParam());
  Generator gen(0xf00d + static_cast<int>(GetParam()), type);
  gen.vars = {VarNode::make("a", type), VarNode::make("b", type), VarNode::make("c", type)};
  Buffer out = make_buffer("out", type.dtype, {Expr(1)});
  int failures = 0;
  for (int n = 0; n < 2000 && failures < 5; ++n) {
    Case c;
    c.original = gen.expr(5);
    Stmt nest = StoreNode::make(out, c.original, {Expr(0)});
    for (const Var& v : gen.vars) {
      int lo = gen.uniform(-8, 8), extent = gen.uniform(1, 16);
      c.ranges.push_back(Interval::range(lo, extent));
      nest = ForNode::make(v, IntImmNode::make(type, lo), IntImmNode::make(type, extent),
                           ForKind::kSerial, nest);
    }
    Stmt simplified = simplify(nest);
    // What comes out is well-formed loop IR.
    PrimFunc func{"f", {out}, 0, simplified, {}};
    Status status = verify(func);
    ASSERT_TRUE(status.ok()) << status.error().message() << "\n" << to_string(func);
    while (const auto* loop = simplified.as<ForNode>()) simplified = loop->body;
    const auto* store = simplified.as<StoreNode>();
    ASSERT_NE(store, nullptr) << to_string(simplify(nest));
    if (auto error = disagreement(gen, c, store->value)) {
      ADD_FAILURE() << "case " << n << ": " << *error;
      ++failures;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(IndexTypes, TirSimplifyRandom, ::testing::Values(DType::i64, DType::i32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace uma::tir
