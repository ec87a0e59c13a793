// A convolution kernel as uma prints it: ResNet-50's 3x3 64->64 layer at 56x56 with its bias
// and relu, (1) lowered from graph IR by the default lowering and the core pipeline, and
// (2) written as a reduction block and register-tiled with the Schedule primitives alone:
// channels innermost and weights packed [O/16][KH][KW][I][16] (transform_layout), a tile of
// `rw` output pixels x `ocb` 16-lane channel vectors held in registers (split, reorder,
// decompose_reduction, then the core's compact-buffers), the reduction loops outside the
// tile, the bias and relu applied on the tile (reverse_compute_at), vectorized and unrolled.
// Both are printed by uma's C code generator and compiled with its flags. Each runs at 1
// and 2 threads, in GFLOP/s and as a fraction of this machine's FP32 peak, which the bench
// measures itself (peak.h) with independent vector FMAs compiled with the same flags. Outputs are
// checked against a direct convolution in double. Target (issue 11): the tiled kernel at
// >= 70 % of the 1-thread peak.
//
// The input is given padded (58x58, padding 0): taking the padding out of the hot loop is
// the host schedules' work (a padded buffer written by the producer), not the kernel's.
//
// usage: bench_conv_kernel [--runs N] [--rw N] [--ocb N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "peak.h"
#include "uma/codegen/c/c_codegen.h"
#include "uma/graph/parser.h"
#include "uma/lower/compute_util.h"
#include "uma/lower/lower.h"
#include "uma/runtime/c_compiler.h"
#include "uma/runtime/library.h"
#include "uma/tir/functor.h"
#include "uma/tir/phases.h"
#include "uma/tir/schedule.h"
#include "uma/uma/context.h"

namespace uma {
namespace {

using namespace tir;
using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& message) {
  fmt::print(stderr, "bench_conv_kernel: {}\n", message);
  std::exit(1);
}

template <typename T>
T value_or_fail(Expected<T> expected) {
  if (!expected) fail(expected.error().message());
  return std::move(*expected);
}

void ok_or_fail(const Status& status) {
  if (!status.ok()) fail(status.error().message());
}

// The layer: ResNet-50's conv2_x 3x3 convolution.
constexpr std::int64_t kC = 64, kK = 64, kP = 56, kQ = 56, kR = 3;
constexpr std::int64_t kH = kP + kR - 1, kW = kQ + kR - 1;  // the padded input
constexpr double kFlops = 2.0 * kK * kC * kR * kR * kP * kQ;

constexpr const char* kLayer = R"(
func @main(%x: tensor<1x64x58x58xf32>, %w: tensor<64x64x3x3xf32>, %b: tensor<64x1x1xf32>) -> (tensor<1x64x56x56xf32>) {
  %c = nn.conv2d(%x, %w) : tensor<1x64x56x56xf32>
  %a = add(%c, %b) : tensor<1x64x56x56xf32>
  %r = nn.relu(%a) : tensor<1x64x56x56xf32>
  return %r
}
)";

Stmt loop(const Var& v, std::int64_t extent, Stmt body) {
  return ForNode::make(v, Expr(0), Expr(extent), ForKind::kSerial, std::move(body));
}

