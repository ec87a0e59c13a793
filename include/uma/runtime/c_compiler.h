// Builds generated C into a shared library with the system C compiler.
//
// Each source is written to the cache folder as `<name>-<hash>.c` and compiled to
// `<name>-<hash>.o`, where the hash (SHA-256) covers the source, the compiler (its command
// and its --version output, and what -march=native resolves to) and the flags: a source
// compiled before is not compiled again. Each object and cached library has a digest file
// beside it (`<entry>.sha256`, the SHA-256 of its bytes, written after it); an entry is used
// only when its bytes match its digest, and one that does not (corrupt, replaced, or
// without a digest) is removed and built again. The cache folder must belong to the user
// and not be writable by its group or others: it is refused otherwise, since the build
// loads code from it. The folder is made 0700 when missing. The
// objects are linked into a shared library (by default also in the cache folder, named by
// the hash of its objects and link flags, so rebuilding the same code reuses it and a
// changed library never overwrites one that a process has loaded). Sources compile in
// parallel, at most `jobs` at a time. The cache is bounded (max_cache_bytes): a cache hit
// marks its file as used, and the least recently used files go first.
//
// The compiler runs from an argument vector (posix_spawn), never through a shell, so no
// file name or flag is interpreted. A failure gives an Error with the compiler's output
// and the path of the source, which stays in the cache folder for inspection.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "uma/support/error.h"

namespace uma::runtime {

class CachePins;

struct CSourceFile {
  // A label for file names and messages; sanitized into [A-Za-z0-9_-] for the file name.
  std::string name;
  std::string code;
};

struct CCompilerOptions {
  // The compiler command, split at spaces ("ccache gcc"); empty means $CC, else "cc".
  std::string compiler;
  // -fwrapv: the loop IR's integers wrap on overflow, but in C a signed overflow is
  // undefined and the compiler optimizes on the assumption that none happens (x + 1 > x
  // becomes true), so generated arithmetic could silently differ from the IR's. -fwrapv
  // gives C the IR's semantics. It costs no measurable speed on ResNet-50 or MobileNetV2:
  // loops run over i64 counters to constant bounds, which need no overflow assumption.
  // -fno-trapping-math: the generated code never reads the floating-point exception flags,
  // so GCC may compute both sides of a select (if-conversion), which vectorizing a lane
  // loop around uma_expf and the other math helpers needs. Results and their rounding are
  // unchanged (unlike -ffast-math); -std=c11 keeps -ffp-contract=off, so a * b + c rounds
  // twice and only the IR's fma rounds once.
  std::vector<std::string> compile_flags = {"-O2", "-fPIC", "-std=c11", "-fwrapv",
                                            "-fno-trapping-math"};
  std::vector<std::string> link_flags = {"-shared"};
  std::vector<std::string> libraries = {"-lm"};  // after the objects on the link line
  // Adds -fopenmp to compiling and linking (for code generated with OpenMP).
  bool openmp = false;
  // The CPU the code is for, as -march=<cpu>: "native" (this machine's), a name the compiler
  // knows ("x86-64", "x86-64-v3", "znver4", ...), or "" for the compiler's default. For
  // "native", the concrete CPU and ISA extensions the compiler resolves it to (see
  // resolve_native_cpu) are part of every object's cache key, so that a cache shared
  // between machines never gives one CPU's code (AVX-512, say) to another.
  std::string cpu = "native";
  // CPU features on top of `cpu`: "avx2" or "+avx2" adds -mavx2, "-avx512f" -mno-avx512f.
  // These flags come before compile_flags, so a -march there wins.
  std::vector<std::string> features;
  // Empty means default_cache_dir().
  std::string cache_dir;
  // The cache folder's bound: before adding files, the least recently used cache files are
  // removed until those left take at most this many bytes (0: no bound). Files a build or a
  // loaded Library of this process uses are never removed, nor files the cache did not make.
  std::uint64_t max_cache_bytes = std::uint64_t{512} << 20;
  // Compiler processes at once; 0 means the number of hardware threads.
  unsigned jobs = 0;
  // Compiles and links anew, replacing what the cache holds (after a cached library failed
  // to load).
  bool refresh = false;
  // Called after each source file of a compile is compiled or found in the cache, with the
  // count done and the total (one call at a time): a tool's progress line.
  std::function<void(std::size_t done, std::size_t total)> on_compiled;
};

// Writes each source to `dir` (made when missing) as <name>.c, the name made a file name as
// in the cache: the C of a build, to read or to compile elsewhere. Errors name the file.
Status write_c_sources(const std::vector<CSourceFile>& sources, const std::string& dir);

// What `-march=native` means to the compiler command `compiler` (split at spaces, as
// CCompilerOptions::compiler): the concrete CPU and the extensions it enables, as
// "znver4 -mavx -mavx2 ...", from `<compiler> -march=native -Q --help=target`. Where the
// compiler cannot tell (not GCC), this machine's CPU model and flags from /proc/cpuinfo.
// Resolved once per process and compiler.
Expected<std::string> resolve_native_cpu(const std::string& compiler);

// The compiler flags of a CPU and its features (CCompilerOptions::cpu and ::features):
// {"-march=znver4", "-mavx2", "-mno-avx512f"}; an Error for a name that is not
// [A-Za-z0-9_.-].
Expected<std::vector<std::string>> cpu_flags(const std::string& cpu,
                                             const std::vector<std::string>& features);

// $XDG_CACHE_HOME/uma, else $HOME/.cache/uma, else uma-cache-<uid> under the system's temp
// folder (made 0700; refused when another user made it first).
std::string default_cache_dir();

// Counts since the compiler was made (what tests check, instead of timing).
struct CCompilerStats {
  std::size_t compiled = 0;    // objects compiled
  std::size_t cache_hits = 0;  // objects found in the cache
  std::size_t linked = 0;      // libraries linked
  std::size_t link_cache_hits = 0;
  std::size_t evicted = 0;  // cache files removed to keep the cache within its bound
};

// Safe to use from several threads.
class CCompiler {
 public:
  explicit CCompiler(CCompilerOptions options = {});

  // Compiles the sources (or finds them in the cache); returns the objects' paths.
  Expected<std::vector<std::string>> compile(const std::vector<CSourceFile>& sources);
  // Compiles and links the sources into a shared library at `output`, or in the cache
  // folder when `output` is empty; returns the library's path.
  Expected<std::string> build_shared_library(const std::vector<CSourceFile>& sources,
                                             const std::string& output = "");

  CCompilerStats stats() const;
  const std::string& cache_dir() const { return cache_dir_; }

 private:
  // The objects stay pinned in the cache (not trimmed) while `pins` lives.
  Expected<std::vector<std::string>> compile(const std::vector<CSourceFile>& sources,
                                             CachePins& pins);
  Expected<std::string> compile_one(const CSourceFile& source, CachePins& pins);
  Expected<std::string> link(const std::vector<std::string>& objects, const std::string& output);
  // Keeps the cache folder within max_cache_bytes before files are added.
  void trim_cache();
  // The compiler's identity for cache keys: its command and --version output, and what
  // -march=native means to it when that is asked for (run once).
  const std::string& compiler_identity();
  Expected<std::vector<std::string>> compile_command() const;

  CCompilerOptions options_;
  std::vector<std::string> compiler_;  // the command, split
  std::string cache_dir_;
  std::once_flag identity_once_;
  std::string identity_;
  std::atomic<std::size_t> compiled_{0}, cache_hits_{0}, linked_{0}, link_cache_hits_{0},
      evicted_{0};
};

}  // namespace uma::runtime
