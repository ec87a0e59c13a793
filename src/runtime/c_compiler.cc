// The C compiler driver: content-addressed objects, parallel compiles, spawned compilers.
#include "uma/runtime/c_compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "cache_trim.h"
#include "uma/runtime/process.h"
#include "uma/support/file.h"
#include "uma/support/hash.h"

extern char** environ;

namespace uma::runtime {
namespace {

namespace fs = std::filesystem;

// The compiler's output kept in an error message.
constexpr std::size_t kMaxOutput = 16 * 1024;

}  // namespace

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return fmt::format("wait status {}", status);
}

Expected<ProcessResult> run_process(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return make_error("cannot create a pipe: {}", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawn_error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    return make_error("cannot run '{}': {}", argv[0], std::strerror(spawn_error));
  }
  ProcessResult result;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      if (result.output.size() < kMaxOutput) result.output.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(pipe_fds[0]);
  while (waitpid(pid, &result.status, 0) < 0) {
    if (errno != EINTR)
      return make_error("cannot wait for '{}': {}", argv[0], std::strerror(errno));
  }
  if (result.output.size() > kMaxOutput) {
    result.output.resize(kMaxOutput);
    result.output += "\n[output cut]";
  }
  return result;
}

namespace {

std::vector<std::string> split_command(const std::string& command) {
  std::vector<std::string> parts;
  std::istringstream in(command);
  for (std::string part; in >> part;) parts.push_back(part);
  return parts;
}

// A file name part from a label: [A-Za-z0-9_-], at most 40 bytes.
std::string file_stem(const std::string& name) {
  std::string stem;
  for (char c : name.substr(0, 40)) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-';
    stem += safe ? c : '_';
  }
  return stem.empty() ? "source" : stem;
}

// The digest file of a cache entry: the SHA-256 of the entry's bytes, written after it.
std::string digest_path(const std::string& entry) { return entry + ".sha256"; }

// Whether `entry` is in the cache and its bytes are the ones its digest file names; an
// entry that is missing its digest, corrupt or replaced is removed, to be built again.
bool verified_entry(const std::string& entry) {
  std::error_code error;
  if (!fs::exists(entry, error)) return false;
  auto expected = read_file(digest_path(entry));
  auto actual = sha256_file(entry);
  if (expected.ok() && actual.ok() && *expected == *actual + "\n") return true;
  fs::remove(entry, error);
  fs::remove(digest_path(entry), error);
  return false;
}

// Records the digest of an entry just made.
Status record_digest(const std::string& entry) {
  UMA_TRY_ASSIGN(std::string digest, sha256_file(entry));
  return write_atomically(digest_path(entry), digest + "\n");
}

// Makes the cache folder when missing (its last part private, 0700) and checks that no one
// else can put code in it: a folder of another user, or one its group or others may write,
// could hold a planted object or library that the build would load.
Status prepare_cache_dir(const std::string& dir) {
  std::error_code error;
  fs::create_directories(fs::path(dir).parent_path(), error);
  if (error) return make_error("{}: cannot create the cache folder: {}", dir, error.message());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return make_error("{}: cannot create the cache folder: {}", dir, std::strerror(errno));
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0)
    return make_error("{}: cannot use the cache folder: {}", dir, std::strerror(errno));
  if (!S_ISDIR(info.st_mode))
    return make_error("{}: cannot create the cache folder: it is a file, not a folder", dir);
  if (info.st_uid != ::geteuid())
    return make_error(
        "{}: the cache folder belongs to user {}, not to this user ({}); code another user "
        "can place there is never loaded (give a folder of your own with --cache-dir)",
        dir, info.st_uid, ::geteuid());
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return make_error(
        "{}: the cache folder is writable by its group or by others (mode {:04o}); code "
        "another user can place there is never loaded (chmod go-w it, or give another "
        "folder with --cache-dir)",
        dir, info.st_mode & 07777);
  return Status::success();
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += part + '\0';
  return out;
}

bool is_cpu_name(std::string_view name) {
  bool ok = !name.empty();
  for (char c : name)
    ok &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-';
  return ok;
}

// The lines of /proc/cpuinfo that name the first CPU and its features.
std::string cpuinfo_identity() {
  auto text = read_file("/proc/cpuinfo");
  if (!text.ok()) return "unknown";
  std::string identity;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    for (std::string_view key : {"model name", "flags", "Features", "CPU part", "isa"})
      if (line.rfind(key, 0) == 0 && identity.find(std::string(key)) == std::string::npos)
        identity += line + "\n";
  }
  return identity.empty() ? "unknown" : identity;
}

