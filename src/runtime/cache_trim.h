// Keeping the C compiler driver's object cache (uma/runtime/c_compiler.h) within a size:
// the least recently used files go first, never one that this process still needs.
// Private to src/runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace uma::runtime {

// Files of the cache that a build of this process is using (objects between compiling and
// linking, a library between linking and loading): trimming leaves them alone until the
// pins are destroyed. Safe to use from several threads.
class CachePins {
 public:
  CachePins() = default;
  CachePins(const CachePins&) = delete;
  CachePins& operator=(const CachePins&) = delete;
  ~CachePins();
  void pin(const std::string& path);

 private:
  std::vector<std::string> paths_;
};

// Removes files the cache made (`<name>-<hash>.c` and `.o`, `lib<hash>.so`; no other file of
// `dir`) from the least recently modified on, until those left take at most `limit` bytes.
// A file pinned (CachePins) or loaded as a library in this process (Library::is_loaded)
// is never removed, even when the limit cannot be met without it. Returns how many files it
// removed. Files that vanish meanwhile (another process trimming) are skipped.
std::size_t trim_cache(const std::string& dir, std::uint64_t limit);

// Marks a cache file as used now (its modification time), so that trimming takes it last.
void touch_cache_file(const std::string& path);

}  // namespace uma::runtime
