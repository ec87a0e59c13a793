// `uma new-backend NAME`: write a new backend's out-of-tree CMake project (templates/backend/)
// into a new folder, named after NAME made a valid identifier. It builds as a plugin against
// an installed uma and has a test that runs a model on it against the reference interpreter.
#include <unistd.h>

#include <cctype>
#include <climits>
#include <filesystem>
#include <iostream>

#include "backend_template.h"
#include "commands.h"
#include "uma/support/file.h"
#include "uma/support/printable.h"

namespace uma::tool {
namespace {

struct NewBackendOptions {
  std::string name;
  std::string output;
};

// Lower-case letters, digits and single underscores, starting with a letter: "My NPU-2" is
// my_npu_2, "3d" backend_3d. Also a C identifier and a CMake target name.
Expected<std::string> identifier_of(const std::string& name) {
  std::string id;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) && u < 0x80)
      id += static_cast<char>(std::tolower(u));
    else if (!id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  if (id.empty())
    return make_error("'{}': a backend's name needs a letter or a digit", printable(name));
  if (std::isdigit(static_cast<unsigned char>(id[0]))) id = "backend_" + id;
  return id;
}

// my_npu → MyNpu.
std::string class_name_of(const std::string& id) {
  std::string out;
  bool upper = true;
  for (char c : id) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

Expected<int> new_backend(const NewBackendOptions& options) {
  namespace fs = std::filesystem;
  UMA_TRY_ASSIGN(std::string id, identifier_of(options.name));
  if (id != options.name)
    std::cout << fmt::format("the backend's name is {} (from '{}')\n", id, printable(options.name));
  fs::path dir = options.output.empty() ? fs::path(id) : fs::path(options.output);
  std::error_code ec;
  fs::file_type type = fs::symlink_status(dir, ec).type();
  if (type != fs::file_type::not_found) {
    // A name too long, a folder that cannot be searched: not an existing folder.
    if (ec) return make_error("{}: {}", printable(dir.string()), ec.message());
    return make_error("{}: exists; uma new-backend never writes into an existing folder",
                      printable(dir.string()));
  }
  std::string class_name = class_name_of(id);
  auto instantiate = [&](std::string text) {
    return replace_all(replace_all(std::move(text), kTemplateName, id), kTemplateClassName,
                       class_name);
  };
  // Checked before any file is written, so that a name too long leaves nothing behind.
  long name_max = pathconf(dir.has_parent_path() ? dir.parent_path().c_str() : ".", _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  for (std::size_t i = 0; i < kBackendTemplateFiles; ++i)
    for (const fs::path& part : dir / instantiate(kBackendTemplatePaths[i]))
      if (static_cast<long>(part.native().size()) > name_max)
        return make_error(
            "'{}': a file of the backend would be named {} ({} bytes), longer than the {} bytes "
            "the file system allows; choose a shorter name",
            printable(options.name), printable(part.string()), part.native().size(), name_max);
  for (std::size_t i = 0; i < kBackendTemplateFiles; ++i) {
    fs::path path = dir / instantiate(kBackendTemplatePaths[i]);
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return make_error("{}: cannot create the folder: {}", printable(path.parent_path().string()),
                        ec.message());
    UMA_TRY(write_file(path.string(), instantiate(kBackendTemplateTexts[i])));
  }
  std::string shown = printable_utf8(dir.string());
  std::cout << fmt::format(
      "wrote the backend {} to {}/ ({} files); build and test it against an installed uma:\n"
      "  cmake -S {} -B {}/build -DCMAKE_PREFIX_PATH=<uma's install prefix>\n"
      "  cmake --build {}/build && ctest --test-dir {}/build\n",
      id, shown, kBackendTemplateFiles, shown, shown, shown, shown);
  return 0;
}

}  // namespace

void add_new_backend_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<NewBackendOptions>();
  CLI::App* cmd = app.add_subcommand(
      "new-backend",
      "Write a new backend's CMake project: a plugin with a pattern, its predicate, a C kernel, "
      "and a test");
  cmd->add_option("name", options->name,
                  "The backend's name (made an identifier: lower case, digits, underscores)")
      ->required();
  cmd->add_option("-o,--output", options->output,
                  "The folder to create (default: the name); never an existing one");
  add_examples(*cmd, {"uma new-backend my_npu && cmake -S my_npu -B my_npu/build "
                      "-DCMAKE_PREFIX_PATH=/opt/uma"});
  cmd->callback([options, &exit_code] { exit_code = exit_code_of(new_backend(*options)); });
}

}  // namespace uma::tool
