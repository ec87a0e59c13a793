// uma-python: Debian's python3 with uma's module built in, for builds whose compiler is not
// position-independent (UMA_PYTHON_EXTENSION off) and so cannot be an extension: the module
// `_uma` is built in (a builtin module cannot be a package's submodule). The package
// `uma` is found next to this program (the build tree: build/python/uma/) or in
// ../lib/uma/python/ (an installed tree); everything else is Python's own.
#include <Python.h>

#include <cstdlib>
#include <filesystem>
#include <string>

extern "C" PyObject* PyInit__uma();

int main(int argc, char** argv) {
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  std::string path = self.string() + ":" + (self / "../lib/uma/python").lexically_normal().string();
  if (const char* user = std::getenv("PYTHONPATH"); user != nullptr && *user != '\0')
    path += std::string(":") + user;
  setenv("PYTHONPATH", path.c_str(), 1);
  if (PyImport_AppendInittab("_uma", PyInit__uma) == -1) return 1;
  return Py_BytesMain(argc, argv);
}