// "-march=  znver4" and "-mavx2  [enabled]" lines of `--help=target`, as "znver4 -mavx2 ...".
std::string parse_target_help(const std::string& output) {
  std::string cpu, features;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string flag, value;
    if (!(words >> flag >> value)) continue;
    if (flag == "-march=")
      cpu = value;
    else if (value == "[enabled]" && flag.rfind("-m", 0) == 0)
      features += " " + flag;
  }
  return cpu.empty() ? "" : cpu + features;
}

}  // namespace

Status write_c_sources(const std::vector<CSourceFile>& sources, const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return make_error("{}: cannot create the folder: {}", dir, error.message());
  std::set<std::string> written;
  for (const CSourceFile& source : sources) {
    std::string path = (fs::path(dir) / (file_stem(source.name) + ".c")).string();
    if (!written.insert(path).second)
      return make_error("{}: two sources of the build take this file name", path);
    UMA_TRY(write_file(path, source.code));
  }
  return Status::success();
}

Expected<std::string> resolve_native_cpu(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> resolved;
  std::lock_guard lock(mutex);
  auto it = resolved.find(compiler);
  if (it != resolved.end()) return it->second;
  std::vector<std::string> argv = split_command(compiler);
  if (argv.empty()) return make_error("no C compiler command to ask what -march=native means");
  append(argv, {"-march=native", "-Q", "--help=target"});
  UMA_TRY_ASSIGN(ProcessResult result, run_process(argv));
  std::string identity = result.status == 0 ? parse_target_help(result.output) : "";
  if (identity.empty()) identity = "cpuinfo " + cpuinfo_identity();
  return resolved[compiler] = identity;
}

Expected<std::vector<std::string>> cpu_flags(const std::string& cpu,
                                             const std::vector<std::string>& features) {
  std::vector<std::string> flags;
  if (!cpu.empty()) {
    if (!is_cpu_name(cpu) || cpu[0] == '-')
      return make_error("'{}' is not a CPU name for the C compiler", cpu);
    flags.push_back("-march=" + cpu);
  }
  for (const std::string& feature : features) {
    std::string_view name = feature;
    bool enable = true;
    if (name.starts_with('+')) {
      name.remove_prefix(1);
    } else if (name.starts_with('-')) {
      name.remove_prefix(1);
      enable = false;
    } else if (name.starts_with("no-")) {
      name.remove_prefix(3);
      enable = false;
    }
    if (!is_cpu_name(name) || name[0] == '-')
      return make_error("'{}' is not a CPU feature for the C compiler", feature);
    flags.push_back(fmt::format("-m{}{}", enable ? "" : "no-", name));
  }
  return flags;
}

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return (fs::path(xdg) / "uma").string();
  if (const char* home = std::getenv("HOME"); home && home[0] == '/')
    return (fs::path(home) / ".cache" / "uma").string();
  // A folder of this user's own (prepare_cache_dir makes it 0700 and refuses one that
  // another user made first).
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) temp = "/tmp";
  return (temp / fmt::format("uma-cache-{}", ::geteuid())).string();
}

CCompiler::CCompiler(CCompilerOptions options) : options_(std::move(options)) {
  std::string command = options_.compiler;
  if (command.empty()) {
    const char* cc = std::getenv("CC");
    command = cc && cc[0] ? cc : "cc";
  }
  compiler_ = split_command(command);
  if (compiler_.empty()) compiler_ = {"cc"};
  // Absolute, so that no path on a command line can start with '-' and read as a flag.
  std::string dir = options_.cache_dir.empty() ? default_cache_dir() : options_.cache_dir;
  std::error_code error;
  fs::path absolute = fs::absolute(dir, error);
  cache_dir_ = error ? dir : absolute.lexically_normal().string();
}

CCompilerStats CCompiler::stats() const {
  return {compiled_.load(), cache_hits_.load(), linked_.load(), link_cache_hits_.load(),
          evicted_.load()};
}

const std::string& CCompiler::compiler_identity() {
  std::call_once(identity_once_, [this] {
    identity_ = joined(compiler_);
    std::vector<std::string> argv = compiler_;
    argv.push_back("--version");
    auto version = run_process(argv);
    if (version.ok() && version->status == 0) identity_ += version->output;
    if (options_.cpu == "native") {
      auto native = resolve_native_cpu(fmt::format("{}", fmt::join(compiler_, " ")));
      identity_ += '\0' + (native.ok() ? *native : "native unresolved");
    }
  });
  return identity_;
}

Expected<std::vector<std::string>> CCompiler::compile_command() const {
  // The CPU's flags first, so that a -march among the compile flags wins.
  std::vector<std::string> argv = compiler_;
  UMA_TRY_ASSIGN(std::vector<std::string> cpu, cpu_flags(options_.cpu, options_.features));
  append(argv, cpu);
  append(argv, options_.compile_flags);
  if (options_.openmp) argv.push_back("-fopenmp");
  return argv;
}