// The layer as a reduction block (NCHW, as lowering writes it) accumulating x * w with
// fma into %acc, and an epilogue block storing relu(acc + b) into %r.
PrimFunc reduction_form() {
  auto shape = [](std::vector<std::int64_t> dims) {
    std::vector<Expr> out;
    for (std::int64_t d : dims) out.push_back(Expr(d));
    return out;
  };
  Buffer x = make_buffer("x", DType::f32, shape({1, kC, kH, kW}));
  Buffer w = make_buffer("w", DType::f32, shape({kK, kC, kR, kR}));
  Buffer b = make_buffer("b", DType::f32, shape({kK, 1, 1}));
  Buffer r = make_buffer("r", DType::f32, shape({1, kK, kP, kQ}));
  Buffer acc = make_buffer("acc", DType::f32, shape({1, kK, kP, kQ}));
  Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h"),
      q = VarNode::make("q"), rc = VarNode::make("rc"), rh = VarNode::make("rh"),
      rw = VarNode::make("rw");
  Expr product = LoadNode::make(x, {n, rc, h + rh, q + rw});
  Expr update = lower::intrinsic(
      "fma", {product, LoadNode::make(w, {c, rc, rh, rw}), LoadNode::make(acc, {n, c, h, q})});
  Stmt nest = StoreNode::make(acc, update, {n, c, h, q});
  std::vector<std::pair<Var, std::int64_t>> loops = {{n, 1},   {c, kK},  {h, kP}, {q, kQ},
                                                     {rc, kC}, {rh, kR}, {rw, kR}};
  std::vector<IterVar> iters;
  for (std::size_t d = 0; d < loops.size(); ++d)
    iters.push_back({loops[d].first.as<VarNode>()->name, Expr(loops[d].second),
                     d < 4 ? IterKind::kSpatial : IterKind::kReduce, loops[d].first});
  for (std::size_t d = loops.size(); d-- > 0;) nest = loop(loops[d].first, loops[d].second, nest);
  Stmt conv = BlockNode::make("conv2d_nchw", {x, w}, {acc}, nest, {}, std::move(iters),
                              StoreNode::make(acc, Expr(0.0), {n, c, h, q}));

  Var en = VarNode::make("n"), ec = VarNode::make("c"), eh = VarNode::make("h"),
      eq = VarNode::make("q");
  Expr biased = LoadNode::make(acc, {en, ec, eh, eq}) + LoadNode::make(b, {ec, Expr(0), Expr(0)});
  Stmt store = StoreNode::make(r, max(biased, Expr(0.0)), {en, ec, eh, eq});
  Stmt epilogue = BlockNode::make("conv2d_nchw_epilogue", {acc, b}, {r},
                                  loop(en, 1, loop(ec, kK, loop(eh, kP, loop(eq, kQ, store)))));
  PrimFunc func;
  func.name = "conv_tiled";
  func.params = {x, w, b, r};
  func.num_inputs = 3;
  func.body = AllocateNode::make(acc, SeqNode::make({conv, epilogue}));
  func.attrs.set("global_symbol", std::string("conv_tiled"));
  return func;
}

LoopRef named(const std::vector<LoopRef>& loops, std::string_view name) {
  for (const LoopRef& l : loops)
    if (l.var.as<VarNode>()->name == name) return l;
  fail(fmt::format("no loop '{}'", name));
}

Buffer buffer_named(const PrimFunc& func, std::string_view name) {
  Buffer found;
  pre_order_visit(func.body, [&](const ExprNode* e, const StmtNode* s) {
    if (s != nullptr && s->kind == StmtKind::Allocate) {
      const auto* a = static_cast<const AllocateNode*>(s);
      if (a->buffer->name == name) found = a->buffer;
    }
    (void)e;
  });
  for (const Buffer& p : func.params)
    if (p->name == name) found = p;
  if (found == nullptr) fail(fmt::format("no buffer %{}", name));
  return found;
}

IndexMap nchw_to_nhwc() {
  Var n = VarNode::make("n"), c = VarNode::make("c"), h = VarNode::make("h"),
      w = VarNode::make("w");
  return {{n, c, h, w}, {n, h, w, c}};
}

// The register-tiled schedule (perf-plan.md, A4), primitives only.
PrimFunc tiled(std::int64_t rw, std::int64_t ocb, bool parallel) {
  Schedule s(reduction_form());
  for (const char* name : {"x", "r", "acc"})
    value_or_fail(s.transform_layout(buffer_named(s.func(), name), nchw_to_nhwc()));
  {
    Var o = VarNode::make("o"), i = VarNode::make("i"), h = VarNode::make("h"),
        w = VarNode::make("w");
    value_or_fail(
        s.transform_layout(buffer_named(s.func(), "w"), {{o, i, h, w}, {o / 16, h, w, i, o % 16}}));
  }
  BlockRef conv = value_or_fail(s.get_block("conv2d_nchw"));
  BlockRef epilogue = value_or_fail(s.get_block("conv2d_nchw_epilogue"));
  std::vector<LoopRef> loops = value_or_fail(s.get_loops(conv));
  auto [co, cl] = value_or_fail(s.split(named(loops, "c"), 16, TailStrategy::kError));
  auto [cog, cob] = value_or_fail(s.split(co, ocb, TailStrategy::kError));
  auto [qo, qi] = value_or_fail(s.split(named(loops, "q"), rw, TailStrategy::kError));
  LoopRef h = named(loops, "h");
  ok_or_fail(s.reorder(
      {cog, h, qo, named(loops, "rh"), named(loops, "rw"), named(loops, "rc"), qi, cob, cl}));
  ok_or_fail(s.reverse_compute_at(epilogue, qo));
  BlockRef init = value_or_fail(s.decompose_reduction(conv, named(loops, "rh")));
  ok_or_fail(s.vectorize(cl));
  ok_or_fail(s.unroll(qi));
  ok_or_fail(s.unroll(cob));
  // The init's and the epilogue's own loops: channels innermost, in vectors.
  std::vector<LoopRef> init_loops = value_or_fail(s.get_loops(init));
  std::size_t first = init_loops.size() - 3;  // q_inner, c_outer, c_inner copies
  ok_or_fail(s.vectorize(init_loops[first + 2]));
  ok_or_fail(s.unroll(init_loops[first]));
  ok_or_fail(s.unroll(init_loops[first + 1]));
  std::vector<LoopRef> epi = value_or_fail(s.get_loops(epilogue));
  std::size_t own = epi.size() - 4;  // n, c, h, q of the epilogue, over the tile
  auto [eco, eci] = value_or_fail(s.split(epi[own + 1], 16, TailStrategy::kError));
  ok_or_fail(s.reorder({epi[own + 2], epi[own + 3], eco, eci}));
  ok_or_fail(s.vectorize(eci));
  ok_or_fail(s.unroll(eco));
  ok_or_fail(s.unroll(epi[own + 3]));
  if (parallel) ok_or_fail(s.parallel(value_or_fail(s.fuse(cog, h))));
  return s.func();
}

