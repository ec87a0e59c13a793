// The partition report as the commands that partition print it: --report (table, json, dot
// or none) and --report-file.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "uma/partition/report.h"
#include "uma/support/error.h"

namespace uma::tool {

struct ReportOutput {
  std::string format;  // table, json, dot or none
  std::string file = "-";
};

// Adds --report (what it is, `summary`) and --report-file to `command`.
void add_report_options(CLI::App& command, ReportOutput& output, const std::string& summary);

// Writes the report in its format, unless the format is none.
Status write_report(const PartitionReport& report, const ReportOutput& output);

}  // namespace uma::tool