void CCompiler::trim_cache() {
  if (options_.max_cache_bytes != 0)
    evicted_ += runtime::trim_cache(cache_dir_, options_.max_cache_bytes);
}

Expected<std::string> CCompiler::compile_one(const CSourceFile& source, CachePins& pins) {
  UMA_TRY_ASSIGN(std::vector<std::string> command, compile_command());
  std::string key =
      ContentHash().add(compiler_identity()).add(joined(command)).add(source.code).hex();
  std::string stem = (fs::path(cache_dir_) / (file_stem(source.name) + "-" + key)).string();
  std::string c_path = stem + ".c", object = stem + ".o";
  pins.pin(object);
  if (!options_.refresh && verified_entry(object)) {
    touch_cache_file(object);
    ++cache_hits_;
    return object;
  }
  UMA_TRY(write_atomically(c_path, source.code));
  std::string temporary = temporary_path(object);
  append(command, {"-c", c_path, "-o", temporary});
  UMA_TRY_ASSIGN(ProcessResult result, run_process(command));
  std::error_code error;
  if (result.status != 0) {
    fs::remove(temporary, error);
    return make_error("C compiler failed on {} ({}):\n{}", c_path, describe_status(result.status),
                      result.output);
  }
  fs::rename(temporary, object, error);
  if (error) return make_error("{}: cannot write: {}", object, error.message());
  UMA_TRY(record_digest(object));
  ++compiled_;
  return object;
}

Expected<std::vector<std::string>> CCompiler::compile(const std::vector<CSourceFile>& sources) {
  CachePins pins;
  return compile(sources, pins);
}

Expected<std::vector<std::string>> CCompiler::compile(const std::vector<CSourceFile>& sources,
                                                      CachePins& pins) {
  UMA_TRY(prepare_cache_dir(cache_dir_));
  compiler_identity();  // once, before the workers start
  if (auto command = compile_command(); !command.ok()) return command.error();
  trim_cache();

  std::vector<std::optional<Expected<std::string>>> results(sources.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex done_mutex;
  auto work = [&] {
    for (std::size_t k; (k = next++) < sources.size();) {
      results[k] = compile_one(sources[k], pins);
      if (!options_.on_compiled) continue;
      std::lock_guard lock(done_mutex);
      options_.on_compiled(++done, sources.size());
    }
  };
  unsigned jobs = options_.jobs ? options_.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::size_t workers = std::min<std::size_t>(jobs, sources.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();

  std::vector<std::string> objects;
  for (auto& result : results) {
    if (!result->ok()) return result->error();
    objects.push_back(std::move(result->value()));
  }
  return objects;
}

Expected<std::string> CCompiler::link(const std::vector<std::string>& objects,
                                      const std::string& output) {
  std::vector<std::string> command = compiler_;
  append(command, options_.link_flags);
  if (options_.openmp) command.push_back("-fopenmp");
  std::string library = output;
  if (library.empty()) {
    // Objects are named by their content, so their paths identify the library.
    std::string key = ContentHash()
                          .add(compiler_identity())
                          .add(joined(command))
                          .add(joined(objects))
                          .add(joined(options_.libraries))
                          .hex();
    library = (fs::path(cache_dir_) / ("lib" + key + ".so")).string();
    if (!options_.refresh && verified_entry(library)) {
      touch_cache_file(library);
      ++link_cache_hits_;
      return library;
    }
  } else {
    std::error_code error;
    fs::path absolute = fs::absolute(output, error);
    if (!error) library = absolute.string();
  }
  trim_cache();  // the objects are pinned by the build
  std::string temporary = temporary_path(library);
  append(command, {"-o", temporary});
  append(command, objects);
  append(command, options_.libraries);
  UMA_TRY_ASSIGN(ProcessResult result, run_process(command));
  std::error_code error;
  if (result.status != 0) {
    fs::remove(temporary, error);
    return make_error("linking {} failed ({}):\n{}", library, describe_status(result.status),
                      result.output);
  }
  // A rename gives the library a new file, so a process that loaded the old one keeps it.
  fs::rename(temporary, library, error);
  if (error) return make_error("{}: cannot write: {}", library, error.message());
  if (output.empty()) UMA_TRY(record_digest(library));
  ++linked_;
  return library;
}

Expected<std::string> CCompiler::build_shared_library(const std::vector<CSourceFile>& sources,
                                                      const std::string& output) {
  if (sources.empty()) return make_error("no C sources to build a library from");
  CachePins pins;
  UMA_TRY_ASSIGN(std::vector<std::string> objects, compile(sources, pins));
  return link(objects, output);
}

}  // namespace uma::runtime
