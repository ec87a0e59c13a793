// Running another program (the C compiler, Graphviz's dot) from an argument vector
// (posix_spawn), never through a shell, its output captured.
#pragma once

#include <string>
#include <vector>

#include "uma/support/error.h"

namespace uma::runtime {

// A process's end: its wait status and what it wrote.
struct ProcessResult {
  int status = 0;      // as from waitpid
  std::string output;  // stdout and stderr together, cut at 16 KiB
};

// Runs argv[0] (found on PATH) with the arguments and waits for it.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv);

// A wait status in words: "exit status 1", "killed by signal 9".
std::string describe_status(int status);

}  // namespace uma::runtime