// The layer as the default lowering makes it, from graph IR.
PrimFunc lowered() {
  Context context;
  auto module = value_or_fail(parse_module(context, kLayer, "conv_layer.uma"));
  lower::LowerOptions options;
  options.symbol = "conv_default";
  return value_or_fail(lower::lower_function(*module->find_function("main"), options));
}

struct Kernel {
  runtime::Library library;
  runtime::PackedFunction function = nullptr;
  void (*set_threads)(int) = nullptr;
};

runtime::CCompilerOptions compiler_options() {
  runtime::CCompilerOptions options;
  options.openmp = true;
  options.cache_dir = (std::filesystem::temp_directory_path() / "uma-bench-conv-kernel").string();
  return options;
}

template <typename F>
F symbol(const runtime::Library& library, const char* name) {
  return reinterpret_cast<F>(value_or_fail(library.symbol(name)));
}

Kernel build(const PrimFunc& func, bool print_c) {
  TirPipeline pipeline = core_tir_pipeline({.parallel = true, .min_parallel_work = 0});
  PrimFunc done = value_or_fail(run_tir_pipeline(func, pipeline));
  codegen::CSource source = value_or_fail(codegen::generate_c({done}, {.openmp = true}));
  if (print_c) fmt::print("{}\n", source.code);
  runtime::CCompiler compiler(compiler_options());
  std::string path = value_or_fail(compiler.build_shared_library({{func.name, source.code}}));
  Kernel kernel{value_or_fail(runtime::Library::open(path))};
  kernel.function = value_or_fail(kernel.library.function(source.functions.at(0).symbol));
  kernel.set_threads = symbol<void (*)(int)>(kernel.library, "omp_set_num_threads");
  return kernel;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<float> random_data(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> data(size);
  for (float& v : data) v = dist(gen);
  return data;
}

struct Data {
  std::vector<float> x, w, b;           // NCHW, OIHW, [K, 1, 1]
  std::vector<float> x_nhwc, w_packed;  // the tiled kernel's layouts
  std::vector<double> expected;         // NCHW
};

Data make_data() {
  Data d;
  d.x = random_data(kC * kH * kW, 1);
  d.w = random_data(kK * kC * kR * kR, 2);
  d.b = random_data(kK, 3);
  d.x_nhwc.resize(d.x.size());
  for (std::int64_t c = 0; c < kC; ++c)
    for (std::int64_t h = 0; h < kH; ++h)
      for (std::int64_t w = 0; w < kW; ++w)
        d.x_nhwc[(h * kW + w) * kC + c] = d.x[(c * kH + h) * kW + w];
  d.w_packed.resize(d.w.size());
  for (std::int64_t o = 0; o < kK; ++o)
    for (std::int64_t i = 0; i < kC; ++i)
      for (std::int64_t r = 0; r < kR; ++r)
        for (std::int64_t s = 0; s < kR; ++s)
          d.w_packed[(((o / 16 * kR + r) * kR + s) * kC + i) * 16 + o % 16] =
              d.w[((o * kC + i) * kR + r) * kR + s];
  d.expected.resize(kK * kP * kQ);
  for (std::int64_t k = 0; k < kK; ++k)
    for (std::int64_t p = 0; p < kP; ++p)
      for (std::int64_t q = 0; q < kQ; ++q) {
        double sum = d.b[k];
        for (std::int64_t c = 0; c < kC; ++c)
          for (std::int64_t r = 0; r < kR; ++r)
            for (std::int64_t s = 0; s < kR; ++s)
              sum += static_cast<double>(d.x[(c * kH + p + r) * kW + q + s]) *
                     d.w[((k * kC + c) * kR + r) * kR + s];
        d.expected[(k * kP + p) * kQ + q] = std::max(sum, 0.0);
      }
  return d;
}

// The largest error against the expected output, relative to the largest output.
double max_error(const std::vector<float>& out, const Data& d, bool nhwc) {
  double worst = 0, scale = 0;
  for (std::int64_t k = 0; k < kK; ++k)
    for (std::int64_t p = 0; p < kP; ++p)
      for (std::int64_t q = 0; q < kQ; ++q) {
        double expected = d.expected[(k * kP + p) * kQ + q];
        double got = nhwc ? out[(p * kQ + q) * kK + k] : out[(k * kP + p) * kQ + q];
        worst = std::max(worst, std::abs(got - expected));
        scale = std::max(scale, std::abs(expected));
      }
  return worst / scale;
}

struct Timing {
  double min_ms = 0, median_ms = 0;
};

Timing time_kernel(const Kernel& kernel, std::vector<void*> args, int threads, int runs) {
  kernel.set_threads(threads);
  std::vector<double> ms;
  for (int i = 0; i < runs + 2; ++i) {
    Clock::time_point start = Clock::now();
    if (kernel.function(args.data()) != 0) fail("the kernel failed");
    if (i >= 2) ms.push_back(1e3 * seconds_since(start));  // two warm-up runs
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

int run(int argc, char** argv) {
  int runs = 20;
  std::int64_t rw = 14, ocb = 2;
  bool print_c = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> long {
      if (i + 1 >= argc) fail(fmt::format("{} needs a value", arg));
      return std::strtol(argv[++i], nullptr, 10);
    };
    if (arg == "--runs")
      runs = static_cast<int>(next());
    else if (arg == "--rw")
      rw = next();
    else if (arg == "--ocb")
      ocb = next();
    else if (arg == "--print-c")
      print_c = true;
    else
      fail(
          fmt::format("unknown argument '{}' (usage: bench_conv_kernel [--runs N] [--rw N] "
                      "[--ocb N] [--print-c])",
                      arg));
  }
  if (runs < 1 || rw < 1 || kQ % rw != 0 || ocb < 1 || (kK / 16) % ocb != 0)
    fail(fmt::format("--runs must be positive, --rw divide {} and --ocb divide {}", kQ, kK / 16));

  double loads[3];
  if (getloadavg(loads, 3) != 3) loads[0] = -1;
  fmt::print("conv 3x3 64->64 @56 + bias + relu ({:.2f} GFLOP), load average {:.2f}\n",
             kFlops / 1e9, loads[0]);
  Data d = make_data();
  Kernel reference = build(lowered(), false);
  Kernel fast = build(tiled(rw, ocb, /*parallel=*/true), print_c);
  std::vector<float> out_ref(kK * kP * kQ), out_fast(kK * kP * kQ);
  std::vector<void*> ref_args = {d.x.data(), d.w.data(), d.b.data(), out_ref.data()};
  std::vector<void*> fast_args = {d.x_nhwc.data(), d.w_packed.data(), d.b.data(), out_fast.data()};
  fmt::print("{:<36} {:>7} {:>10} {:>10} {:>9} {:>8} {:>10}\n", "kernel", "threads", "min ms",
             "median ms", "GFLOP/s", "of peak", "max error");
  for (int threads : {1, 2}) {
    double peak = value_or_fail(bench::measure_peak(compiler_options(), threads));
    fmt::print("{:<36} {:>7} {:>10} {:>10} {:>9.1f} {:>8} {:>10}\n", "peak (independent FMAs)",
               threads, "", "", peak, "100.0%", "");
    // Interleaved: the default lowering, then the tiled kernel, on the same load.
    for (auto [name, kernel, args, out, nhwc] :
         {std::tuple{"default lowering (NCHW)", &reference, &ref_args, &out_ref, false},
          std::tuple{"tiled (NHWC, packed, rw x ocb)", &fast, &fast_args, &out_fast, true}}) {
      int n = kernel == &reference ? std::max(1, runs / 10) : runs;
      Timing t = time_kernel(*kernel, *args, threads, n);
      double gflops = kFlops / (t.min_ms * 1e6);
      fmt::print("{:<36} {:>7} {:>10.3f} {:>10.3f} {:>9.1f} {:>7.1f}% {:>10.2e}\n", name, threads,
                 t.min_ms, t.median_ms, gflops, 100 * gflops / peak, max_error(*out, d, nhwc));
    }
  }
  fmt::print("tile: {} pixels x {} channel vectors of 16\n", rw, ocb);
  return 0;
}

}  // namespace
}  // namespace uma

int main(int argc, char** argv) { return uma::run(argc, argv); }
