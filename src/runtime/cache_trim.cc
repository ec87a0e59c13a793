// Trimming the object cache, least recently used first.
#include "cache_trim.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>
#include <string_view>
#include <tuple>

#include "uma/runtime/library.h"

namespace uma::runtime {
namespace {

namespace fs = std::filesystem;

// One lock for pins and trimming, so that no file is pinned while a trim decides on it.
// Never destroyed, so that pins released at exit still find them.
std::mutex& cache_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

std::multiset<std::string>& pinned() {
  static auto* paths = new std::multiset<std::string>;
  return *paths;
}

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

bool is_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_stem(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// The names CCompiler gives cache files: <stem>-<hash>.c, <stem>-<hash>.o, lib<hash>.so,
// and the digest files of the last two, <entry>.sha256.
bool is_cache_file_name(std::string_view name) {
  auto ends_with = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (ends_with(".sha256")) {
    name.remove_suffix(7);
    if (name.ends_with(".c")) return false;
  }
  if (name.starts_with("lib") && ends_with(".so")) return is_hex(name.substr(3, name.size() - 6));
  if (!ends_with(".c") && !ends_with(".o")) return false;
  std::string_view base = name.substr(0, name.size() - 2);
  std::size_t dash = base.rfind('-');
  return dash != std::string_view::npos && is_stem(base.substr(0, dash)) &&
         is_hex(base.substr(dash + 1));
}

struct CacheFile {
  struct timespec modified;
  std::string path;
  std::uint64_t bytes;
};

bool older(const CacheFile& a, const CacheFile& b) {
  return std::tie(a.modified.tv_sec, a.modified.tv_nsec, a.path) <
         std::tie(b.modified.tv_sec, b.modified.tv_nsec, b.path);
}

}  // namespace

CachePins::~CachePins() {
  std::lock_guard lock(cache_mutex());
  for (const std::string& path : paths_) pinned().erase(pinned().find(path));
}

void CachePins::pin(const std::string& path) {
  std::lock_guard lock(cache_mutex());
  paths_.push_back(normal(path));
  pinned().insert(paths_.back());
}

std::size_t trim_cache(const std::string& dir, std::uint64_t limit) {
  std::lock_guard lock(cache_mutex());
  std::vector<CacheFile> files;
  std::uint64_t total = 0;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    std::string path = normal(it->path().string());
    struct stat info;
    if (!is_cache_file_name(it->path().filename().string()) || ::lstat(path.c_str(), &info) != 0 ||
        !S_ISREG(info.st_mode))
      continue;
    files.push_back({info.st_mtim, path, static_cast<std::uint64_t>(info.st_size)});
    total += files.back().bytes;
  }
  std::sort(files.begin(), files.end(), older);
  std::size_t removed = 0;
  for (const CacheFile& file : files) {
    if (total <= limit) break;
    if (pinned().count(file.path) != 0 || Library::is_loaded(file.path)) continue;
    if (fs::remove(file.path, error)) ++removed;
    // Gone either way, unless it could not be removed.
    if (!error) total -= file.bytes;
  }
  return removed;
}

void touch_cache_file(const std::string& path) {
  std::error_code error;  // a read-only cache is still usable: the time is only a hint
  fs::last_write_time(path, fs::file_time_type::clock::now(), error);
}

}  // namespace uma::runtime
